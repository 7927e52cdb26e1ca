"""Run a backend over a benchmark: prompts -> cached backend calls -> a resumable run directory.

A run directory holds ``predictions.jsonl`` (one row per example id, raw output kept; ready
for ``pfc score``; a local model's rows also carry ``generation``: the tokens and prefill/decode
seconds the answer cost when it was generated, kept when it is later served from the cache), ``failures.jsonl`` (requests that failed in this invocation; retried
on the next one, never cached), ``config.json`` (every parameter, seed, git commit,
package versions, the model's identity: weights fingerprint, dtype, prefix reuse) and ``usage.json`` (this invocation's backend calls, cache hits, tokens,
cost, latency percentiles).

Crash safety: each response is cached and its row appended and flushed as soon as it returns
(progress moves per request, not per batch); an interrupted run still writes ``usage.json`` (``"interrupted": true``); on start, a partial last
line (a run killed mid-write) is cut off and finished ids are skipped, so a killed run
resumes with no duplicate and no missing row. Requests are ordered so that each user's
examples are adjacent and grow in history length (shared prompt prefixes).

    python -m pfc run --benchmark tracebench --examples data/benchmarks/tracebench --backend history-prior --out data/runs/hp
"""
from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

from pfc.errors import UserError
from pfc import benchmarks, paths

from pfc.run import identity as run_identity
from pfc.run.backends import DEFAULT_SAMPLING, Request, Response, get
from pfc.run.cache import ResponseCache, cache_key
from pfc.run.prompts import match_domain
from pfc.provenance import git_commit, versions
from pfc.run.checks import RunInterrupted, preflight
from pfc.benchmarks.shape import check_examples


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
        raise UserError(f"`pfc run` supports strategies {RUN_STRATEGIES.get(benchmark)} for {benchmark}, "
                         f"not {strategy!r}")


def check_prompt_variant(benchmark: str, variant: str) -> None:
    """Profile ablation variants exist for PTBench only (PTBench Table 2, Fig. 3, Table 3)."""
    from pfc.run.prompts.ptbench import VARIANTS
    if variant != "all" and benchmark != "ptbench":
        raise UserError(f"--prompt-variant {variant!r} applies to ptbench only")
    if variant not in VARIANTS:
        raise UserError(f"unknown --prompt-variant {variant!r}; expected one of {VARIANTS}")


def _toolspectrum_prompter(example, tools_by_key, pool, seed: int, prompters: dict):
    """One prompter per subset, with this run's pool (few-shot sources) and seed; ``prompters`` is
    the calling run's own cache, so runs never share prompters."""
    from pfc.run.prompts.toolspectrum import ToolSpectrumPrompter
    sub = example.meta.get("subset", "both")
    if sub not in prompters:
        same = [e for e in pool if e.meta.get("subset", "both") == sub]
        # clean=True: the release's persona template leaks its own file name into the answer format
        # (`"APP": "APP",prompt_call_api_persona.txt`), which real models copy; runs use the cleaned text
        prompters[sub] = ToolSpectrumPrompter(sub, list(tools_by_key.values()), paths.toolspectrum_dir(),
                                              pool=same, seed=seed, clean=True)
    return prompters[sub]


def domain_request(benchmark: str, example, tools_by_key: dict, sampling: dict, pool=(),
                   prompters: dict | None = None) -> tuple[Request, list[str]]:
    """Hierarchical step 1 and the domain names it may answer with."""
    if benchmark == "tracebench":
        from pfc.run.prompts.tracebench import domain_prompt
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
        from pfc.run.prompts.tracebench import build
        prompt, specs = build(example, tools_by_key, native=native, history=history, k=k, strategy=strategy,
                              pool=pool, seed=int(sampling.get("seed", 0)), domain=domain)
        return Request(prompt.messages, specs, dict(sampling), example)
    if benchmark == "ptbench":
        from pfc.run.prompts.ptbench import build as build_pt
        return Request(build_pt(example, strategy, pool, int(sampling.get("seed", 0)), variant=prompt_variant).messages,
                       None, dict(sampling), example)
    if benchmark == "toolspectrum":
        prompter = _toolspectrum_prompter(example, tools_by_key, pool, int(sampling.get("seed", 0)),
                                          {} if prompters is None else prompters)
        return Request(prompter.build(example, strategy, domain=domain).messages, None, dict(sampling), example)
    raise ValueError(f"no prompt builder for {benchmark!r} yet")


HIERARCHICAL_FALLBACK = ("step 1's answer is read as a domain by name, then by app name, then by the one domain "
                         "sharing most words with it (pfc.run.prompts.match_domain); when none is read, step 2 "
                         "shows the full candidate toolset; each row records step 1's answer, the domain, how it "
                         "was matched and whether it fell back")


def latency_summary(latencies: list[float]) -> dict:
    """p50/p90/p99/max over successful backend calls; percentiles interpolate between observed values
    (``method='inclusive'``), so none exceeds the maximum."""
    xs = sorted(latencies)
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else [xs[0]] * 99
    return {"n": len(xs), "p50": q[49], "p90": q[89], "p99": q[98], "max": xs[-1]}


def _ordered(examples):
    """Each user's examples together, shortest history first: consecutive prompts share prefixes."""
    return sorted(examples, key=lambda e: (e.user_id or "", len(e.history), e.id))


def run(benchmark: str, examples_path, backend, out_dir, model: str = "", strategy: str = "zero_shot",
        history: str = "full", k: int = 50, limit: int | None = None, native: bool = True, seed: int = 0,
        batch_size: int = 16, sampling: dict | None = None, cache_path=None, tools_path=None,
        backend_options: dict | None = None, progress: bool = True, force: bool = False,
        use_cache: bool = True, ids=None, prompt_variant: str = "all") -> dict:
    """Run (or resume) one run directory; returns this invocation's usage.

    Refused before any request (``pfc.errors.UserError``): a run that cannot work
    (``pfc.run.checks.preflight``) and resuming into a directory made by another run
    (``pfc.run.identity``; ``force=True`` moves the old files aside). ``use_cache=False``
    neither reads nor writes the response cache. ``ids``: run only these example ids (a sample;
    few-shot pools still draw on the whole file). Each response is cached and written as soon as
    it exists (a kill loses at most the requests in flight). Ctrl-C raises ``RunInterrupted``.
    """
    from tqdm import tqdm
    if int(batch_size) < 1:
        raise UserError(f"batch size must be >= 1, got {batch_size}")
    adapter = benchmarks.get(benchmark)
    check_strategy(benchmark, strategy)
    check_prompt_variant(benchmark, prompt_variant)
    check_examples(benchmark, examples_path)
    examples, tools = adapter.load(examples_path, tools_path)
    all_examples = pool = examples
    if ids is not None:
        wanted = set(map(str, ids))
        unknown = wanted - {e.id for e in examples}
        if unknown:
            raise UserError(f"{paths.relative(Path(examples_path))}: {len(unknown)} requested ids not found, "
                             f"e.g. {sorted(unknown)[0]!r}")
        examples = [e for e in examples if e.id in wanted]
    examples = examples[:limit] if limit else examples
    pool = pool if ids is not None else examples
    sampling = {**DEFAULT_SAMPLING, **(sampling or {}), "seed": seed}
    be = backend if not isinstance(backend, str) else get(backend, model, tools=tools, seed=seed,
                                                          **(backend_options or {}))
    preflight(benchmark, adapter, be, examples, tools, examples_path, tools_path)
    out = Path(out_dir)
    ident = run_identity.build(benchmark=benchmark, backend=be.name, backend_version=getattr(be, "version", ""),
                               model=be.model, strategy=strategy, history=history, k=k, native_tools=native,
                               sampling=sampling, seed=seed, model_identity=be.identity(), prompt_variant=prompt_variant,
                               examples_sha256=run_identity.content_hash(all_examples, tools),
                               sample_sha256=None if ids is None else run_identity.text_hash(sorted(map(str, ids))))
    moved = run_identity.claim(out, ident, force=force, shown=str(out_dir))
    config = {"benchmark": benchmark, "examples": paths.relative(Path(examples_path)), "backend": be.name,
              "model": be.model, "strategy": strategy, "history": history, "k": k, "limit": limit,
              "native_tools": native, "seed": seed, "sampling": sampling, "n_examples": len(examples),
              "git_commit": git_commit(), "versions": versions(), "backend_options": backend_options or {},
              "prompt_variant": prompt_variant, "cache": use_cache, "ids": sorted(map(str, ids)) if ids is not None else None,
              "batch_size": batch_size, "model_identity": be.describe(),
              "hierarchical_fallback": HIERARCHICAL_FALLBACK if strategy == "hierarchical" else None}
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    pred_path = out / "predictions.jsonl"
    done = finished_ids(pred_path)
    todo = [e for e in _ordered(examples) if e.id not in done]
    cache = ResponseCache(cache_path or paths.CACHE / "responses.sqlite") if use_cache else None
    tools_by_key = {t.key: t for t in tools}
    prompters: dict = {}  # this run's prompt builders (ToolSpectrum: one per subset)
    usage = {"backend_calls": 0, "cache_hits": 0, "failures": 0, "prompt_tokens": 0, "completion_tokens": 0,
             "cost": 0.0, "already_done": len(done & {e.id for e in examples}), "written": 0, "todo": len(todo),
             "n_examples": len(examples), "first_error": None,
             "moved_aside": None if moved is None else paths.relative(moved)}
    timing = {"prefill_s": 0.0, "decode_s": 0.0, "reused_tokens": 0}
    latencies: list[float] = []
    model_id = be.identity()

    def cached_call(reqs: list[Request], on_done) -> None:
        """Answers each request from the cache or the backend; ``on_done(i, response)`` runs per request,
        as soon as that response exists (cached immediately: a kill loses at most the requests in flight)."""
        keys = [cache_key(be.name, model_id, r.messages, r.tools, r.sampling, getattr(be, "version", ""))
                for r in reqs]
        missing = []
        for i, key in enumerate(keys):
            hit = cache.get(key) if cache is not None else None
            if hit:
                usage["cache_hits"] += 1
                on_done(i, Response(**hit, cached=True))
            else:
                missing.append(i)
        if not missing:
            return

        def fresh(j, resp):
            i = missing[j]
            usage["backend_calls"] += 1
            if resp.error is None:
                if cache is not None:
                    cache.put(keys[i], resp.to_json())
                latencies.append(resp.latency_s)
                usage["prompt_tokens"] += resp.usage.get("prompt_tokens", 0)
                usage["completion_tokens"] += resp.usage.get("completion_tokens", 0)
                usage["cost"] += resp.cost
                for t in timing:
                    timing[t] += resp.usage.get(t, 0)
            on_done(i, resp)
        be.generate_each([reqs[i] for i in missing], on_done=fresh)

    bar = tqdm(total=len(todo), desc=f"{be.name} on {benchmark}", unit="ex", disable=not progress)
    try:
        (out / "failures.jsonl").unlink(missing_ok=True)
        with pred_path.open("a", encoding="utf-8") as preds, \
                (out / "failures.jsonl").open("a", encoding="utf-8") as fails:
            for start in range(0, len(todo), batch_size):
                batch = todo[start:start + batch_size]
                steps: list = [None] * len(batch)
                if strategy == "hierarchical":  # step 1: the domain, through the same cache, recorded per row
                    firsts = [domain_request(benchmark, e, tools_by_key, sampling, pool, prompters) for e in batch]

                    def step1(i, resp):
                        names = firsts[i][1]
                        domain, how = match_domain(resp.text, names) if resp.error is None else (None, "none")
                        steps[i] = {"answer": resp.text if resp.error is None else None, "error": resp.error,
                                    "domain": domain, "matched_by": how, "fallback": domain is None}
                        if generation(resp):
                            steps[i]["generation"] = generation(resp)
                    cached_call([r for r, _ in firsts], step1)
                reqs = [build_request(benchmark, e, tools_by_key, strategy, history, k, native, sampling, pool,
                                      st["domain"] if st else None, prompters, prompt_variant) for e, st in zip(batch, steps)]

                def step2(i, resp):
                    ex = batch[i]
                    if resp.error is not None:
                        usage["failures"] += 1
                        usage["first_error"] = usage["first_error"] or f"{ex.id}: {resp.error}"
                        fails.write(json.dumps({"id": ex.id, "error": resp.error}) + "\n")
                        fails.flush()
                    else:
                        row = {"id": ex.id, "output": resp.output(), "cached": resp.cached}
                        if generation(resp):
                            row["generation"] = generation(resp)
                        if steps[i] is not None:
                            row["domain_step"] = steps[i]
                        preds.write(json.dumps(row, ensure_ascii=False) + "\n")
                        preds.flush()
                        os.fsync(preds.fileno())
                        usage["written"] += 1
                    bar.update(1)
                cached_call(reqs, step2)
    except KeyboardInterrupt:
        usage["interrupted"] = True
        saved = len(finished_ids(pred_path) & {e.id for e in examples})
        usage["done"] = saved
        _finish(bar, cache, out, usage, latencies, timing, be)
        raise RunInterrupted(saved, len(examples), str(out_dir)) from None
    except BaseException:  # crashed: finished rows are on disk; say so in usage.json
        usage["interrupted"] = True
        _finish(bar, cache, out, usage, latencies, timing, be)
        raise
    usage["done"] = len(finished_ids(pred_path) & {e.id for e in examples})
    _finish(bar, cache, out, usage, latencies, timing, be)
    return usage


COST_KEYS = ("prompt_tokens", "completion_tokens", "reused_tokens", "prefill_s", "decode_s")


def generation(resp) -> dict:
    """What generating this answer cost, as the backend recorded it when it generated it (a cached answer
    keeps its original cost): tokens and prefill/decode seconds; {} for backends that record none."""
    return {k: resp.usage[k] for k in COST_KEYS if isinstance(resp.usage.get(k), (int, float))} \
        if resp.usage.get("prefill_s") is not None else {}


def _finish(bar, cache, out, usage, latencies, timing, be) -> None:
    bar.close()
    if cache is not None:
        cache.close()
    _write_usage(out, usage, latencies, timing, be)


def _write_usage(out, usage, latencies, timing, be) -> None:
    if latencies:
        usage["latency_s"] = latency_summary(latencies)
    if any(timing.values()):
        usage["timing"] = {k: round(v, 3) for k, v in timing.items()}
    warnings = list(getattr(be, "warnings", []) or [])
    if warnings:
        usage["warnings"] = warnings
    usage["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    (out / "usage.json").write_text(json.dumps(usage, indent=1) + "\n")
