"""A tiny chat model built entirely locally, for tests and dummy runs (no download).

A byte-level BPE tokenizer trained with ``tokenizers`` on local text, wrapped with a
ChatML-style chat template that renders tools; a Llama config with hidden size 64, two
layers, two heads and one KV head of dimension 32 (~200k parameters, valid for vLLM's CPU
attention); trained for a few hundred steps to answer every chat with the same
``<tool_call>{...}</tool_call>``, so greedy output is deterministic and parseable.
Needs torch and transformers (``requirements-models.txt``).

    >>> TARGET.startswith("<tool_call>")
    True
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from pfc.data.toolset import load_tools, spec
from pfc.benchmarks.tracebench.prompts import SYSTEM, tool_specs

TARGET = '<tool_call>{"name": "Luckin__order_coffee", "arguments": {"drink": "Latte"}}</tool_call>'
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]
CHAT_TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n{% if messages[0].role == 'system' %}{{ messages[0].content }}\n{% endif %}"
    "# Tools\n{% for t in tools %}{{ t | tojson }}\n{% endfor %}"
    "Answer with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>.<|im_end|>\n"
    "{%- elif messages[0].role == 'system' %}<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n{%- endif %}"
    "{%- for m in messages %}{% if m.role != 'system' %}<|im_start|>{{ m.role }}\n"
    "{{ m.content if m.content else '' }}<|im_end|>\n{% endif %}{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def _corpus(rng: random.Random) -> list[str]:
    s = spec()
    texts = [json.dumps(s, ensure_ascii=False), TARGET] * 3
    words = list(s["parameters"]) + list(s["functions"]) + [a for sc in s["scenarios"].values() for a in sc]
    for _ in range(300):
        texts.append(" ".join(rng.choice(words) for _ in range(20)))
    return texts


def _conversations(rng: random.Random, n: int) -> list[tuple[list[dict], list[dict]]]:
    """(messages, tools) shaped like the real prompts: system text, tool specs, history lines, a request."""
    tools = load_tools()
    fns = list(spec()["functions"])
    out = []
    for _ in range(n):
        hist = "\n".join(f"2025-03-{rng.randint(3, 28):02d}T{rng.randint(6, 22):02d}:00:00 {t.app}.{t.function}()"
                         for t in rng.sample(tools, rng.randint(2, 8)))
        q = f"Request: {rng.choice(fns).replace('_', ' ')} {rng.choice(['now', 'for me', 'as usual', 'today'])}"
        msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"Interaction history:\n{hist}\n\n{q}"}]
        out.append((msgs, tool_specs(rng.sample(tools, rng.randint(0, 8)))))
    return out


def build_tiny_model(out_dir, steps: int = 150, seed: int = 0) -> Path:
    """Write a tokenizer + model directory loadable by transformers, ``transformers serve`` and vLLM."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    torch.manual_seed(seed)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(_corpus(rng), trainers.BpeTrainer(vocab_size=2000, special_tokens=SPECIALS,
                                                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=None, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", unk_token=None)
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    cfg = LlamaConfig(vocab_size=len(fast), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=16384,
                      tie_word_embeddings=True, eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
                      bos_token_id=None)
    model = LlamaForCausalLM(cfg)
    if steps:
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
        convs = _conversations(rng, 64)
        model.train()
        for step in range(steps):
            batch = []
            for conv, tools in rng.sample(convs, 4):
                prompt = fast.apply_chat_template(conv, tools=tools or None, add_generation_prompt=True, tokenize=False)
                ids = fast(prompt + TARGET + "<|im_end|>", add_special_tokens=False)["input_ids"]
                n_prompt = len(fast(prompt, add_special_tokens=False)["input_ids"])
                batch.append((ids, n_prompt))
            width = max(len(ids) for ids, _ in batch)
            x = torch.full((len(batch), width), fast.pad_token_id)
            y = torch.full((len(batch), width), -100)
            for i, (ids, n_prompt) in enumerate(batch):
                x[i, : len(ids)] = torch.tensor(ids)
                y[i, n_prompt: len(ids)] = torch.tensor(ids[n_prompt:])
            loss = model(input_ids=x, labels=y).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
    model.eval()
    model.generation_config = GenerationConfig(do_sample=False, eos_token_id=fast.eos_token_id,
                                               pad_token_id=fast.pad_token_id, max_new_tokens=64)
    model.save_pretrained(out)
    return out
