"""Runs: built-in baselines, cache, resume after kill -9, failures retried and never cached."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pfc import paths
from pfc.errors import UserError
from pfc.run.backends import Baseline, Response, get
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.run.writer import finished_ids
from pfc.schema import load_examples
from pfc.eval.scoring import score_files

pytestmark = pytest.mark.slow  # whole runs, some in subprocesses: not in make test-fast


def test_history_prior_beats_no_history_beats_random(tiny_tracebench, tmp_path):
    overall = {}
    for name in ("random", "no-history", "history-prior", "oracle"):
        execute(RunConfig("tracebench", tiny_tracebench, name, tmp_path / name, cache_path=tmp_path / "c.sqlite", progress=False))
        overall[name] = score_files("tracebench", tiny_tracebench, tmp_path / name / "predictions.jsonl").metrics["overall"]
    assert overall["oracle"] == 1.0
    assert overall["history-prior"] > overall["no-history"] >= overall["random"]


def test_rerunning_a_finished_run_makes_no_backend_call(tiny_tracebench, tmp_path):
    first = execute(RunConfig("tracebench", tiny_tracebench, "history-prior", tmp_path / "r", cache_path=tmp_path / "c.sqlite", progress=False))
    again = execute(RunConfig("tracebench", tiny_tracebench, "history-prior", tmp_path / "r", cache_path=tmp_path / "c.sqlite", progress=False))
    fresh_dir = execute(RunConfig("tracebench", tiny_tracebench, "history-prior", tmp_path / "r2", cache_path=tmp_path / "c.sqlite", progress=False))
    assert first["backend_calls"] > 0 and again["backend_calls"] == 0 and again["written"] == 0
    assert fresh_dir["backend_calls"] == 0 and fresh_dir["cache_hits"] == first["backend_calls"]  # served by the cache


def test_run_directory_files(tiny_tracebench, tmp_path):
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", tmp_path / "r", limit=20, cache_path=tmp_path / "c.sqlite", progress=False))
    cfg = json.loads((tmp_path / "r" / "config.json").read_text())
    assert cfg["backend"] == "oracle" and cfg["seed"] == 0 and cfg["sampling"]["temperature"] == 0.1
    assert "python" in cfg["versions"] and "git_commit" in cfg
    rows = [json.loads(l) for l in (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 20 and len({r["id"] for r in rows}) == 20 and all("output" in r for r in rows)
    usage = json.loads((tmp_path / "r" / "usage.json").read_text())
    assert usage["backend_calls"] + usage["cache_hits"] == 20


def test_torn_last_line_is_cut_and_the_run_completes(tiny_tracebench, tmp_path):
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", tmp_path / "r", limit=30, cache_path=tmp_path / "c.sqlite", progress=False))
    pred = tmp_path / "r" / "predictions.jsonl"
    pred.write_bytes(pred.read_bytes() + b'{"id": "a0000')  # a write cut by a crash
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", tmp_path / "r", limit=40, cache_path=tmp_path / "c.sqlite", progress=False))
    ids = [json.loads(l)["id"] for l in pred.read_text().splitlines()]
    assert len(ids) == 40 == len(set(ids))


def test_killed_run_resumes_with_no_duplicate_and_no_missing_row(tiny_tracebench, tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "pfc", "run", "--benchmark", "tracebench", "--examples", str(tiny_tracebench),
           "--backend", "history-prior", "--out", str(out)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and len(finished_ids(out / "predictions.jsonl")) < 20:
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)  # trap: no cleanup code runs on kill -9
    p.wait()
    subprocess.run(cmd, cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    ids = [json.loads(l)["id"] for l in (out / "predictions.jsonl").read_text().splitlines()]
    assert sorted(ids) == sorted({e.id for e in load_examples(tiny_tracebench / "examples.jsonl")})


class Flaky(Baseline):
    """Fails on some examples the first time (as a rate-limited API would), else answers the gold
    (a test double: it reads the examples through the baselines' path)."""
    name, model = "flaky", "flaky-1"

    def __init__(self):
        self.seen = set()
        self.inner = None

    def answer(self, requests, examples):
        out = []
        for ex in examples:
            if ex.id.endswith("most_clear") and ex.id not in self.seen:
                self.seen.add(ex.id)
                out.append(Response(error="HTTP 429: rate limited"))
            else:
                out.append(Response(text=json.dumps({"name": f"{ex.gold[0].app}__{ex.gold[0].function}",
                                                     "arguments": ex.gold[0].arguments})))
        return out


def test_failures_are_recorded_retried_and_never_cached(tiny_tracebench, tmp_path):
    be = Flaky()
    first = execute(RunConfig("tracebench", tiny_tracebench, be, tmp_path / "r", cache_path=tmp_path / "c.sqlite", progress=False))
    fails = (tmp_path / "r" / "failures.jsonl").read_text().splitlines()
    assert first["failures"] == len(fails) > 0 and "429" in fails[0]
    second = execute(RunConfig("tracebench", tiny_tracebench, be, tmp_path / "r", cache_path=tmp_path / "c.sqlite", progress=False))
    assert second["backend_calls"] == first["failures"] and second["failures"] == 0
    m = score_files("tracebench", tiny_tracebench, tmp_path / "r" / "predictions.jsonl").metrics
    assert m["overall"] == 1.0


def test_no_secret_lands_in_run_files(tiny_tracebench, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-should-never-appear-0123456789")
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", tmp_path / "r", limit=5, cache_path=tmp_path / "c.sqlite", progress=False))
    for f in (tmp_path / "r").iterdir():
        assert "sk-test-secret" not in f.read_text()


def test_builtin_baselines_run_on_the_toolspectrum_release(release, tmp_path):
    data = release / "data" / "dataset_persona.json"
    for name in ("history-prior", "no-history", "random"):
        execute(RunConfig("toolspectrum", data, name, tmp_path / name, cache_path=tmp_path / "c.sqlite", progress=False))
        m = score_files("toolspectrum", data, tmp_path / name / "predictions.jsonl").metrics
        assert 0.0 <= m["APP"] <= 1.0 and m["format"] == 1.0


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(UserError, match="unknown backend"):
        get("gpt-17")


def test_oracle_runs_on_ptbench_official_data_in_its_own_format(tmp_path):
    data = paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json"
    execute(RunConfig("ptbench", data, "oracle", tmp_path / "r", cache_path=tmp_path / "c.sqlite", progress=False))
    first = json.loads((tmp_path / "r" / "predictions.jsonl").read_text().splitlines()[0])["output"]
    assert ":[" in first  # PTBench's bracket format, not JSON
    assert score_files("ptbench", data, tmp_path / "r" / "predictions.jsonl").metrics["overall"] == 1.0


def test_few_shot_prompts_use_other_anchors_only(tiny_tracebench):
    from pfc.benchmarks.tracebench.prompts import build
    from pfc.schema import load_tools
    examples = load_examples(tiny_tracebench / "examples.jsonl")
    tools = {t.key: t for t in load_tools(tiny_tracebench / "tools.json")}
    ex = examples[0]
    prompt, _ = build(ex, tools, strategy="few_shot", pool=examples, shots=3, history="last_k", k=3)
    demos = [m["content"] for m in prompt.messages[1:-1] if m["role"] == "user"]
    same_anchor = [e.query for e in examples if e.meta["anchor_id"] == ex.meta["anchor_id"]]
    # trap: the other vagueness levels of the same anchor would leak the answer
    assert len(demos) == 3 and not any(d.removeprefix("Request: ") in same_anchor for d in demos)


def test_a_strategy_run_cannot_do_is_refused_not_substituted(tiny_tracebench, tmp_path):
    with pytest.raises(UserError, match="not 'hierarchical'"):
        execute(RunConfig("ptbench", paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json", "oracle",
            tmp_path / "r", strategy="hierarchical", cache_path=tmp_path / "c.sqlite", progress=False))


class DomainAware(Baseline):
    """Answers the domain step with the gold scenario and the answer step with the gold call,
    recording which tools the answer step was shown."""
    name, model = "domain-aware", "d-1"

    def __init__(self):
        self.shown = []

    def answer(self, requests, examples):
        out = []
        for r, ex in zip(requests, examples):
            g = ex.gold[0]
            if r.tools is None and "Answer with the scenario name only." in r.messages[-1]["content"]:
                out.append(Response(text=f"It is {ex.meta['domain']}."))
            else:
                self.shown.append((ex.meta["domain"], {t["function"]["description"] for t in r.tools or []}))
                out.append(Response(text=json.dumps({"name": f"{g.app}__{g.function}", "arguments": g.arguments})))
        return out


def test_hierarchical_run_asks_the_domain_then_shows_only_its_tools(tiny_tracebench, tmp_path):
    be = DomainAware()
    u = execute(RunConfig("tracebench", tiny_tracebench, be, tmp_path / "r", strategy="hierarchical", limit=12,
            cache_path=tmp_path / "c.sqlite", progress=False))
    assert u["backend_calls"] == 24  # two calls per example
    from pfc.schema import load_tools
    by_desc = {f"[{t.app}] {t.description}" + (f" ({t.app_description})" if t.app_description else ""): t.domain
               for t in load_tools(tiny_tracebench / "tools.json")}
    for domain, descs in be.shown:
        assert descs and {by_desc[d] for d in descs} == {domain}
    assert score_files("tracebench", tiny_tracebench, tmp_path / "r" / "predictions.jsonl").metrics["function_name"] > 0


def test_ptbench_few_shot_never_shows_the_sample(tmp_path):
    from pfc.benchmarks.ptbench import load_official
    from pfc.benchmarks.ptbench.prompts import build
    examples = load_official(paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json")
    p = build(examples[0], "few_shot", examples, seed=0)
    demos = [m["content"] for m in p.messages[1:-1] if m["role"] == "user"]
    assert len(demos) == 3 and examples[0].query not in demos
    assert all(":[" in m["content"] for m in p.messages if m["role"] == "assistant")


def test_toolspectrum_few_shot_run_shows_demonstrations_from_its_own_subset(release, tmp_path):
    from pfc.benchmarks import toolspectrum as ts
    from pfc.run.runner import build_request
    examples, tools = ts.load(release)
    by_key = {t.key: t for t in tools}
    # trap: a prompter cached without the run's pool renders few-shot prompts with no examples
    r = build_request("toolspectrum", examples[0], by_key, "few_shot", "full", 50, True, {"seed": 0}, examples)
    text = r.messages[0]["content"]
    assert text.count("### Example") == 3 and examples[0].query not in text.split("### Input")[0]


class Metered(Baseline):
    """Answers with the gold call and reports a fixed cost per request, as the hf backend does."""
    name, model = "metered", "m-1"

    def answer(self, requests, examples):
        return [Response(text=json.dumps({"name": f"{ex.gold[0].app}__{ex.gold[0].function}",
                                          "arguments": ex.gold[0].arguments}),
                         usage={"prompt_tokens": 100, "completion_tokens": 7, "reused_tokens": 40,
                                "prefill_s": 1.5, "decode_s": 0.25}) for ex in examples]


def test_each_row_keeps_what_its_answer_cost_even_when_served_from_the_cache(tiny_tracebench, tmp_path):
    # trap: usage.json counts only this invocation's backend calls, so a run refilled from the
    # response cache reported no timing at all ("–" in reports/real_models.md)
    be = Metered()
    execute(RunConfig("tracebench", tiny_tracebench, be, tmp_path / "a", limit=3, cache_path=tmp_path / "c.sqlite", progress=False))
    u = execute(RunConfig("tracebench", tiny_tracebench, be, tmp_path / "b", limit=3, cache_path=tmp_path / "c.sqlite", progress=False))
    assert u["backend_calls"] == 0 and u["cache_hits"] == 3
    rows = [json.loads(x) for x in (tmp_path / "b" / "predictions.jsonl").read_text().splitlines()]
    assert [r["cached"] for r in rows] == [True] * 3
    assert all(r["generation"] == {"prompt_tokens": 100, "completion_tokens": 7, "reused_tokens": 40,
                                   "prefill_s": 1.5, "decode_s": 0.25} for r in rows)


def test_baseline_rows_carry_no_generation_cost(tiny_tracebench, tmp_path):
    # a baseline generates nothing: its rows must not claim zero-second "generations"
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", tmp_path / "r", limit=3, progress=False, use_cache=False))
    rows = [json.loads(x) for x in (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()]
    assert rows and not any("generation" in r for r in rows)


def test_a_baseline_built_without_tools_is_refused_before_any_request(tiny_tracebench, tmp_path):
    # trap: get("history-prior") without tools failed all requests with "empty vocabulary" and wrote nothing
    from pfc.errors import UserError
    with pytest.raises(UserError, match="built without the candidate tools"):
        execute(RunConfig("tracebench", tiny_tracebench, get("history-prior"), tmp_path / "r", limit=3, progress=False, use_cache=False))
    assert not (tmp_path / "r" / "predictions.jsonl").exists()
