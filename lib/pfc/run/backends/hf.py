"""Local transformers generation (CPU, MPS or GPU) for small models, with prompt-prefix KV reuse.

``model`` is a local model directory or a registry name (``qwen2.5-coder-0.5b``,
``smollm2-135m``: ``pfc.models.registry``). The chat template renders messages and tools; decoding
keeps tool-call tags so the parser sees what the model wrote. Sampling follows the request
(temperature 0 = greedy; else temperature + top-p), seeded per request.

Prefix reuse: our prompts put the user's history first and runs are ordered by user, so
consecutive prompts share long prefixes. The backend keeps the previous prompt's KV cache,
crops it to the longest common token prefix with the next prompt and prefills only the rest
(``prefix_reuse=False`` prefills every prompt from scratch). Each response's ``usage``
records ``prefill_s``, ``decode_s`` and ``reused_tokens``. Reuse changes only how the same
forward pass is chunked: logits agree to floating-point rounding (bf16 rounding can flip a
near-tie token, as batching does on any server).

Engines: ``engine="batch"`` hands the requests of one call to
:mod:`pfc.run.backends.hf_engine` (groups sharing a prefix: the prefix prefilled once, the
rows decoded together, up to ``max_batch`` rows; on CPU the rows read one copy of the prefix,
:mod:`pfc.run.backends.hf_attention`); ``engine="single"`` is the one-sequence path
(each request prefilled after the previous prompt's cached prefix, then decoded alone);
``engine="continuous"`` (default) groups the same way but decodes at most ``max_batch`` rows of a
group at once and lets the next request take a stopped row's place at once
(:mod:`pfc.run.backends.hf_stream`: one answer running to ``max_tokens`` no longer holds a whole
group's rows idle; on ToolSpectrum 7.7 s per example against ``batch``'s ~11 s, equal on the others).
The engine changes only how the same computation is batched, so it is not part of
:meth:`identity` (like prefix reuse); :meth:`describe` records it.
Needs torch and transformers (``requirements-models.txt``).

    >>> HFBackend.name
    'hf'
"""
from __future__ import annotations

from pfc.run.backends.grouping import common_prefix  # noqa: F401 - used here and by hf_engine

import sys
import time

from pfc.errors import MissingDependency, UserError
from pfc.run.backends import Backend, Response
from pfc.run.backends.hf_load import check_device, load_adapter


def crop(cache, length: int) -> None:
    """Keep the first ``length`` positions of a DynamicCache (transformers 5 takes the number to drop)."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)


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
        from pfc.models import registry
        path = registry.resolve(model)
        if model not in registry.REGISTRY:
            from pathlib import Path
            if not Path(path).is_dir():
                raise UserError(f"--model {model!r} is neither a registered model ({', '.join(registry.REGISTRY)}) "
                                 f"nor a local model directory")
        check_device(torch, device)
        if engine not in ENGINES:
            raise UserError(f"unknown hf engine {engine!r}; expected one of {ENGINES}")
        if not str(max_batch).isdigit() or int(max_batch) < 1:
            raise UserError(f"hf max_batch must be a whole number >= 1 (rows decoded together), got {max_batch!r}")
        self.model, self.device, self.prefix_reuse = model, device, bool(prefix_reuse)
        self.engine, self.max_batch, self.chunk = engine, int(max_batch), int(chunk)
        self.dtype = dtype or "auto"
        self.fingerprint = registry.fingerprint(path)
        self.tok = AutoTokenizer.from_pretrained(path)
        kw = {} if self.dtype == "auto" else {"dtype": getattr(torch, self.dtype)}
        if self.dtype == "auto":
            kw["dtype"] = "auto"
        self.lm = AutoModelForCausalLM.from_pretrained(path, **kw).to(device).eval()
        if adapter:  # the name carries the adapter's hash: the cache never mixes base and adapted answers
            self.lm, self.model = load_adapter(self.lm, model, adapter)
        self.shared_prefix = self.engine != "single" and self.prefix_reuse and torch.device(device).type == "cpu"
        if self.shared_prefix:  # a group's rows read its prefix once per step (pfc.run.backends.hf_attention)
            from pfc.run.backends import hf_attention
            self.lm.set_attn_implementation(hf_attention.register())
        self.loaded_dtype = str(next(self.lm.parameters()).dtype).replace("torch.", "")
        gen_eos = getattr(self.lm.generation_config, "eos_token_id", None)
        gen_eos = gen_eos if isinstance(gen_eos, list) else [gen_eos]
        self.stop = {t for t in [self.tok.eos_token_id, self.tok.pad_token_id, *gen_eos] if t is not None}
        self.warnings: list[str] = []
        self._tools_checked = False
        self._prev_ids: list[int] = []
        self._cache = None

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
        with_tools = self.tok.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
        without = self.tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        if with_tools == without:
            self._warn(f"the chat template of {self.model} ignores `tools`: the model never sees the tool specs "
                       f"(use --prompt-format to put them in the prompt)")

    def generate(self, requests):
        return self.generate_each(requests)

    def generate_each(self, requests, on_done=None):
        if self.engine != "single" and self.prefix_reuse:  # without reuse: every prompt from scratch, alone
            return self._batched(requests, on_done)
        out = []
        for i, r in enumerate(requests):
            resp = self._one(r)
            out.append(resp)
            if on_done is not None:
                on_done(i, resp)
        return out

    def _one(self, r) -> Response:
        t0 = time.perf_counter()
        try:
            self._check_tools(r.messages, r.tools)
            enc = self.tok.apply_chat_template(r.messages, tools=r.tools, add_generation_prompt=True,
                                               return_tensors="pt", return_dict=True)
            ids = enc["input_ids"][0].tolist()
            text, n, timing = self._generate_ids(ids, r.sampling)
            return Response(text=text, latency_s=time.perf_counter() - t0,
                            usage={"prompt_tokens": len(ids), "completion_tokens": n, **timing})
        except Exception as e:  # one failed request is a failure row, not a crash
            self._cache, self._prev_ids = None, []
            return Response(error=f"{type(e).__name__}: {e}"[:300], latency_s=time.perf_counter() - t0)

    def _encode(self, r) -> list[int]:
        self._check_tools(r.messages, r.tools)
        enc = self.tok.apply_chat_template(r.messages, tools=r.tools, add_generation_prompt=True,
                                           return_tensors="pt", return_dict=True)
        return enc["input_ids"][0].tolist()

    def _batched(self, requests, on_done=None):
        """The throughput engine (``pfc.run.backends.hf_engine``): groups sharing a prefix, decoded together."""
        from functools import partial
        from pfc.run.backends import hf_engine as eng, hf_stream
        out: list = [None] * len(requests)

        def done(i, resp):
            out[i] = resp
            if on_done is not None:
                on_done(i, resp)
        ids: dict[int, list[int]] = {}
        for i, r in enumerate(requests):
            try:
                ids[i] = self._encode(r)
            except Exception as e:  # noqa: BLE001 - one bad request is a failure row
                done(i, Response(error=f"{type(e).__name__}: {e}"[:300]))
        order = sorted(ids)
        pad = self.tok.pad_token_id if self.tok.pad_token_id is not None else 0
        stream = self.engine == "continuous"  # a group is any number of rows, max_batch of them live at once
        for group in eng.plan_groups([ids[i] for i in order], max_batch=len(order) if stream else self.max_batch,
                                     max_tokens_kv=10 ** 12 if stream else 160_000,
                                     shared=eng.shares_prefix(self.lm, self.device)):
            idx = [order[j] for j in group]
            t0 = time.perf_counter()
            try:
                prompts = [ids[i] for i in idx]
                p = min(len(x) for x in prompts) - 1
                for x in prompts[1:]:
                    p = min(p, eng.common_prefix(prompts[0], x))
                reused = self._prefix(prompts[0][:p])

                def row(j, toks, pre, dec, idx=idx, prompts=prompts, p=p, reused=reused):
                    n = len(prompts[j])
                    done(idx[j], Response(
                        text=self.tok.decode(toks, skip_special_tokens=False),
                        latency_s=round(pre + dec, 4),
                        usage={"prompt_tokens": n, "completion_tokens": len(toks), "prefill_s": round(pre, 4),
                               "decode_s": round(dec, 4), "reused_tokens": reused if j == 0 else p,
                               "batch_rows": min(len(prompts), self.max_batch) if stream else len(prompts)}))
                t_pre = time.perf_counter() - t0
                go = (partial(hf_stream.run_stream, live=self.max_batch) if stream else eng.run_group)
                go(self.lm, self._cache, prompts, [requests[i].sampling for i in idx], self._pick, self.stop, pad,
                   self.chunk, self.device, on_row=lambda j, toks, pre, dec: row(j, toks, pre + t_pre / len(idx), dec))
            except Exception as e:  # noqa: BLE001 - the group's requests become failure rows
                self._cache, self._prev_ids = None, []
                for i in idx:
                    if out[i] is None:
                        done(i, Response(error=f"{type(e).__name__}: {e}"[:300], latency_s=time.perf_counter() - t0))
        return out

    def _prefix(self, prefix: list[int]) -> int:
        """Make ``self._cache`` (batch 1) hold exactly ``prefix``, reusing what it shares; returns reused tokens."""
        from pfc.run.backends import hf_engine as eng
        cache = self._cache if isinstance(self._cache, eng.GrowCache) and self.prefix_reuse else None
        reuse = eng.common_prefix(self._prev_ids, prefix) if cache is not None else 0
        if cache is None:
            cache = eng.GrowCache()
        cache.crop_to(reuse)
        self._cache, self._prev_ids = None, []
        if len(prefix) > reuse:
            eng.prefill(self.lm, prefix[reuse:], cache, self.chunk, self.device)
        self._cache, self._prev_ids = cache, list(prefix)
        return reuse

    def _pick(self, logits, sampling, gen):
        import torch
        temp = float(sampling.get("temperature", 0) or 0)
        if temp <= 0:
            return int(torch.argmax(logits))
        probs = torch.softmax(logits.float() / temp, dim=-1)
        top_p = float(sampling.get("top_p", 1.0) or 1.0)
        if top_p < 1.0:
            sp, si = torch.sort(probs, descending=True)
            keep = torch.cumsum(sp, 0) - sp < top_p  # the smallest set reaching top_p (at least one token)
            probs = torch.zeros_like(probs).scatter(0, si[keep], sp[keep])
        return int(torch.multinomial(probs / probs.sum(), 1, generator=gen))

    def _generate_ids(self, ids: list[int], sampling: dict):
        """Prefill (reusing the cached prefix) then decode token by token; returns (text, n, timing)."""
        import torch
        from transformers import DynamicCache
        gen = torch.Generator().manual_seed(int(sampling.get("seed", 0)))
        reuse = common_prefix(self._prev_ids, ids) if (self.prefix_reuse and self._cache is not None) else 0
        reuse = min(reuse, len(ids) - 1)  # at least one new token gives the next-token logits
        if reuse > 0:
            crop(self._cache, reuse)
            cache = self._cache
        else:
            cache = DynamicCache()
        self._cache, self._prev_ids = None, []  # restored only when this request completes
        max_new = int(sampling.get("max_tokens", 256))
        t0 = time.perf_counter()
        with torch.no_grad():
            x = torch.tensor([ids[reuse:]], device=self.device)
            # logits_to_keep=1: the vocabulary projection of every prompt position would cost more than the model
            logits = self.lm(input_ids=x, past_key_values=cache, use_cache=True, logits_to_keep=1).logits[0, -1]
            if str(self.device).startswith("cuda"):
                torch.cuda.synchronize()  # GPU kernels are asynchronous: prefill time ends when they do
            t1 = time.perf_counter()
            out: list[int] = []
            while len(out) < max_new:
                t = self._pick(logits, sampling, gen)
                if t in self.stop:
                    break
                out.append(t)
                if len(out) == max_new:
                    break
                logits = self.lm(input_ids=torch.tensor([[t]], device=self.device), past_key_values=cache,
                                 use_cache=True, logits_to_keep=1).logits[0, -1]
        t2 = time.perf_counter()
        if self.prefix_reuse:
            crop(cache, len(ids))  # keep the prompt only: the next request shares at most the prompt
            self._cache, self._prev_ids = cache, ids
        text = self.tok.decode(out, skip_special_tokens=False)
        return text, len(out), {"prefill_s": round(t1 - t0, 4), "decode_s": round(t2 - t1, 4),
                                "reused_tokens": reuse}
