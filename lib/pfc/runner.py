"""Run a backend over a benchmark: prompts -> cached backend calls -> a resumable run directory.

A run directory holds ``predictions.jsonl`` (one row per example id, raw output kept; ready
for ``pfc score``), ``failures.jsonl`` (requests that failed in this invocation; retried
on the next one, never cached), ``config.json`` (every parameter, seed, git commit,
package versions) and ``usage.json`` (this invocation's backend calls, cache hits, tokens,
cost, latency percentiles).

Crash safety: rows are appended and flushed one batch at a time; on start, a partial last
line (a run killed mid-write) is cut off and finished ids are skipped, so a killed run
resumes with no duplicate and no missing row. Requests are ordered so that each user's
examples are adjacent and grow in history length (shared prompt prefixes).

    python -m pfc run --benchmark tracebench --examples data/benchmarks/tracebench --backend history-prior --out data/runs/hp
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path

from . import benchmarks, paths
from .backends import DEFAULT_SAMPLING, Request, Response, get
from .cache import ResponseCache, cache_key
from .prompts.tracebench import parse_domain


def finished_ids(pred_path: Path) -> set[str]:
    """Ids already in predictions.jsonl; a partial last line is truncated away first."""
    if not pred_path.exists():
        return set()
    data = pred_path.read_bytes()
    cut = data.rfind(b"\n") + 1
    if cut != len(data):
        with pred_path.open("r+b") as fh:
            fh.truncate(cut)
        data = data[:cut]
    done = set()
    for line in data.decode("utf-8").splitlines():
        if line.strip():
            done.add(str(json.loads(line)["id"]))
    return done


RUN_STRATEGIES = {"tracebench": ("zero_shot", "few_shot", "cot", "hierarchical"),
                  "ptbench": ("zero_shot", "few_shot", "cot"),
                  "toolspectrum": ("zero_shot", "few_shot", "cot", "hierarchical", "flat")}


def check_strategy(benchmark: str, strategy: str) -> None:
    if strategy not in RUN_STRATEGIES.get(benchmark, ()):
        raise ValueError(f"`pfc run` supports strategies {RUN_STRATEGIES.get(benchmark)} for {benchmark}, "
                         f"not {strategy!r}")


def check_prompt_variant(benchmark: str, variant: str) -> None:
    """Profile ablation variants exist for PTBench only (PTBench Table 2, Fig. 3, Table 3)."""
    from .prompts.ptbench import VARIANTS
    if variant != "all" and benchmark != "ptbench":
        raise ValueError(f"--prompt-variant {variant!r} applies to ptbench only")
    if variant not in VARIANTS:
        raise ValueError(f"unknown --prompt-variant {variant!r}; expected one of {VARIANTS}")


def _toolspectrum_prompter(example, tools_by_key, pool, seed: int, prompters: dict):
    """One prompter per subset, with this run's pool (few-shot sources) and seed; ``prompters`` is
    the calling run's own cache, so runs never share prompters."""
    from .prompts.toolspectrum import ToolSpectrumPrompter
    sub = example.meta.get("subset", "both")
    if sub not in prompters:
        same = [e for e in pool if e.meta.get("subset", "both") == sub]
        prompters[sub] = ToolSpectrumPrompter(sub, list(tools_by_key.values()), paths.toolspectrum_dir(),
                                              pool=same, seed=seed)
    return prompters[sub]


def domain_request(benchmark: str, example, tools_by_key: dict, sampling: dict, pool=(),
                   prompters: dict | None = None) -> tuple[Request, list[str]]:
    """Hierarchical step 1 and the domain names it may answer with."""
    if benchmark == "tracebench":
        from .prompts.tracebench import domain_prompt
        p = domain_prompt(example, tools_by_key)
    else:
        p = _toolspectrum_prompter(example, tools_by_key, pool, int(sampling.get("seed", 0)),
                                   {} if prompters is None else prompters).domain_prompt(example)
    return Request(p.messages, None, dict(sampling), example), p.meta["domains"]


def build_request(benchmark: str, example, tools_by_key: dict, strategy: str, history: str, k: int,
                  native: bool, sampling: dict, pool=(), domain: str | None = None,
                  prompters: dict | None = None, prompt_variant: str = "all") -> Request:
    check_strategy(benchmark, strategy)
    if benchmark == "tracebench":
        from .prompts.tracebench import build
        prompt, specs = build(example, tools_by_key, native=native, history=history, k=k, strategy=strategy,
                              pool=pool, seed=int(sampling.get("seed", 0)), domain=domain)
        return Request(prompt.messages, specs, dict(sampling), example)
    if benchmark == "ptbench":
        from .prompts.ptbench import build as build_pt
        return Request(build_pt(example, strategy, pool, int(sampling.get("seed", 0)), variant=prompt_variant).messages,
                       None, dict(sampling), example)
    if benchmark == "toolspectrum":
        prompter = _toolspectrum_prompter(example, tools_by_key, pool, int(sampling.get("seed", 0)),
                                          {} if prompters is None else prompters)
        return Request(prompter.build(example, strategy, domain=domain).messages, None, dict(sampling), example)
    raise ValueError(f"no prompt builder for {benchmark!r} yet")


def _ordered(examples):
    """Each user's examples together, shortest history first: consecutive prompts share prefixes."""
    return sorted(examples, key=lambda e: (e.user_id or "", len(e.history), e.id))


def _git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    out = {"python": platform.python_version()}
    for pkg in ("pfc", "openai", "transformers", "torch", "vllm", "pandas", "scikit-learn"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


def run(benchmark: str, examples_path, backend, out_dir, model: str = "", strategy: str = "zero_shot",
        history: str = "full", k: int = 50, limit: int | None = None, native: bool = True, seed: int = 0,
        batch_size: int = 16, sampling: dict | None = None, cache_path=None, tools_path=None,
        backend_options: dict | None = None, progress: bool = True, prompt_variant: str = "all") -> dict:
    """Run (or resume) one run directory; returns this invocation's usage."""
    from tqdm import tqdm
    adapter = benchmarks.get(benchmark)
    examples, tools = adapter.load(examples_path, tools_path)
    examples = examples[:limit] if limit else examples
    sampling = {**DEFAULT_SAMPLING, **(sampling or {}), "seed": seed}
    be = backend if not isinstance(backend, str) else get(backend, model, tools=tools, seed=seed,
                                                          **(backend_options or {}))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    config = {"benchmark": benchmark, "examples": paths.relative(Path(examples_path)), "backend": be.name,
              "model": be.model, "strategy": strategy, "history": history, "k": k, "limit": limit,
              "native_tools": native, "seed": seed, "sampling": sampling, "n_examples": len(examples),
              "prompt_variant": prompt_variant, "git_commit": _git_commit(), "versions": _versions(), "backend_options": backend_options or {}}
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    pred_path = out / "predictions.jsonl"
    done = finished_ids(pred_path)
    todo = [e for e in _ordered(examples) if e.id not in done]
    cache = ResponseCache(cache_path or paths.DATA / "cache" / "responses.sqlite")
    tools_by_key = {t.key: t for t in tools}
    prompters: dict = {}  # this run's prompt builders (ToolSpectrum: one per subset)
    check_strategy(benchmark, strategy)
    check_prompt_variant(benchmark, prompt_variant)
    usage = {"backend_calls": 0, "cache_hits": 0, "failures": 0, "prompt_tokens": 0, "completion_tokens": 0,
             "cost": 0.0, "already_done": len(done), "written": 0}
    latencies: list[float] = []

    def cached_call(reqs: list[Request]) -> list[Response]:
        keys = [cache_key(be.name, be.model, r.messages, r.tools, r.sampling) for r in reqs]
        responses: list[Response | None] = []
        for key in keys:
            hit = cache.get(key)
            responses.append(Response(**hit, cached=True) if hit else None)
        missing = [i for i, r in enumerate(responses) if r is None]
        if missing:
            fresh = be.generate([reqs[i] for i in missing])
            usage["backend_calls"] += len(missing)
            for i, resp in zip(missing, fresh):
                responses[i] = resp
                if resp.error is None:
                    cache.put(keys[i], resp.to_json())
                    latencies.append(resp.latency_s)
                    usage["prompt_tokens"] += resp.usage.get("prompt_tokens", 0)
                    usage["completion_tokens"] += resp.usage.get("completion_tokens", 0)
                    usage["cost"] += resp.cost
        usage["cache_hits"] += len(reqs) - len(missing)
        return responses

    bar = tqdm(total=len(todo), desc=f"{be.name} on {benchmark}", unit="ex", disable=not progress)
    (out / "failures.jsonl").unlink(missing_ok=True)
    with pred_path.open("a", encoding="utf-8") as preds, (out / "failures.jsonl").open("a", encoding="utf-8") as fails:
        for start in range(0, len(todo), batch_size):
            batch = todo[start:start + batch_size]
            domains: list = [None] * len(batch)
            if strategy == "hierarchical":  # step 1: the domain, through the same cache
                steps = [domain_request(benchmark, e, tools_by_key, sampling, examples, prompters) for e in batch]
                first = cached_call([r for r, _ in steps])
                domains = [parse_domain(r.text, names) if r.error is None else None
                           for r, (_, names) in zip(first, steps)]
            reqs = [build_request(benchmark, e, tools_by_key, strategy, history, k, native, sampling, examples, d,
                                  prompters, prompt_variant) for e, d in zip(batch, domains)]
            responses = cached_call(reqs)
            for ex, resp in zip(batch, responses):
                if resp.error is not None:
                    usage["failures"] += 1
                    fails.write(json.dumps({"id": ex.id, "error": resp.error}) + "\n")
                    continue
                preds.write(json.dumps({"id": ex.id, "output": resp.output(), "cached": resp.cached},
                                       ensure_ascii=False) + "\n")
                usage["written"] += 1
            preds.flush()
            os.fsync(preds.fileno())
            bar.update(len(batch))
    bar.close()
    cache.close()
    if latencies:
        q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [latencies[0]] * 99
        usage["latency_s"] = {"p50": q[49], "p90": q[89], "p99": q[98], "max": max(latencies)}
    usage["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    (out / "usage.json").write_text(json.dumps(usage, indent=1) + "\n")
    return usage
