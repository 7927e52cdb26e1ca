"""Local transformers generation (CPU, MPS or GPU) for small models, with prompt-prefix KV reuse.

``model`` is a local model directory or a registry name (``qwen2.5-coder-0.5b``, ``smollm2-135m``:
``pfc.models.registry``). The chat template renders messages and tools; decoding keeps tool-call tags so the parser sees
what the model wrote. Sampling follows the request (temperature 0 = greedy; else temperature + top-p), seeded per
request.

Prefix reuse: our prompts put the user's history first and runs are ordered by user, so consecutive prompts share long
prefixes. The backend keeps the previous prompt's KV cache, crops it to the longest common token prefix with the next
prompt and prefills only the rest (``prefix_reuse=False`` prefills every prompt from scratch). Each response's ``usage``
records ``prefill_s``, ``decode_s`` and ``reused_tokens``. Reuse changes only how the same forward pass is chunked:
logits agree to floating-point rounding (bf16 rounding can flip a near-tie token, as batching does on any server).

Engines (:mod:`pfc.run.backends.hf_engines`, one interface): ``continuous`` (default), ``batch`` and
``single``, as docs/models.md's backend table describes them (:mod:`pfc.run.backends.hf_engine`,
:mod:`pfc.run.backends.hf_stream`, :mod:`pfc.run.backends.hf_attention`). The engine changes only how
the same computation is batched, so it is not part of :meth:`identity` (like prefix reuse); :meth:`describe`
records it. Prompts are rendered with the model's chat template as the ``openvino`` backend renders them
(:mod:`pfc.run.backends.chat_template`).
Needs torch and transformers (``requirements-models.txt``).

    >>> HFBackend.name
    'hf'
"""
from __future__ import annotations

import sys

from pfc.errors import MissingDependency, UserError
from pfc.run.backends import Backend, chat_template, hf_engines
from pfc.run.backends.hf_load import check_device, load_adapter
from pfc.models import registry

ENGINES = ("batch", "single", "continuous")


class HFBackend(Backend):
    name = "hf"

    def __init__(self, model: str = "", device: str = "cpu", dtype: str | None = None, prefix_reuse: bool = True,
                 adapter: str = "", engine: str = "continuous", max_batch: int = 8, chunk: int = 1024, **_):
        if not model:  # checked first: the message is the same with or without the model stack
            raise UserError("the hf backend needs --model: a registry name (`python -m pfc models`) or a "
                             "local model directory")
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:
            raise MissingDependency("the hf backend needs torch and transformers: pip install -r requirements-models.txt") from e
        check_device(torch, device)  # before the model's path: a machine that cannot run it refuses any model
        path = registry.resolve(model)
        if model not in registry.REGISTRY:
            from pathlib import Path
            if not Path(path).is_dir():
                raise UserError(f"--model {model!r} is neither a registered model ({', '.join(registry.REGISTRY)}) "
                                 f"nor a local model directory")
            if not (Path(path) / "config.json").is_file():
                raise UserError(f"--model {model!r}: not a model directory (no config.json in it)")
        if engine not in ENGINES:
            raise UserError(f"unknown hf engine {engine!r}; expected one of {ENGINES}")
        if not str(max_batch).isdigit() or int(max_batch) < 1:
            raise UserError(f"hf max_batch must be a whole number >= 1 (rows decoded together), got {max_batch!r}")
        self.model, self.device, self.prefix_reuse = model, device, bool(prefix_reuse)
        self.engine, self.max_batch, self.chunk = engine, int(max_batch), int(chunk)
        self.dtype = dtype or "auto"
        if adapter:  # checked before the base weights load: a bad --adapter fails at once, in one line
            from pfc.models.lora_merge import adapter_weights
            adapter_weights(adapter)
        self.fingerprint = registry.fingerprint(path)
        kw = {} if self.dtype == "auto" else {"dtype": getattr(torch, self.dtype)}
        if self.dtype == "auto":
            kw["dtype"] = "auto"
        try:  # a directory transformers cannot load (no tokenizer, no weights, an unknown config) is the user's
            self.tok = AutoTokenizer.from_pretrained(path)
            self.lm = AutoModelForCausalLM.from_pretrained(path, **kw).to(device).eval()
        except (OSError, ValueError, KeyError) as e:
            first = (str(e).strip().splitlines() or [""])[0][:200]
            raise UserError(f"--model {model!r}: transformers cannot load it as a model ({type(e).__name__}: {first})")
        if adapter:  # the name carries the adapter's hash: the cache never mixes base and adapted answers
            self.lm, self.model = load_adapter(self.lm, model, adapter)
        self.shared_prefix = self.engine != "single" and self.prefix_reuse and torch.device(device).type == "cpu"
        if self.shared_prefix:  # a group's rows read its prefix once per step (pfc.run.backends.hf_attention)
            from pfc.run.backends import hf_attention
            self.lm.set_attn_implementation(hf_attention.register())
        self.loaded_dtype = str(next(self.lm.parameters()).dtype).replace("torch.", "")
        self.stop = chat_template.stop_ids(self.tok, getattr(self.lm.generation_config, "eos_token_id", None))
        self.warnings: list[str] = []
        self._tools_checked = False
        self.loaded = hf_engines.Loaded(self.lm, self.tok, device, self.stop, self.chunk)
        self.engine_impl = hf_engines.engine_for(self.engine, self.prefix_reuse, self.loaded, self.max_batch)

    def describe(self) -> dict:
        return {"backend": self.name, "model": self.model, "fingerprint": self.fingerprint,
                "dtype": self.loaded_dtype, "prefix_reuse": self.prefix_reuse, "engine": self.engine,
                **({"max_batch": self.max_batch} if self.engine != "single" else {}),
                **({"attention": "shared-prefix"} if self.shared_prefix else {})}

    def identity(self) -> str:
        """What decides the outputs besides the request: weights, dtype (prefix reuse only re-chunks prefill)."""
        return f"{self.model}@{self.fingerprint}:{self.loaded_dtype}"

    def _warn(self, msg: str) -> None:
        if msg not in self.warnings:
            self.warnings.append(msg)
            print(f"warning: {msg}", file=sys.stderr)

    def _check_tools(self, messages, tools) -> None:
        """Warn once when the chat template renders the same text with and without the tools."""
        if self._tools_checked or not tools:
            return
        self._tools_checked = True
        if chat_template.ignores_tools(self.tok, messages, tools):
            self._warn(f"the chat template of {self.model} ignores `tools`: the model never sees the tool specs "
                       f"(use --prompt-format to put them in the prompt)")

    def _encode(self, r) -> list[int]:
        self._check_tools(r.messages, r.tools)
        return chat_template.prompt_ids(self.tok, r.messages, r.tools)

    def generate(self, requests):
        return self.generate_each(requests)

    def generate_each(self, requests, on_done=None):
        """Each request through this backend's engine (:mod:`pfc.run.backends.hf_engines`)."""
        out: list = [None] * len(requests)

        def done(i, resp):
            out[i] = resp
            if on_done is not None:
                on_done(i, resp)
        self.engine_impl.generate_each(requests, self._encode, done)
        return out
