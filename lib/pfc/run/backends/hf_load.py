"""Loading a model for the ``hf`` backend: a torch device this build can use, a LoRA adapter merged in.

:func:`check_device` refuses a device torch cannot use with one line naming ``--device``;
:func:`load_adapter` merges a LoRA adapter written by :mod:`pfc.train.lora` into the model and names
the result by the adapter's hash. It does not load the base model or generate
(:mod:`pfc.run.backends.hf`), and imports torch and peft only when called.
"""
from __future__ import annotations

from pfc.errors import MissingDependency, UserError
from pfc.models.lora_merge import adapter_digest


def check_device(torch, device: str) -> None:
    """A torch device this build of torch can use, else a one-line UserError naming --device."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise UserError(f"--device {device!r} is not a torch device (e.g. cpu, cuda, cuda:1)") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        why = "this torch is a CPU build" if torch.version.cuda is None else "no CUDA GPU is visible"
        raise UserError(f"--device {device!r}: {why}; use --device cpu")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise UserError(f"--device {device!r}: only {torch.cuda.device_count()} CUDA device(s) visible")


def load_adapter(lm, model: str, adapter: str):
    """A LoRA adapter (``pfc.train.lora``) merged into the model; the name carries the adapter's hash,
    so cached responses of the base model (or of another adapter) are never reused."""
    try:
        from peft import PeftModel
    except ImportError as e:
        raise MissingDependency("--adapter needs peft: pip install -r requirements-models.txt") from e
    digest = adapter_digest(adapter)
    return PeftModel.from_pretrained(lm, adapter).merge_and_unload().eval(), f"{model}+lora:{digest}"
