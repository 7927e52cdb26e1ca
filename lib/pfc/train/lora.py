"""Supervised LoRA fine-tuning of any Hugging Face causal LM on chat records (PTBench §5.1).

The paper's settings are the defaults (``PAPER``): LoRA rank 8, alpha 16, learning rate 1e-4, cosine schedule with
warm-up ratio 0.1, one epoch, adapters on all linear modules. Loss is on the assistant answer only (prompt tokens
masked). Records are ``{"messages": [..., {"role": "assistant", "content": answer}]}`` (``train.jsonl`` of ``pfc build
ptbench``, or :func:`pfc.train.sft.chat_records`).

Crash safety: every ``checkpoint_every`` steps the adapter, optimizer, scheduler, RNG and step go to
``<out>/checkpoint``; a rerun with the same configuration resumes there, a rerun with a different one is refused (runs
never mix). The finished adapter is ``<out>/adapter`` (load it with ``pfc run --backend hf --model BASE --adapter
<out>/adapter``); ``<out>/train_log.jsonl`` has the loss of every step, one row each (a resume drops the rows past its
checkpoint, so each step appears once), with ``elapsed_s`` counted over all sessions; ``train_summary.json`` is read
from that log, so a resumed run reports its first loss and its whole training time. Needs torch, transformers, peft.
This module does not evaluate (see ``benchmarks/bench_finetune.py``).

    >>> PAPER["r"], PAPER["lora_alpha"], PAPER["lr"]
    (8, 16, 0.0001)
"""
from __future__ import annotations

import hashlib
import json
import math
import random
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from pfc.errors import UserError
from pfc.io import atomic
from pfc.jsonl import SchemaError, iter_jsonl
from pfc.models.registry import fingerprint
from pfc.progress import stream as progress_stream

PAPER = {"r": 8, "lora_alpha": 16, "lr": 1e-4, "scheduler": "cosine", "warmup_ratio": 0.1, "epochs": 1,
         "target_modules": "all-linear", "lora_dropout": 0.0}


@dataclass(frozen=True)
class LoraSettings:
    """One training run's settings (the paper's by default); the first eleven make ``train_config.json``."""
    r: int = PAPER["r"]
    lora_alpha: int = PAPER["lora_alpha"]
    lr: float = PAPER["lr"]
    warmup_ratio: float = PAPER["warmup_ratio"]
    epochs: int = PAPER["epochs"]
    target_modules: object = PAPER["target_modules"]
    lora_dropout: float = PAPER["lora_dropout"]
    grad_accum: int = 1
    max_len: int = 4096
    seed: int = 0
    dtype: str = "auto"
    modules_to_save: list[str] | None = None  # trained in full beside the adapter (peft's option)
    checkpoint_every: int = 20
    progress: bool = True
    device: str = "cpu"  # a torch device (``cuda`` on a GPU machine); checkpoints are saved on the CPU side

    def recorded(self) -> dict:
        """The settings ``train_config.json`` records, in its order (what changes the trained adapter)."""
        return {k: v for k, v in asdict(self).items()
                if k not in ("modules_to_save", "checkpoint_every", "progress", "device")}


def tokenize(tok, messages: list[dict], max_len: int) -> tuple[list[int], int] | None:
    """(input ids, number of prompt tokens) with the answer and end-of-turn appended; None if too long."""
    prompt = tok.apply_chat_template(messages[:-1], add_generation_prompt=True, tokenize=False)
    answer = messages[-1]["content"] + (tok.eos_token or "")
    p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
    a_ids = tok(answer, add_special_tokens=False)["input_ids"]
    if len(p_ids) + len(a_ids) > max_len:
        return None
    return p_ids + a_ids, len(p_ids)


def _config_hash(cfg: dict) -> str:
    return hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:16]


def train_lora(model_dir, records: list[dict], out_dir, settings: LoraSettings | None = None, **changes) -> dict:
    """Train a LoRA adapter with ``settings`` (default: the paper's) and ``changes`` to them (fields of
    :class:`LoraSettings`); returns a summary (steps, first/last loss, seconds, skipped records).

    ``modules_to_save``: none in the paper's setting — the tiny test model uses ``["lm_head"]`` because its output layer
    is untrained."""
    import peft  # noqa: F401 - imported before the seed is set, as it always was
    import torch
    from transformers import get_cosine_schedule_with_warmup

    cfg = replace(settings or LoraSettings(), **changes)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _write_config(out, model_dir, records, cfg.recorded(), cfg.modules_to_save)
    torch.manual_seed(cfg.seed)
    tok, model = _load(model_dir, cfg)
    data = [t for t in (tokenize(tok, rec["messages"], cfg.max_len) for rec in records) if t is not None]
    skipped = len(records) - len(data)
    order = [i for _ in range(cfg.epochs)
             for i in random.Random(f"train:{cfg.seed}").sample(range(len(data)), len(data))]
    steps = math.ceil(len(order) / cfg.grad_accum)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=cfg.lr)
    sched = get_cosine_schedule_with_warmup(opt, math.ceil(cfg.warmup_ratio * steps), steps)
    step = _resume(out / "checkpoint", model, opt, sched, cfg.device)
    before = _trim_log(out / "train_log.jsonl", step)
    t0 = time.perf_counter() - summarize_log(before)["seconds"]  # elapsed_s counts the earlier sessions too
    ran = _train(model, data, order, (opt, sched), out, cfg, step, t0)
    _save_adapter(model, out, model_dir)
    summary = {"steps": steps, "steps_this_session": len(ran), "skipped_too_long": skipped,
               **summarize_log(_read_log(out / "train_log.jsonl")),
               "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad), "device": cfg.device}
    atomic.write_text(out / "train_summary.json", json.dumps(summary, indent=1) + "\n")
    return summary


def summarize_log(rows: list[dict]) -> dict:
    """First and last loss and total training seconds of a ``train_log.jsonl``'s rows (in step order).

    ``elapsed_s`` is cumulative over sessions; logs written before that restarted it at each resume, so a drop in
    ``elapsed_s`` starts a new session and the sessions' last values are summed.

    >>> summarize_log([{"loss": 0.5, "elapsed_s": 10}, {"loss": 0.4, "elapsed_s": 20}, {"loss": 0.3, "elapsed_s": 5}])
    {'first_loss': 0.5, 'last_loss': 0.3, 'seconds': 25.0}
    >>> summarize_log([])
    {'first_loss': None, 'last_loss': None, 'seconds': 0.0}
    """
    seconds, last = 0.0, 0.0
    for r in rows:
        if r["elapsed_s"] < last:
            seconds += last
        last = r["elapsed_s"]
    return {"first_loss": rows[0]["loss"] if rows else None, "last_loss": rows[-1]["loss"] if rows else None,
            "seconds": round(seconds + last, 1)}


def _read_log(log: Path) -> list[dict]:
    """The log's rows (:func:`pfc.jsonl.iter_jsonl`: a bad line is a one-line error naming file and line), each
    checked for the fields a summary reads."""
    if not log.exists():
        return []
    rows = []
    for n, row in iter_jsonl(log):
        for field in ("step", "loss", "elapsed_s"):
            if not isinstance(row, dict) or not isinstance(row.get(field), (int, float)):
                raise SchemaError(f"no number {field!r}: not a row of pfc.train.lora's log", file=str(log), line=n)
        rows.append(row)
    return rows


def _trim_log(log: Path, step: int) -> list[dict]:
    """The log's rows up to ``step`` (the checkpoint a resume starts from); rows past it were trained again
    and are dropped from the file, so every step appears once, as is a last line cut short by a kill."""
    if log.exists() and (data := log.read_bytes()) and not data.endswith(b"\n"):
        atomic.write_bytes(log, data[:data.rfind(b"\n") + 1])
    rows = _read_log(log)
    kept = [r for r in rows if r["step"] <= step]
    if len(kept) != len(rows):
        atomic.write_text(log, "".join(json.dumps(r) + "\n" for r in kept))
    return kept


def _write_config(out: Path, model_dir, records: list[dict], settings: dict, modules_to_save) -> None:
    """``<out>/train_config.json``: the model (by name and fingerprint), the settings, the data's hash; a
    directory holding a run of another configuration is refused (runs never mix)."""
    data_hash = hashlib.sha256(json.dumps([rec["messages"] for rec in records], sort_keys=True).encode()).hexdigest()[:16]
    # the model by name and content (never its absolute path: this file may be committed beside the adapter)
    cfg = {"model": Path(model_dir).name, "model_fingerprint": fingerprint(str(model_dir)), **settings,
           "records": len(records), "data": data_hash,
           **({"modules_to_save": list(modules_to_save)} if modules_to_save else {}),
           "scheduler": "cosine"}
    if (out / "train_config.json").exists():
        old = json.loads((out / "train_config.json").read_text())
        if _config_hash(old) != _config_hash(cfg):
            raise UserError(f"{out} holds a run with another configuration; use a new directory")
    atomic.write_text(out / "train_config.json", json.dumps(cfg, indent=1) + "\n")


def _load(model_dir, cfg: LoraSettings):
    """(tokenizer, the base model on ``cfg.device`` with fresh LoRA adapters)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(model_dir)
    kw = {} if cfg.dtype == "auto" else {"dtype": getattr(torch, cfg.dtype)}
    base = AutoModelForCausalLM.from_pretrained(model_dir, **kw).to(cfg.device)
    keep = list(cfg.modules_to_save) if cfg.modules_to_save else None
    return tok, get_peft_model(base, LoraConfig(r=cfg.r, lora_alpha=cfg.lora_alpha, target_modules=cfg.target_modules,
                                                lora_dropout=cfg.lora_dropout, task_type="CAUSAL_LM",
                                                modules_to_save=keep))


def _resume(ck: Path, model, opt, sched, device: str) -> int:
    """The step a checkpoint in ``ck`` reached, its adapter, optimizer, scheduler and RNG restored; 0 without one."""
    import torch
    from peft import set_peft_model_state_dict
    if not (ck / "state.pt").exists():
        return 0
    state = torch.load(ck / "state.pt", weights_only=False, map_location="cpu")  # a GPU run's checkpoint too
    set_peft_model_state_dict(model, {k: v.to(device) for k, v in state["adapter"].items()})
    opt.load_state_dict(state["optimizer"])
    sched.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["rng"])
    return state["step"]


def _checkpoint(ck: Path, model, opt, sched, step: int) -> None:
    """Adapter, optimizer, scheduler, RNG and step into ``ck/state.pt``; a kill never leaves a half checkpoint."""
    import torch
    from peft.utils import get_peft_model_state_dict
    ck.mkdir(exist_ok=True)
    with atomic.staged(ck / "state.pt") as tmp:
        adapter = {k: v.detach().cpu() for k, v in get_peft_model_state_dict(model).items()}
        torch.save({"adapter": adapter, "optimizer": opt.state_dict(),
                    "scheduler": sched.state_dict(), "rng": torch.get_rng_state(), "step": step}, tmp)


def _train(model, data, order, optim: tuple, out: Path, cfg: LoraSettings, step: int, t0: float) -> list[float]:
    """The optimizer steps from ``step`` to the last (``order`` in batches of ``grad_accum``), the loss on the
    answer tokens only; ``optim``: (optimizer, scheduler); each step's loss appended to ``<out>/train_log.jsonl``, a
    checkpoint every ``checkpoint_every`` steps and at the end. Returns the losses of the steps run here."""
    import torch
    from tqdm import tqdm
    opt, sched = optim
    grad_accum, device = cfg.grad_accum, cfg.device
    steps = math.ceil(len(order) / grad_accum)
    model.train()
    losses = []
    bar = tqdm(total=steps, initial=step, desc="LoRA", unit="step", disable=not cfg.progress, file=progress_stream())
    with (out / "train_log.jsonl").open("a", encoding="utf-8") as log:
        while step < steps:
            total = 0.0
            for i in order[step * grad_accum:(step + 1) * grad_accum]:
                ids, n_prompt = data[i]
                x = torch.tensor([ids], device=device)
                y = x.clone()
                y[0, :n_prompt] = -100
                loss = model(input_ids=x, labels=y).loss / grad_accum
                loss.backward()
                total += float(loss.detach())
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            losses.append(total)
            log.write(json.dumps({"step": step, "loss": round(total, 5), "lr": sched.get_last_lr()[0],
                                  "elapsed_s": round(time.perf_counter() - t0, 2)}) + "\n")
            log.flush()
            bar.update(1)
            if step % cfg.checkpoint_every == 0 or step == steps:
                _checkpoint(out / "checkpoint", model, opt, sched, step)
    bar.close()
    return losses


def _save_adapter(model, out: Path, model_dir) -> None:
    """``<out>/adapter``, naming the base model by its folder's name (never the local absolute path)."""
    model.peft_config["default"].base_model_name_or_path = Path(model_dir).name  # not the local absolute path
    model.save_pretrained(out / "adapter")
    card = out / "adapter" / "README.md"  # peft's model card names the base model by its local path
    if card.exists():
        text = card.read_text(encoding="utf-8")
        for local in {str(model_dir), str(Path(model_dir).resolve())}:
            text = text.replace(local, Path(model_dir).name)
        atomic.write_text(card, text)
