"""Local transformers generation (CPU, MPS or GPU) for small models.

The chat template renders messages and tools; decoding keeps tool-call tags so the
parser sees what the model wrote. Sampling follows the request (temperature 0 = greedy),
seeded per request. Needs torch and transformers (``requirements-models.txt``).

    >>> HFBackend.name
    'hf'
"""
from __future__ import annotations

import time

from . import Backend, Response


class HFBackend(Backend):
    name = "hf"

    def __init__(self, model: str = "", device: str = "cpu", adapter: str = "", **_):
        try:
            import torch  # noqa: F401
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:
            raise ImportError("the hf backend needs torch and transformers: pip install -r requirements-models.txt") from e
        if not model:
            raise ValueError("the hf backend needs --model: a local model directory")
        self.model, self.device = model, device
        self.tok = AutoTokenizer.from_pretrained(model)
        self.lm = AutoModelForCausalLM.from_pretrained(model).to(device).eval()
        if adapter:
            self.lm, self.model = load_adapter(self.lm, model, adapter)

    def generate(self, requests):
        import torch
        out = []
        for r in requests:
            t0 = time.perf_counter()
            try:
                enc = self.tok.apply_chat_template(r.messages, tools=r.tools, add_generation_prompt=True,
                                                   return_tensors="pt", return_dict=True).to(self.device)
                s = r.sampling
                torch.manual_seed(int(s.get("seed", 0)))
                sample = float(s.get("temperature", 0)) > 0
                kw = {"do_sample": sample, "max_new_tokens": int(s.get("max_tokens", 256))}
                if sample:
                    kw.update(temperature=float(s["temperature"]), top_p=float(s.get("top_p", 1.0)))
                with torch.no_grad():
                    gen = self.lm.generate(**enc, **kw)[0][enc["input_ids"].shape[1]:]
                ids = gen.tolist()
                stop = {self.tok.eos_token_id, self.tok.pad_token_id}
                n = next((i for i, t in enumerate(ids) if t in stop), len(ids))
                text = self.tok.decode(ids[:n], skip_special_tokens=False)
                out.append(Response(text=text, latency_s=time.perf_counter() - t0,
                                    usage={"prompt_tokens": int(enc["input_ids"].shape[1]), "completion_tokens": n}))
            except Exception as e:  # one failed request is a failure row, not a crash
                out.append(Response(error=f"{type(e).__name__}: {e}"[:300], latency_s=time.perf_counter() - t0))
        return out


def load_adapter(lm, model: str, adapter: str):
    """A LoRA adapter (``pfc.train``) merged into the model; the name carries the adapter's hash,
    so cached responses of the base model (or of another adapter) are never reused."""
    import hashlib
    from pathlib import Path
    try:
        from peft import PeftModel
    except ImportError as e:
        raise ImportError("--adapter needs peft: pip install -r requirements-models.txt") from e
    weights = sorted(Path(adapter).glob("adapter_model.*"))
    if not weights:
        raise FileNotFoundError(f"{adapter}: no adapter_model.* (a directory written by pfc.train)")
    digest = hashlib.sha256(weights[0].read_bytes()).hexdigest()[:12]
    return PeftModel.from_pretrained(lm, adapter).merge_and_unload().eval(), f"{model}+lora:{digest}"
