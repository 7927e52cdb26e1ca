"""Run a backend over a benchmark: prompts -> cached backend calls -> a resumable run directory.

A run directory holds ``predictions.jsonl`` (one row per example id, raw output kept; ready for ``pfc score``; a local
model's rows also carry ``generation``: the tokens and prefill/decode seconds the answer cost when it was generated,
kept when it is later served from the cache), ``failures.jsonl`` (requests that failed in this invocation; retried on
the next one, never cached), ``config.json`` (every parameter, seed, git commit, package versions, the model's identity:
weights fingerprint, dtype, prefix reuse) and ``usage.json`` (this invocation's backend calls, cache hits, tokens, cost,
latency percentiles).

Crash safety: each response is cached and its row appended and flushed as soon as it returns (progress moves per
request, not per batch); an interrupted run still writes ``usage.json`` (``"interrupted": true``); on start, a partial
last line (a run killed mid-write) is cut off and finished ids are skipped, so a killed run resumes with no duplicate
and no missing row. Requests are ordered so that each user's examples are adjacent and grow in history length (shared
prompt prefixes).

The parts: the typed configuration (``pfc.run.config.RunConfig``), the request builder (``pfc.run.requests``), the
strategy (``pfc.run.strategies``), the cached, metered backend (``pfc.run.cached``) and the run directory writer with
its typed rows (``pfc.run.writer``); this module joins them (:func:`execute`; :func:`execute_or_replace` for a directory
a plan owns). Every caller describes its run as one ``RunConfig`` (``pfc run`` builds it from its flags,
``pfc.run.run_args``).

    python -m pfc run --benchmark tracebench --examples data/benchmarks/tracebench --backend history-prior --out data/runs/hp
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pfc import benchmarks, paths
from pfc.benchmarks.shape import check_examples
from pfc.errors import UserError
from pfc.run import identity as run_identity
from pfc.run import strategies
from pfc.run.backends import Request, get
from pfc.run.cache import ResponseCache
from pfc.run.cached import CachedBackend, generation
from pfc.run.checks import RunInterrupted, preflight
from pfc.run.config import RunConfig, check_strategy
from pfc.io.lock import writer_lock
from pfc.run.requests import RequestBuilder, template_identity
from pfc.run.writer import PredictionRow, RunWriter
from pfc.progress import stream as progress_stream


def build_request(benchmark: str, example, *settings, domain: str | None = None, **options) -> Request:
    """One example's answer request: ``RequestBuilder(benchmark, *settings, **options).answer(example, domain)``
    (``settings``: the tools, then the strategy, history, k, ...), its strategy checked first."""
    rb = RequestBuilder(benchmark, *settings, **options)
    check_strategy(benchmark, rb.strategy)
    return rb.answer(example, domain)


def _ordered(examples, requests: RequestBuilder | None = None):
    """Each user's examples together, shortest history first: consecutive prompts share prefixes.
    With ``requests`` (the prefix layout): ordered by the answer prompt's text itself, so neighbours share the longest
    prefixes (by subset or scenario, then user, then anchor)."""
    if requests is not None:
        def text(e):
            r = requests.answer(e)
            return [m.get("content") or "" for m in r.messages], e.id
        return sorted(examples, key=text)
    return sorted(examples, key=lambda e: (e.user_id or "", len(e.history), e.id))


def _select(cfg: RunConfig, examples: list) -> tuple[list, list]:
    """The examples to run (``ids``, then ``limit``) and the few-shot pool."""
    if cfg.ids is not None:
        wanted = set(map(str, cfg.ids))
        unknown = wanted - {e.id for e in examples}
        if unknown:
            raise UserError(f"{paths.relative(Path(cfg.examples))}: {len(unknown)} requested ids not found, "
                            f"e.g. {sorted(unknown)[0]!r}")
        chosen = [e for e in examples if e.id in wanted]
    else:
        chosen = examples
    chosen = chosen[:cfg.limit] if cfg.limit else chosen
    return chosen, (examples if cfg.ids is not None else chosen)


def execute(cfg: RunConfig) -> dict:
    """Run (or resume) one run directory; returns this invocation's usage.

    Refused before any request (``pfc.errors.UserError``): a run that cannot work (``RunConfig.check``,
    ``pfc.run.checks.preflight``) and resuming into a directory made by another run (``pfc.run.identity``;
    ``force=True`` moves the old files aside), and a directory another process writes (``pfc.io.lock``: the lock is held
    until this returns or raises). ``use_cache=False`` neither reads nor writes the response cache. ``ids``: run only
    these example ids (a sample; few-shot pools still draw on the whole file). Each response is cached and written as
    soon as it exists (a kill loses at most the requests in flight). Ctrl-C raises ``RunInterrupted``. Re-running a
    finished run changes nothing on disk: its ``config.json`` and ``usage.json`` keep describing the invocations that
    made it.
    """
    cfg.check()
    adapter = benchmarks.get(cfg.benchmark)
    check_examples(cfg.benchmark, cfg.examples)
    all_examples, tools = adapter.scoring.load(cfg.examples, cfg.tools)
    examples, pool = _select(cfg, all_examples)
    be = cfg.backend if not isinstance(cfg.backend, str) else get(cfg.backend, cfg.model, tools=tools, seed=cfg.seed,
                                                                  **(cfg.backend_options or {}))
    preflight(cfg.benchmark, adapter, be, examples, tools, cfg.examples, cfg.tools)
    # one writer per run directory, from reading run.json to the last row (pfc.io.lock): a second
    # `pfc run`, a sweep worker or the pipeline on the same --out is refused naming the holder
    with writer_lock(cfg.out_dir, "run directory"):
        moved = run_identity.claim(Path(cfg.out_dir), _identity(cfg, be, all_examples, tools), force=cfg.force,
                                   shown=str(cfg.out_dir), plan=cfg.plan)
        writer = RunWriter(cfg.out_dir)
        done, wanted = writer.finished(), {e.id for e in examples}
        if wanted and wanted <= done and moved is None and (Path(cfg.out_dir) / "config.json").is_file() \
                and writer.usage_done() == len(wanted):
            # a finished run: nothing to do, and its config.json and usage.json (what made it) stay as they are.
            # A run killed after its last row but before its usage.json was written falls through: the
            # invocation below writes nothing but config.json and a usage.json saying every row is done
            return {"backend_calls": 0, "cache_hits": 0, "failures": 0, "prompt_tokens": 0, "completion_tokens": 0,
                    "cost": 0.0, "already_done": len(wanted), "written": 0, "todo": 0, "n_examples": len(examples),
                    "first_error": None, "moved_aside": None, "done": len(wanted)}
        record = cfg.record(be, len(examples))
        if all_examples and all_examples[0].meta.get("synthesis"):  # our PTBench synthesis' version (reports keep
            record["synthesis"] = all_examples[0].meta["synthesis"]  # runs on an earlier one out of the tables)
        writer.write_config(record)
        requests = RequestBuilder(cfg.benchmark, tools, cfg.strategy, cfg.history, cfg.k, cfg.native,
                                  cfg.full_sampling(), pool, cfg.prompt_variant, cfg.layout)
        todo = _ordered([e for e in examples if e.id not in done], requests if cfg.layout == "prefix" else None)
        usage = {"failures": 0, "already_done": len(done & wanted), "written": 0, "todo": len(todo),
                 "n_examples": len(examples), "first_error": None,
                 "moved_aside": None if moved is None else paths.relative(moved)}
        return _answer(cfg, be, writer, requests, todo, usage, wanted)


def _identity(cfg: RunConfig, be, all_examples, tools) -> dict:
    """The run's identity (``run.json``, ``pfc.run.identity``): what must match for a directory to resume."""
    ids = cfg.sample_ids()
    examples = run_identity.examples_sha256(cfg.benchmark, cfg.examples, cfg.tools, all_examples, tools)
    return run_identity.build(cfg, be, examples, model_identity=be.identity(),
                              prompt_template=template_identity(cfg.benchmark, cfg.prompt_variant),
                              sample_sha256=None if ids is None else run_identity.text_hash(ids),
                              **({"layout": cfg.layout} if cfg.layout != "paper" else {}))


def _answer(cfg: RunConfig, be, writer: RunWriter, requests: RequestBuilder, todo: list, usage: dict,
            wanted: set) -> dict:
    """Answer ``todo`` batch by batch through the cached backend, each row written as it returns; ``usage.json``
    written at the end, also when interrupted or crashed (``"interrupted": true``)."""
    from tqdm import tqdm
    cached = CachedBackend(be, ResponseCache(cfg.cache_path or paths.CACHE / "responses.sqlite")
                           if cfg.use_cache else None)
    strategy = strategies.get(cfg.strategy)
    bar = tqdm(total=len(todo), desc=f"{be.name} on {cfg.benchmark}", unit="ex", disable=not cfg.progress,
               file=progress_stream())  # the terminal, not a notebook's saved outputs (pfc.progress)
    result: dict = {}

    def finish(**extra) -> None:
        bar.close()
        cached.close()
        merged = {**cached.counts, **usage, **extra}
        result.update({k: merged[k] for k in USAGE_ORDER if k in merged}, **cached.usage())
        writer.write_usage(result)

    try:
        with writer:
            for start in range(0, len(todo), cfg.batch_size):
                batch = todo[start:start + cfg.batch_size]

                def on_answer(i, resp, domain_step):
                    ex = batch[i]
                    if resp.error is not None:
                        usage["failures"] += 1
                        usage["first_error"] = usage["first_error"] or f"{ex.id}: {resp.error}"
                        writer.fail(ex.id, resp.error)
                    else:
                        writer.write(PredictionRow(ex.id, resp.output(), resp.cached, generation(resp) or None,
                                                   domain_step))
                        usage["written"] += 1
                    bar.update(1)
                strategy.answer(batch, requests, cached, on_answer)
    except KeyboardInterrupt:
        saved = len(writer.finished() & wanted)
        finish(interrupted=True, done=saved)
        raise RunInterrupted(saved, usage["n_examples"], str(cfg.out_dir)) from None
    except BaseException:  # crashed: finished rows are on disk; say so in usage.json
        finish(interrupted=True)
        raise
    finish(done=len(writer.finished() & wanted))
    return result


def execute_or_replace(cfg: RunConfig, said=None) -> dict:
    """:func:`execute`, except that a directory made by another run (another sample, model, sampling, …) is
    moved to ``attic/`` and the run redone, its unchanged requests answered from the response cache: for directories a
    plan owns. ``said(error)`` hears why, first."""
    try:
        return execute(cfg)
    except run_identity.RunIdentityError as e:
        if said is not None:
            said(e)
        return execute(replace(cfg, force=True))


# usage.json's keys, in the order it has always written them
USAGE_ORDER = ("backend_calls", "cache_hits", "failures", "prompt_tokens", "completion_tokens", "cost",
               "already_done", "written", "todo", "n_examples", "first_error", "moved_aside", "interrupted", "done")
