"""Model backends never see the gold: prompts state no gold value, and a request carries no example.

How a leak is caught: each example's gold argument values (and PTBench's ``official_answer``,
the gold as text) are replaced by unique canary strings that occur nowhere else; the example's
own inputs (query, profile, history, environment) are left as they are, so a value the request
legitimately states still appears as itself. Every prompt of every benchmark is rendered — every
strategy, history mode, tool format and prompt variant (PTBench's; TRACEBench's ask-allowed ones, the
follow-up turn a question and the user's fixed reply), step 1 of the hierarchical strategy too —
of every registered benchmark (the toy of tests/toy included) and no canary may appear in it. The few-shot pool is the unmodified examples: demonstrations show
*other* examples' answers by design.
"""
import copy
import dataclasses
import json
import os
import subprocess
import sys

import pytest

from pfc import benchmarks, paths
from pfc.data import followup
from pfc.run.backends import Backend, Request, Response
from pfc.run.requests import RequestBuilder
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.schema import load_examples, load_tools, write_examples, write_tools


def _canaried(ex):
    """A copy of ``ex`` whose gold values are canaries; returns (copy, canaries)."""
    ex = copy.deepcopy(ex)
    canaries = []
    for gi, g in enumerate(ex.gold or []):
        for name in g.arguments:
            g.arguments[name] = f"GOLDCANARY{gi}{len(canaries)}Z"
            canaries.append(g.arguments[name])
            g.alternatives.pop(name, None)
    if "official_answer" in ex.meta:
        ex.meta["official_answer"] = "GOLDCANARYANSWERZ"
        canaries.append("GOLDCANARYANSWERZ")
    return ex, canaries


def _leaks(builder: RequestBuilder, examples, hierarchical: bool) -> list[str]:
    found = []
    for ex in examples:
        target, canaries = _canaried(ex)
        reqs = [builder.answer(target)]
        if hierarchical:
            reqs.append(builder.domain(target)[0])
        text = json.dumps([dataclasses.asdict(r) for r in reqs], ensure_ascii=False)
        found += [f"{ex.id}: {c}" for c in canaries if c in text]
    return found


def _planted(examples) -> int:
    return sum(len(_canaried(e)[1]) for e in examples)


def _tracebench(request, tmp_path, adapter):
    tiny = request.getfixturevalue("tiny_tracebench")
    examples = load_examples(tiny / "examples.jsonl")[:12]
    for e in examples:  # the ask-followup variant renders a second turn: a question and the user's fixed reply
        e.meta["followup"] = {"assistant": json.dumps({"ask": "Which one?"}), "user": followup.NAG}
    return examples, load_tools(tiny / "tools.json"), examples


def _ptbench(request, tmp_path, adapter):
    examples, tools = adapter.scoring.load(paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json")
    return examples, tools, examples


def _toolspectrum(request, tmp_path, adapter):
    examples, tools = adapter.scoring.load(request.getfixturevalue("release"))
    by_subset = {}
    for e in examples:
        by_subset.setdefault(e.meta["subset"], []).append(e)
    return [e for subset in by_subset.values() for e in subset[:4]], tools, examples


def _built(request, tmp_path, adapter):
    """Any other benchmark (the toy's included): its builder's data at its defaults."""
    builder = adapter.builder()
    assert builder is not None, f"{adapter.name}: give the canary examples (a builder, or an entry in SAMPLES)"
    builder.build(tmp_path / "data")
    examples, tools = adapter.scoring.load(tmp_path / "data", None)
    return examples, tools, examples


SAMPLES = {"tracebench": _tracebench, "ptbench": _ptbench, "toolspectrum": _toolspectrum}  # sample, tools, pool


def _works(prompts, variant: str, native: bool) -> bool:
    from pfc.errors import UserError
    try:
        getattr(prompts, "check_variant", lambda v, n: None)(variant, native)
    except UserError:
        return False
    return True


@pytest.mark.parametrize("name", benchmarks.NAMES)  # every registered one: PFC_BENCHMARKS adds its own
def test_every_registered_benchmarks_prompts_state_no_gold_value(name, request, tmp_path):
    adapter = benchmarks.get(name)
    examples, tools, pool = SAMPLES.get(name, _built)(request, tmp_path, adapter)
    assert _planted(examples) >= len(examples) > 0  # the check has something to find
    histories = ("full", "last_k", "retrieved") if adapter.running.history_selection else ("full",)
    for strategy in adapter.running.strategies:
        for history in histories:
            for native in (True, False):
                for variant in getattr(adapter.prompts(), "VARIANTS", ("all",)):  # PTBench's, TRACEBench's variants
                    if not _works(adapter.prompts(), variant, native):
                        continue  # refused by RunConfig.check before any prompt is built
                    b = RequestBuilder(name, tools, strategy, history, 5, native, {"seed": 0}, pool,
                                       prompt_variant=variant)
                    assert _leaks(b, examples, strategy == "hierarchical") == [], (strategy, history, native, variant)


@pytest.mark.slow  # a pytest in a subprocess
def test_the_canary_runs_over_a_benchmark_registered_from_outside(tmp_path):
    """The toy of tests/toy, registered as PFC_BENCHMARKS does: its prompts go through the same canary."""
    env = {**os.environ, "PFC_BENCHMARKS": "toybench=toybench",
           "PYTHONPATH": os.pathsep.join([str(paths.ROOT / "lib"), str(paths.ROOT / "tests" / "toy")])}
    p = subprocess.run([sys.executable, "-m", "pytest", __file__, "-k", "registered_benchmarks and toybench", "-v",
                        "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "t")], capture_output=True, text=True,
                       env=env, cwd=paths.ROOT, timeout=600)
    assert p.returncode == 0 and "1 passed" in p.stdout, p.stdout[-2000:]


def test_a_request_has_no_field_for_the_example():
    assert [f.name for f in dataclasses.fields(Request)] == ["messages", "tools", "sampling"]


class _Recorder(Backend):
    """A model backend that records what it is handed."""
    name, model = "recorder", "rec-1"

    def __init__(self):
        self.received = []

    def generate(self, requests):
        self.received += requests
        return [Response(text="null") for _ in requests]


def test_a_model_backend_in_a_run_receives_no_gold(tiny_tracebench, tmp_path):
    examples = load_examples(tiny_tracebench / "examples.jsonl")[:6]
    canaried = [_canaried(e) for e in examples]
    write_examples([e for e, _ in canaried], tmp_path / "examples.jsonl")
    write_tools(load_tools(tiny_tracebench / "tools.json"), tmp_path / "tools.json")
    be = _Recorder()
    execute(RunConfig("tracebench", tmp_path, be, tmp_path / "run", strategy="hierarchical", use_cache=False, progress=False))
    assert len(be.received) == 12  # step 1 and step 2 for each example
    assert all(type(r) is Request for r in be.received)
    text = json.dumps([dataclasses.asdict(r) for r in be.received], ensure_ascii=False)
    assert [c for _, cs in canaried for c in cs if c in text] == []
