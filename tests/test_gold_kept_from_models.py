"""Model backends never see the gold: prompts state no gold value, and a request carries no example.

How a leak is caught: each example's gold argument values (and PTBench's ``official_answer``,
the gold as text) are replaced by unique canary strings that occur nowhere else; the example's
own inputs (query, profile, history, environment) are left as they are, so a value the request
legitimately states still appears as itself. Every prompt of every benchmark is rendered — every
strategy, history mode, tool format and PTBench variant, step 1 of the hierarchical strategy too —
and no canary may appear in it. The few-shot pool is the unmodified examples: demonstrations show
*other* examples' answers by design.
"""
import copy
import dataclasses
import json

import pytest

from pfc import paths
from pfc.run.backends import Backend, Request, Response
from pfc.run.config import RUN_STRATEGIES
from pfc.run.prompts.ptbench import VARIANTS
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


def test_tracebench_prompts_state_no_gold_value(tiny_tracebench):
    examples = load_examples(tiny_tracebench / "examples.jsonl")[:12]
    tools = load_tools(tiny_tracebench / "tools.json")
    assert _planted(examples) > 12  # the check has something to find
    for strategy in RUN_STRATEGIES["tracebench"]:
        for history in ("full", "last_k", "retrieved"):
            for native in (True, False):
                b = RequestBuilder("tracebench", tools, strategy, history, 5, native, {"seed": 0}, examples)
                assert _leaks(b, examples, strategy == "hierarchical") == [], (strategy, history, native)


def test_ptbench_prompts_state_no_gold_value():
    from pfc.benchmarks.ptbench import load_official
    examples = load_official(paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json")
    assert _planted(examples) > len(examples)
    for strategy in RUN_STRATEGIES["ptbench"]:
        for variant in VARIANTS:
            b = RequestBuilder("ptbench", [], strategy, sampling={"seed": 0}, pool=examples, prompt_variant=variant)
            assert _leaks(b, examples, False) == [], (strategy, variant)


def test_toolspectrum_prompts_state_no_gold_value(release):
    from pfc.benchmarks import toolspectrum as ts
    examples, tools = ts.load(release)
    by_subset = {}
    for e in examples:
        by_subset.setdefault(e.meta["subset"], []).append(e)
    sample = [e for subset in by_subset.values() for e in subset[:4]]
    assert _planted(sample) > len(sample)
    for strategy in RUN_STRATEGIES["toolspectrum"]:
        b = RequestBuilder("toolspectrum", tools, strategy, sampling={"seed": 0}, pool=examples)
        assert _leaks(b, sample, strategy == "hierarchical") == [], strategy


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
