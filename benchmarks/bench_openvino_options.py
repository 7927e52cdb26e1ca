"""OpenVINO engine options on one cell of the engines report (issue 63, item 3): is there a faster setting that
answers the same?

    python benchmarks/bench_openvino_options.py [--model qwen2.5-coder-0.5b] [--benchmark toolspectrum]
        [--options default batched-8192 batched-512 kv-u8 int8 default] [--n 24] [--short]
        [--out reports/perf_openvino_options.json]

Each option is our ``openvino`` engine with one setting moved (:data:`OPTIONS`), measured by a child process of
this script exactly as ``bench_engines.py`` measures a cell (the same sample of ``--n`` examples, prefix layout,
full history, the papers' sampling, one untimed warm-up example, model load outside the timed part). Options run
one at a time in the order given; ``default`` first and again last shows how far the machine drifted meanwhile.
Each option's answers are scored by the benchmark's scorer and compared, example by example, with the ``hf``
engine's answers to the same examples in ``reports/perf_engines.json`` (McNemar's exact p) and with the first
``default``'s (identical raw text): a faster option that answers differently is visible, never silently kept.

``int8`` compresses the IR's weights to int8 (NNCF ``compress_weights``, ``INT8_ASYM``) in the export
environment (``.venv-openvino``) into ``<models dir>/<model>-openvino-int8`` (made once, beside the bf16 IR, its
tokenizer files copied from the model's directory); the rest are ``OpenVINOBackend`` arguments. Writes the JSON
after every option and the ``.md`` beside it. Numbers are measurements on whatever else the machine does.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pfc import paths  # noqa: E402
from pfc.errors import UserError, out_file, script_main  # noqa: E402
from pfc.io import atomic  # noqa: E402

# option -> (OpenVINOBackend arguments, what it changes); "ir": which IR (bf16 = make models-openvino's)
OPTIONS = {
    "default": ({}, "today's engine: bf16 IR and compute, KV cache bf16, 2048 tokens a scheduler step"),
    "batched-8192": ({"max_batched_tokens": 8192}, "8192 tokens a scheduler step (larger prefill chunks)"),
    "batched-512": ({"max_batched_tokens": 512}, "512 tokens a scheduler step"),
    "kv-u8": ({"kv_precision": "u8"}, "KV cache u8 (OpenVINO's CPU default)"),
    "no-split-fuse": ({"split_fuse": False, "max_batched_tokens": 32768}, "prompts prefilled whole, not in 2048-token "
                      "chunks beside the decoding rows (OpenVINO's dynamic_split_fuse off; a step of 32768 tokens)"),
    "prefill-first": ({"prefill_first": True}, "every whole prompt prefilled (max_tokens 1, so cached) before the "
                      "answers are decoded together: two pipeline calls a batch"),
    "int8": ({"ir": "int8"}, "weights compressed to int8 (NNCF INT8_ASYM), compute bf16"),
}
EXPORT_PY = ROOT / ".venv-openvino" / "bin" / "python"
COMPRESS = """import sys, nncf, openvino as ov
m = ov.Core().read_model(sys.argv[1])
ov.save_model(nncf.compress_weights(m, mode=nncf.CompressWeightsMode.INT8_ASYM), sys.argv[2])
"""


def int8_ir(model: str) -> Path:
    """The int8-weight IR of ``model`` (made once, atomically: built in a temporary folder, renamed into place)."""
    from pfc.models import openvino_ir
    ir, tok_dir = openvino_ir.resolve(model)
    dest = paths.models_dir() / f"{model}-openvino-int8"
    if (dest / "openvino_model.xml").is_file():
        return dest
    if not EXPORT_PY.exists():
        raise UserError("the int8 option needs the export environment .venv-openvino (make models-openvino)")
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=dest.name + ".part-"))
    try:
        subprocess.run([str(EXPORT_PY), "-c", COMPRESS, str(ir / "openvino_model.xml"), str(tmp / "openvino_model.xml")],
                       check=True)
        for f in Path(tok_dir).iterdir():  # tokenizer, chat template, generation config: the backend reads them here
            if f.is_file() and not f.name.endswith((".safetensors", ".bin", ".gguf")) and not (tmp / f.name).exists():
                shutil.copy2(f, tmp / f.name)
        tmp.rename(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


class PrefillFirst:
    """The ``prefill-first`` option, measured and not adopted (so it lives here, not in the engine): a call of
    several requests first prefills every whole prompt (one token each, so each is cached), then decodes them
    together; a one-request call (a warm prefix) passes through."""

    def __init__(self, pipe, one_token):
        self.pipe, self.one_token = pipe, one_token

    def generate(self, prompts, configs):
        if len(prompts) > 1:
            self.pipe.generate(prompts, [self.one_token] * len(prompts))
        return self.pipe.generate(prompts, configs)


def child(option: str, model: str, bench: str, n: int, out: Path) -> None:
    """Measure one option on the cell and write its JSON (seconds, tokens, raw answers) to ``out``."""
    import bench_throughput as bt
    from pfc.io.reuse import reading_once
    from pfc.run.backends import get
    kwargs = dict(OPTIONS[option][0])
    ir = kwargs.pop("ir", "bf16")
    t0 = time.perf_counter()
    first = kwargs.pop("prefill_first", False)
    be = get("openvino", str(int8_ir(model)) if ir == "int8" else model, **kwargs)
    if first:
        be.pipe = PrefillFirst(be.pipe, be._config({"temperature": 0, "max_tokens": 1}))
    res = {"option": option, "model": model, "benchmark": bench, "settings": OPTIONS[option][0],
           "identity": be.identity().replace(str(paths.models_dir()), "<models dir>") + (":prefill-first" * first),
           "load_s": round(time.perf_counter() - t0, 1)}
    parts = bt.samples(n, (bench,))[bench]
    with tempfile.TemporaryDirectory() as tmp, reading_once():
        bt.prime(bench, parts)
        res.update(bt.measure(bench, parts, be, "prefix", None, Path(tmp), warm=True))
    atomic.write_text(out, json.dumps(res, indent=1) + "\n")


def compare(doc: dict, engines: dict, sample_examples) -> None:
    """Each run's verdicts (the benchmark's scorer) and its agreement with ``hf`` and with the first ``default``."""
    import engines_report as er
    from pfc.eval import scoring
    ref = engines.get("cells", {}).get(f"{doc['model']}|{doc['benchmark']}|hf")
    exs, tools = sample_examples(doc["benchmark"], doc["n"])
    first = next((r for r in doc["runs"] if r["option"] == "default" and "outputs" in r), None)
    def right(outputs: dict) -> list[str]:
        rep = scoring.score([e for e in exs if e.id in outputs], outputs, doc["benchmark"], tools)
        return sorted(str(i) for i in rep.per_example.query("valid == 1")["id"])
    if ref is not None and "right" not in ref and ref.get("outputs"):
        ref = {**ref, "right": right(ref["outputs"])}
    for r in doc["runs"]:
        if "outputs" not in r:
            continue
        r["right"] = right(r["outputs"])
        r["vs_hf"] = er.verdicts_vs(r, ref).get("vs_ref") if ref else None
        if first is not None:
            shared = sorted(set(r["outputs"]) & set(first["outputs"]))
            r["same_as_default"] = round(sum(r["outputs"][i] == first["outputs"][i] for i in shared) / len(shared), 3)


def _vs(v: dict | None) -> str:
    return f"{v['only_this']} / {v['only_ref']} ({v['p']})" if v else "–"


def write(out: Path, doc: dict) -> None:
    atomic.write_text(out, json.dumps(doc, indent=1) + "\n")
    lines = [f"# OpenVINO options on {doc['model']} × {doc['benchmark']}", "",
             f"Measured by `benchmarks/bench_openvino_options.py` on {doc['when']} ({doc['n']} examples, as "
             "`bench_engines.py` measures a cell; one option at a time in the order below, `default` first and last "
             "to show drift). `vs hf`: examples only this option / only `hf` got right on the same examples "
             "(`reports/perf_engines.json`), McNemar's exact p. `same as default`: share of identical raw answers.",
             "", "| # | option | what it changes | s/ex | × first default | right | vs hf | same as default | load (1 min) |",
             "|---:|---|---|---:|---:|---:|---|---:|---|"]
    base = next((r["s_per_example"] for r in doc["runs"] if "s_per_example" in r and r["option"] == "default"), None)
    for k, r in enumerate(doc["runs"], 1):
        if "s_per_example" not in r:
            lines.append(f"| {k} | {r['option']} | {OPTIONS[r['option']][1]} | not run: {r.get('not_run')} | | | | | |")
            continue
        lines.append(f"| {k} | {r['option']} | {OPTIONS[r['option']][1]} | {r['s_per_example']} | "
                     f"{round(r['s_per_example'] / base, 2) if base else '–'}× | {len(r.get('right', []))} | "
                     f"{_vs(r.get('vs_hf'))} | "
                     f"{r.get('same_as_default', '–')} | {r['loadavg_start'][0]}–{r['loadavg_end'][0]} |")
    lines += ["", *[f"- {x}" for x in doc.get("notes", [])], "", f"Command: `{doc['command']}`.", ""]
    atomic.write_text(out.with_suffix(".md"), "\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--benchmark", default="toolspectrum", choices=("ptbench", "tracebench", "toolspectrum"))
    ap.add_argument("--options", nargs="+", default=["default", "batched-8192", "batched-512", "kv-u8", "int8",
                                                     "default"], choices=list(OPTIONS))
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--short", action="store_true", help="test mode: 2 examples")
    ap.add_argument("--note", default="", help="a sentence for the report (what else ran)")
    ap.add_argument("--out", help="default reports/perf_openvino_options.json; with --short "
                                  "data/runs/bench-openvino-options-short/")
    ap.add_argument("--child", nargs=2, metavar=("OPTION", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    n = 2 if args.short else args.n
    if n < 2:
        raise UserError("--n must be >= 2 (one example warms the cache)")
    if args.child:
        child(args.child[0], args.model, args.benchmark, n, Path(args.child[1]))
        return 0
    if args.out is None:
        args.out = str(paths.RUNS / "bench-openvino-options-short" / "perf_openvino_options.json" if args.short
                       else paths.REPORTS / "perf_openvino_options.json")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    out = Path(out_file(args.out)).with_suffix(".json")
    import bench_engines as be
    engines = paths.REPORTS / "perf_engines.json"
    doc = {"model": args.model, "benchmark": args.benchmark, "n": n, "when": time.strftime("%Y-%m-%d %H:%M"),
           "versions": be.versions(), "runs": [], "notes": [args.note] if args.note else [],
           "command": "python benchmarks/bench_openvino_options.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    with tempfile.TemporaryDirectory() as tmp:
        for k, option in enumerate(args.options):
            f = Path(tmp) / f"{k}-{option}.json"
            print(f"bench_openvino_options: {option} ({time.strftime('%H:%M:%S')}, load {os.getloadavg()[0]:.2f})",
                  file=sys.stderr, flush=True)
            rc = subprocess.call([sys.executable, str(Path(__file__).resolve()), "--model", args.model, "--benchmark",
                                  args.benchmark, "--n", str(n), "--child", option, str(f)])
            if rc == 130:
                raise KeyboardInterrupt
            doc["runs"].append(json.loads(f.read_text(encoding="utf-8")) if rc == 0 and f.exists() else
                               {"option": option, "not_run": f"the child exited with status {rc} (its error is above)"})
            compare(doc, json.loads(engines.read_text(encoding="utf-8")) if engines.exists() else {},
                    be.sample_examples)
            write(out, doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_openvino_options", main))
