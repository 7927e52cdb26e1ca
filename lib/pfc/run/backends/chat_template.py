"""A model's own chat template, for the backends that tokenize locally (``hf``, ``openvino``).

Both render a request the same way, so they see the same token ids and differ only in the forward pass:
:func:`prompt_ids` renders the messages and the tool specs with the tokenizer's chat template, ending in the
assistant's turn; :func:`decode` turns the answer's ids back into text, special tokens kept (tool-call tags
stay for the parser); :func:`stop_ids` is where generation stops (the tokenizer's end and padding tokens
and the generation config's ``eos_token_id``); :func:`ignores_tools` tells whether a template drops the
tool specs (the ``hf`` backend warns). It takes a loaded Hugging Face tokenizer and imports nothing heavy;
it loads no tokenizer and generates nothing.

    >>> class Tok:
    ...     eos_token_id, pad_token_id = 2, None
    >>> sorted(stop_ids(Tok(), [2, 7])), sorted(stop_ids(Tok(), None))
    ([2, 7], [2])
"""
from __future__ import annotations


def prompt_ids(tok, messages: list[dict], tools: list[dict] | None) -> list[int]:
    """The token ids of ``messages`` and ``tools`` as the chat template renders them, with the generation prompt."""
    enc = tok.apply_chat_template(messages, tools=tools, add_generation_prompt=True, return_dict=True)
    return list(enc["input_ids"])


def decode(tok, ids: list[int]) -> str:
    """The answer's text, special tokens kept (a model's tool-call tags are what the parser reads)."""
    return tok.decode(ids, skip_special_tokens=False)


def stop_ids(tok, generation_eos) -> set[int]:
    """The tokens that end an answer: the tokenizer's end and padding tokens and the generation config's
    ``eos_token_id`` (one id, a list of them, or None)."""
    extra = generation_eos if isinstance(generation_eos, list) else [generation_eos]
    return {t for t in [tok.eos_token_id, tok.pad_token_id, *extra] if t is not None}


def ignores_tools(tok, messages: list[dict], tools: list[dict]) -> bool:
    """Whether the chat template renders ``messages`` to the same text with and without ``tools``."""
    with_tools = tok.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
    without = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return with_tools == without
