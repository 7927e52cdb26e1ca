"""OpenVINO GenAI on CPU: continuous batching with prefix caching, for the registered small models.

``model`` is a registry name (its IR from ``make models-openvino``, :mod:`pfc.models.openvino_ir`) or an IR directory
that holds its tokenizer files too; a LoRA ``adapter`` is merged into the weights and exported once
(:func:`pfc.models.openvino_ir.merged_ir`), never applied at run time. Prompts go through the model's own tokenizer and
chat template (:mod:`pfc.run.backends.chat_template`, as ``hf``); a call's requests go to
``openvino_genai.ContinuousBatchingPipeline`` together, with block-aligned prefix caching, their shared prefixes
prefilled first (:func:`warm_prefixes`). Sampling follows the request (greedy at temperature 0, else seeded per
request); a response's ``latency_s`` is its share of the call's wall time (no per-row ``generation`` cost). What decides
the outputs besides the request is :meth:`identity`. Needs ``requirements-openvino.txt``. Precision, speed and agreement
with ``hf``: docs/models.md (the backend table, "Performance").

    >>> OpenVINOBackend.name
    'openvino'
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from pfc.errors import MissingDependency, UserError
from pfc.run.backends import Backend, Response, chat_template
from pfc.run.backends.grouping import common_prefix
from pfc.models import openvino_ir, registry

KV_PRECISIONS = ("u8", "f16", "bf16", "f32")
PRECISIONS = ("bf16", "f16", "f32")


STEP = 2048  # tokens a scheduler step by default; another step size is named in the identity (``:step-N``)
BLOCK = 32  # tokens per KV-cache block of OpenVINO GenAI's CPU plugin: warm prefixes end on a block boundary


def warm_prefixes(prompts: list[list[int]], min_new: int = 64, block: int = BLOCK) -> list[list[int]]:
    """The prefixes to prefill, one at a time and in order, before ``prompts`` go to the pipeline together.

    Requests handed over at once all start prefilling at once, before any of them is in the prefix cache, so four
    variants of one TRACEBench anchor would each prefill the anchor's thousands of tokens. Here a prompt that shares
    more with the next prompt than with the one before starts a new shared prefix: that prefix (its common part with the
    next prompt, cut down to a whole number of ``block``-token cache blocks) is prefilled first, alone, so the whole
    batch finds it cached and prefills only its own suffix. Neighbours only: runs order requests so that those sharing a
    prefix are adjacent. A prefix adding fewer than ``min_new`` tokens to what the previous one covers is skipped.

    Why whole blocks (measured 2026-11-27, Qwen2.5-Coder-1.5B, OpenVINO 2026.4): a warm prefix that ends inside a block
    left that partial block in the prefix cache, and requests reusing it then decoded garbage (``<|im_start|>``
    repeated, or the user's text continued) on 12 of the first 80 TRACEBench reference examples; the same four prompts
    of one anchor answered normally alone, in a batch without warm prefixes, and in a batch with block-aligned warm
    prefixes.

    >>> warm_prefixes([[1, 2, 3, 9], [1, 2, 3, 8], [1, 2, 3, 7], [1, 5, 6, 9], [1, 5, 6, 8]], min_new=1, block=1)
    [[1, 2, 3], [1, 5, 6]]
    >>> [len(p) for p in warm_prefixes([[7] * 100 + [1], [7] * 100 + [2]], min_new=1, block=32)]
    [96]
    """
    out = []
    for i in range(len(prompts) - 1):
        before = common_prefix(prompts[i - 1], prompts[i]) if i else 0
        after = common_prefix(prompts[i], prompts[i + 1])
        prefix = prompts[i][:after // block * block]
        if after - before >= min_new and len(prefix) >= min_new and (not out or out[-1] != prefix):
            out.append(prefix)
    return out


class OpenVINOBackend(Backend):
    name = "openvino"

    def __init__(self, model: str = "", kv_precision: str = "bf16", precision: str = "", cache_gb: int = 4,
                 max_batched_tokens: int = STEP, split_fuse: bool = True, adapter: str = "", **_):
        if not model:
            raise UserError("the openvino backend needs --model: a registry name (`python -m pfc models`) or an "
                            "OpenVINO IR directory")
        try:
            import openvino
            import openvino_genai
            from transformers import AutoTokenizer
        except ImportError as e:
            raise MissingDependency("the openvino backend needs openvino-genai and transformers: "
                                    "make models-openvino (pip install -r requirements-openvino.txt)") from e
        if kv_precision not in KV_PRECISIONS:
            raise UserError(f"openvino kv_precision must be one of {KV_PRECISIONS}, got {kv_precision!r}")
        if precision not in ("",) + PRECISIONS:
            raise UserError(f"openvino precision must be one of {PRECISIONS} (default: OpenVINO's for this CPU), "
                            f"got {precision!r}")
        try:
            ir, tok_dir = openvino_ir.resolve(model)
            if adapter:  # merged and exported once; the name carries the adapter's hash, as hf's does
                if model not in registry.REGISTRY:
                    raise UserError(f"openvino --adapter needs a registered --model ({', '.join(registry.REGISTRY)}), "
                                    f"got {model!r}")
                ir, digest = openvino_ir.merged_ir(model, adapter)
                model = f"{model}+lora:{digest}"
        except registry.ModelError as e:
            raise UserError(str(e)) from None
        step = max_batched_tokens if isinstance(max_batched_tokens, int) and not isinstance(max_batched_tokens, bool) \
            else 0
        if step < BLOCK:
            raise UserError(f"openvino max_batched_tokens must be a whole number of at least {BLOCK}, "
                            f"got {max_batched_tokens!r}")
        self.model, self.kv_precision, self.step, self.split_fuse = model, kv_precision, step, bool(split_fuse)
        self.engine = "openvino-cb"
        self.fingerprint = openvino_ir.fingerprint(ir)
        self.ov_version = openvino.__version__.split("-")[0]
        self.tok = AutoTokenizer.from_pretrained(str(tok_dir))
        sc = openvino_genai.SchedulerConfig()
        sc.enable_prefix_caching, sc.cache_size = True, int(cache_gb)
        sc.max_num_batched_tokens, sc.dynamic_split_fuse = self.step, self.split_fuse
        props = {"KV_CACHE_PRECISION": kv_precision, **({"INFERENCE_PRECISION_HINT": precision} if precision else {})}
        self.pipe = openvino_genai.ContinuousBatchingPipeline(str(ir), sc, "CPU", props)
        self.precision = precision or openvino.Core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()
        gen_cfg = Path(tok_dir) / "generation_config.json"
        gen_eos = json.loads(gen_cfg.read_text(encoding="utf-8")).get("eos_token_id") if gen_cfg.exists() else None
        self.stop = chat_template.stop_ids(self.tok, gen_eos)
        self._np, self._ov, self._genai = __import__("numpy"), openvino, openvino_genai

    def describe(self) -> dict:
        return {"backend": self.name, "model": self.model, "fingerprint": self.fingerprint, "openvino": self.ov_version,
                "precision": self.precision, "kv_precision": self.kv_precision, "engine": self.engine}

    def identity(self) -> str:
        # prefill-b32: warm prefixes end on whole cache blocks (rows made before that carried no such part);
        # step-N only when the scheduler step is not the default (every run made before issue 63 used 2048);
        # no-split-fuse only when prompts are prefilled whole rather than in chunks beside the decoding rows
        return (f"{self.model}@{self.fingerprint}:openvino-{self.ov_version}:{self.precision}:prefill-b{BLOCK}"
                f":kv-{self.kv_precision}" + (f":step-{self.step}" if self.step != STEP else "")
                + ("" if self.split_fuse else ":no-split-fuse"))

    def _config(self, sampling: dict):
        c = self._genai.GenerationConfig()
        c.max_new_tokens = int(sampling.get("max_tokens", 512))
        c.stop_token_ids = set(self.stop)
        temp = float(sampling.get("temperature", 0.0) or 0.0)
        if temp > 0:
            c.do_sample, c.temperature, c.top_p = True, temp, float(sampling.get("top_p", 1.0))
            c.rng_seed = int(sampling.get("seed", 0))
        else:
            c.do_sample = False
        return c

    def _tensor(self, ids: list[int]):
        return self._ov.Tensor(self._np.array([ids], dtype=self._np.int64))

    def _encode(self, r) -> list[int]:
        return chat_template.prompt_ids(self.tok, r.messages, r.tools)

    def generate(self, requests):
        return self.generate_each(requests)

    def generate_each(self, requests, on_done=None):
        out: list = [None] * len(requests)
        ids: dict[int, list[int]] = {}
        for i, r in enumerate(requests):
            try:
                ids[i] = self._encode(r)
            except Exception as e:  # noqa: BLE001 - one bad request is a failure row
                out[i] = Response(error=f"{type(e).__name__}: {e}"[:300])
        order = sorted(ids)
        t0 = time.perf_counter()
        try:
            for prefix in warm_prefixes([ids[i] for i in order]):  # each shared prefix prefilled once, in order
                self.pipe.generate([self._tensor(prefix)], [self._config({"temperature": 0, "max_tokens": 1})])
            res = self.pipe.generate([self._tensor(ids[i]) for i in order],
                                     [self._config(requests[i].sampling) for i in order])
            secs = time.perf_counter() - t0
            for i, r in zip(order, res):
                toks = list(r.m_generation_ids[0])
                while toks and toks[-1] in self.stop:
                    toks.pop()
                out[i] = Response(text=chat_template.decode(self.tok, toks),
                                  latency_s=round(secs / len(order), 4),
                                  usage={"prompt_tokens": len(ids[i]), "completion_tokens": len(toks),
                                         "batch_s": round(secs, 4), "batch_rows": len(order)})
        except Exception as e:  # noqa: BLE001 - the call's requests become failure rows
            for i in order:
                out[i] = Response(error=f"{type(e).__name__}: {e}"[:300], latency_s=time.perf_counter() - t0)
        if on_done is not None:
            for i, r in enumerate(out):
                on_done(i, r)
        return out
