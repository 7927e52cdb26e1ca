"""A LoRA adapter's identity, and a registered model with an adapter merged into its weights, as a directory.

:func:`adapter_digest` names an adapter written by :mod:`pfc.train.lora` by its weights' sha256, so cached
answers of the base model (or of another adapter) are never reused: every backend that takes ``--adapter``
puts it in the model's name (``<model>+lora:<digest>``). :func:`merge_to_dir` is for engines that cannot
apply an adapter at run time (``openvino``: :func:`pfc.models.openvino_ir.merged_ir` exports the result):
the base model and the adapter are merged in float32 (``W + BA``, peft's ``merge_and_unload``), then stored
in the base model's own dtype with its tokenizer and generation settings. It does not export, load an engine
or generate; torch and peft are imported only when it is called.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pfc.errors import MissingDependency, UserError


def adapter_weights(adapter) -> Path:
    """The adapter's weight file (``adapter_model.*``), after checking what a loader would trip over: a one-line
    UserError naming the file when ``adapter_config.json`` is missing or not a UTF-8 JSON object, or the weights are
    missing or (safetensors) have no readable header."""
    d = Path(adapter)
    weights = sorted(d.glob("adapter_model.*"))
    if not (d / "adapter_config.json").is_file() or not weights:
        raise UserError(f"--adapter {adapter}: no adapter_config.json and adapter_model.* (a directory written by "
                        f"pfc.train.lora)")
    try:
        config = json.loads((d / "adapter_config.json").read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UserError(f"not a UTF-8 JSON file ({type(e).__name__})", file=str(d / "adapter_config.json")) from None
    if not isinstance(config, dict) or "peft_type" not in config:
        raise UserError("no peft_type: not a LoRA adapter's configuration", file=str(d / "adapter_config.json"),
                        field="peft_type")
    if weights[0].suffix == ".safetensors" and not _safetensors_header(weights[0]):
        raise UserError("not a safetensors file (no readable header)", file=str(weights[0]))
    return weights[0]


def _safetensors_header(path: Path) -> bool:
    """True when ``path`` starts as a safetensors file does: an 8-byte little-endian length, then that many bytes
    of JSON object, within the file."""
    with path.open("rb") as f:
        head = f.read(8)
        if len(head) < 8 or (n := int.from_bytes(head, "little")) > path.stat().st_size - 8:
            return False
        try:
            return isinstance(json.loads(f.read(n)), dict)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return False


def adapter_digest(adapter) -> str:
    """The first 12 hex digits of the sha256 of the adapter's weights (what ``+lora:`` names)."""
    return hashlib.sha256(adapter_weights(adapter).read_bytes()).hexdigest()[:12]


def merge_to_dir(model_dir, adapter, dest) -> str:
    """Merge ``adapter`` into the transformers model at ``model_dir`` and save the merged model, its tokenizer
    and generation config to ``dest`` (which must not exist; the caller renames it into place). Returns the dtype stored
    (the base model's)."""
    adapter_weights(adapter)  # a broken adapter is a one-line error before torch loads anything
    try:
        import torch
        from peft import PeftModel
        from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig
    except ImportError as e:
        raise MissingDependency("merging a LoRA adapter needs torch, transformers and peft: "
                                "pip install -r requirements-models.txt") from e
    cfg = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    stored = cfg.get("dtype") or cfg.get("torch_dtype") or "float32"  # what the base keeps on disk
    lm = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
    lm = PeftModel.from_pretrained(lm, str(adapter)).merge_and_unload().eval().to(getattr(torch, stored))
    lm.save_pretrained(str(dest))
    AutoTokenizer.from_pretrained(str(model_dir)).save_pretrained(str(dest))
    if (Path(model_dir) / "generation_config.json").exists():
        GenerationConfig.from_pretrained(str(model_dir)).save_pretrained(str(dest))
    return stored
