"""The GPU path on a CUDA machine -> reports/perf_gpu.md (run it where a GPU is lent; never in CI).

    python benchmarks/bench_gpu.py --model DIR --bench DIR [--device cuda] [--n 24] [--out reports/perf_gpu.md]

Checks, on the given device, what the CPU suite cannot: the ``hf`` backend loads, generates and
reuses the prefix KV cache there (same outputs with and without reuse; prefill seconds of each),
and ``pfc.train.lora`` runs LoRA steps there (loss falls). ``--model`` is any local HF causal LM directory
(the tiny locally built model is enough: the device machine has no registry to fetch real
weights from); ``--bench`` a built TRACEBench directory. Timings are measurements, not assertions.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from pfc.io import atomic  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.errors import script_main, out_file  # noqa: E402


def run_hf(bench: Path, model: str, device: str, n: int, reuse: bool, tmp: Path) -> tuple[dict, dict]:
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    out = tmp / f"run-{'reuse' if reuse else 'fresh'}"
    t0 = time.perf_counter()
    usage = execute(RunConfig("tracebench", bench, "hf", out, model=model, limit=n, history="full", use_cache=False,
                progress=False, sampling={"temperature": 0, "max_tokens": 32},
                backend_options={"device": device, "dtype": "bfloat16", "prefix_reuse": reuse}))
    usage["wall_s"] = time.perf_counter() - t0
    preds = {json.loads(x)["id"]: json.loads(x)["output"] for x in (out / "predictions.jsonl").read_text().splitlines()}
    return usage, preds


RECORDS = [{"messages": [{"role": "user", "content": f"Order {i} coffees at Starbucks."},
                         {"role": "assistant", "content": f'Starbucks:[order_coffee(quantity={i})]'}]}
           for i in range(1, 33)]


def train(model: str, device: str, tmp: Path) -> dict:
    from pfc.train.lora import train_lora
    t0 = time.perf_counter()
    summary = train_lora(model, RECORDS, tmp / "lora", lr=5e-3, device=device, progress=False, checkpoint_every=8)
    summary["wall_s"] = time.perf_counter() - t0
    return summary


def stop_and_resume(model: str, device: str, tmp: Path, stop_at: int = 16) -> dict:
    """The same run as :func:`train`, stopped right after its step-``stop_at`` checkpoint and resumed: whether
    the checkpoint holds the adapter on the CPU (so a CPU machine can resume it), how many steps the resume ran,
    and how far its adapter is from the unbroken run's (``tmp/lora``, trained first)."""
    import torch
    from safetensors.torch import load_file
    from pfc.train import lora
    real = lora._checkpoint

    def stop(ck, model_, opt, sched, step):
        real(ck, model_, opt, sched, step)
        if step == stop_at:
            raise KeyboardInterrupt
    lora._checkpoint = stop
    try:
        lora.train_lora(model, RECORDS, tmp / "lora-stopped", lr=5e-3, device=device, progress=False,
                        checkpoint_every=8)
    except KeyboardInterrupt:
        pass
    finally:
        lora._checkpoint = real
    state = torch.load(tmp / "lora-stopped" / "checkpoint" / "state.pt", weights_only=False)  # no map_location
    on_cpu = all(v.device.type == "cpu" for v in state["adapter"].values())
    s = lora.train_lora(model, RECORDS, tmp / "lora-stopped", lr=5e-3, device=device, progress=False,
                        checkpoint_every=8)
    a, b = (load_file(tmp / d / "adapter" / "adapter_model.safetensors") for d in ("lora", "lora-stopped"))
    diff = max(float((a[k].float() - b[k].float()).abs().max()) for k in a) if a.keys() == b.keys() else float("inf")
    return {"stopped_at": state["step"], "checkpoint_on_cpu": on_cpu, "resumed_steps": s["steps_this_session"],
            "max_abs_diff": diff, "first_loss": s["first_loss"], "unbroken": a.keys() == b.keys()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_gpu.md"))
    a = ap.parse_args(argv)
    out_file(a.out)  # a bad --out is refused before any work
    import torch
    import transformers
    dev = torch.cuda.get_device_name(0) if a.device.startswith("cuda") and torch.cuda.is_available() else a.device
    lines = ["# The GPU path (`benchmarks/bench_gpu.py`)", "",
             f"Device: {dev}; torch {torch.__version__}; transformers {transformers.__version__}; "
             f"Python {platform.python_version()}. Model: `{Path(a.model).name}`; {a.n} TRACEBench examples, "
             "full history, greedy, 32 new tokens, bf16, response cache off.", ""]
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        res = {}
        for reuse in (False, True):
            res[reuse] = run_hf(Path(a.bench), a.model, a.device, a.n, reuse, tmp)
        same = res[False][1] == res[True][1]
        lines += ["| prefix reuse | examples | failures | wall s | prefill s | decode s | reused tokens | prompt tokens |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for reuse in (False, True):
            u = res[reuse][0]
            t = u.get("timing", {})
            lines.append(f"| {'on' if reuse else 'off'} | {u['written']} | {u['failures']} | {u['wall_s']:.2f} | "
                         f"{t.get('prefill_s', float('nan')):.3f} | {t.get('decode_s', float('nan')):.3f} | "
                         f"{t.get('reused_tokens', 0)} | {u['prompt_tokens']} |")
        lines += ["", f"Outputs identical with and without reuse: **{same}**.", ""]
        lines += ["## LoRA (`pfc.train.lora`) on the device", ""]
        try:
            s = train(a.model, a.device, tmp)
            lines += [f"{s.get('steps')} steps in {s['wall_s']:.1f} s; loss {s.get('first_loss'):.3f} -> "
                      f"{s.get('last_loss'):.3f}.", ""]
            r = stop_and_resume(a.model, a.device, tmp)
            lines += [f"Stopped after the step-{r['stopped_at']} checkpoint and resumed: the checkpoint's adapter "
                      f"tensors are on the CPU: **{r['checkpoint_on_cpu']}**; the resume ran {r['resumed_steps']} "
                      f"steps; its summary's first loss is step 1's ({r['first_loss']:.3f}); largest difference from "
                      f"the unbroken run's adapter weights: {r['max_abs_diff']:.3g}.", ""]
        except Exception as e:  # report, do not hide: the section says what failed
            lines += [f"failed: {type(e).__name__}: {e}", ""]
    atomic.write_text(Path(a.out), "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if res[False][0]["failures"] == 0 and res[True][0]["failures"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(script_main("bench_gpu", main))
