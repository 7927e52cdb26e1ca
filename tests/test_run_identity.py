"""Run identity, the response cache's code version and --no-cache, and benchmark-shape recognition."""
import hashlib
import json
import shutil

import pytest

from pfc import paths
from pfc.errors import UserError
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.run.writer import finished_ids
from pfc.benchmarks.shape import looks_like


def go(tiny_tracebench, out, cache, backend="oracle", **kw):
    return execute(RunConfig("tracebench", tiny_tracebench, backend, out, cache_path=cache, progress=False, **kw))


def test_a_differing_seed_is_refused_naming_both_seed_fields(tiny_tracebench, tmp_path):
    go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=5)
    with pytest.raises(UserError) as e:
        go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=5, seed=1)
    assert "sampling.seed: 0 -> 1" in str(e.value) and "; seed: 0 -> 1" in str(e.value)


def test_a_differing_sampling_parameter_is_refused(tiny_tracebench, tmp_path):
    go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=5)
    with pytest.raises(UserError, match=r"sampling.temperature: 0.1 -> 0.7"):
        go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=5, sampling={"temperature": 0.7})


def test_the_same_examples_moved_elsewhere_resume_the_run(tiny_tracebench, tmp_path):
    go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=5)
    moved = tmp_path / "moved"
    shutil.copytree(tiny_tracebench, moved)  # the identity is the content, not the path
    u = go(moved, tmp_path / "r", tmp_path / "c", limit=8)
    assert u["already_done"] == 5 and u["written"] == 3
    assert len(finished_ids(tmp_path / "r" / "predictions.jsonl")) == 8


def test_force_with_the_same_identity_still_starts_afresh(tiny_tracebench, tmp_path):
    go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=5)
    u = go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=3, force=True)
    assert u["already_done"] == 0 and u["written"] == 3 and u["moved_aside"].endswith("attic/1")
    assert len((tmp_path / "r" / "attic" / "1" / "predictions.jsonl").read_text().splitlines()) == 5


def test_run_json_records_the_identity(tiny_tracebench, tmp_path):
    go(tiny_tracebench, tmp_path / "r", tmp_path / "c", limit=2, history="last_k", k=7, strategy="cot")
    ident = json.loads((tmp_path / "r" / "run.json").read_text())["identity"]
    assert {k: ident[k] for k in ("benchmark", "backend", "model", "strategy", "history", "k", "seed")} == {
        "benchmark": "tracebench", "backend": "oracle", "model": "oracle", "strategy": "cot", "history": "last_k",
        "k": 7, "seed": 0}
    assert len(ident["examples_sha256"]) == 64 and ident["sampling"]["temperature"] == 0.1


def test_builtin_backend_version_is_a_hash_of_their_code():
    from pfc.run.backends import get
    h = hashlib.sha256()  # independent route: the baselines' source files' bytes, in order
    for part in (("run", "backends", "builtin.py"), ("run", "backends", "query_values.py"),
                 ("benchmarks", "ptbench", "baselines.py"), ("render.py",)):
        h.update(paths.LIB.joinpath("pfc", *part).read_bytes())
    assert get("history-prior").version == h.hexdigest()[:16] == get("oracle").version


def test_changed_builtin_code_is_never_answered_from_the_cache(tiny_tracebench, tmp_path, monkeypatch):
    first = go(tiny_tracebench, tmp_path / "a", tmp_path / "c", limit=6)
    assert first["backend_calls"] == 6
    from pfc.run.backends import builtin
    monkeypatch.setattr(builtin, "_code_version", lambda: "edited-code")  # as if builtin.py had changed
    second = go(tiny_tracebench, tmp_path / "b", tmp_path / "c", limit=6)
    assert second["cache_hits"] == 0 and second["backend_calls"] == 6
    monkeypatch.undo()
    third = go(tiny_tracebench, tmp_path / "d", tmp_path / "c", limit=6)
    assert third["cache_hits"] == 6 and third["backend_calls"] == 0


def test_no_cache_neither_reads_nor_writes_the_cache(tiny_tracebench, tmp_path):
    go(tiny_tracebench, tmp_path / "a", tmp_path / "c", limit=4)
    u = go(tiny_tracebench, tmp_path / "b", tmp_path / "c", limit=4, use_cache=False)
    assert u["cache_hits"] == 0 and u["backend_calls"] == 4
    go(tiny_tracebench, tmp_path / "x", tmp_path / "never.sqlite", limit=4, use_cache=False)
    assert not (tmp_path / "never.sqlite").exists()


def test_default_cache_and_runs_live_under_the_output_root_in_tests():
    # trap: tests used to write data/cache, data/runs, figures/ and reports/ inside the repository
    assert paths.OUTPUT_ROOT != paths.ROOT and paths.CACHE.is_relative_to(paths.OUTPUT_ROOT)
    assert paths.RUNS.is_relative_to(paths.OUTPUT_ROOT) and paths.FIGURES.is_relative_to(paths.OUTPUT_ROOT)
    assert paths.output("figures/x") == paths.OUTPUT_ROOT / "figures" / "x"
    assert paths.source("tests/golden") == paths.GOLDEN  # inputs that ship with the repo are read in place


def test_shapes_of_the_three_benchmarks_and_of_predictions(tiny_tracebench, release):
    golden = paths.GOLDEN / "ptbench_official"
    assert looks_like(tiny_tracebench) == looks_like(tiny_tracebench / "examples.jsonl") == "tracebench"
    assert looks_like(golden) == looks_like(golden / "test_trained_user" / "data.json") == "ptbench"
    assert looks_like(golden / "test_trained_user" / "generation.jsonl") == "predictions"
    assert looks_like(release) == looks_like(release / "data" / "dataset_persona.json") == "toolspectrum"
    assert looks_like(release / "api" / "API_description.json") is None  # a tool file: no guess, no false alarm


@pytest.mark.parametrize("part", ["SYSTEM", "record_text", "tool_name"])
def test_tracebench_template_identity_changes_with_what_the_prompt_says(monkeypatch, part):
    """The identity hashes what our TRACEBench wording renders (the instructions, the history record form,
    the tool names), not the module's source: a changed word is a new run, moved code is not."""
    from pfc.benchmarks.tracebench import prompts as tracebench
    before = tracebench.template_identity()
    original = getattr(tracebench, part)
    monkeypatch.setattr(tracebench, part, original + " " if part == "SYSTEM" else lambda *a: original(*a) + "!")
    assert tracebench.template_identity()["sha256"] != before["sha256"]
    monkeypatch.undo()
    assert tracebench.template_identity() == before


def test_rerunning_a_finished_run_leaves_its_config_and_usage_untouched(tiny_tracebench, tmp_path):
    out = tmp_path / "r"
    first = go(tiny_tracebench, out, tmp_path / "c", limit=5)
    before = {f: (out / f).read_bytes() for f in ("config.json", "usage.json", "predictions.jsonl", "run.json")}
    again = go(tiny_tracebench, out, tmp_path / "c", limit=5)
    assert first["written"] == 5 and again["already_done"] == 5 and again["written"] == again["backend_calls"] == 0
    assert {f: (out / f).read_bytes() for f in before} == before


@pytest.mark.parametrize("part", ["SYSTEM", "SYSTEM_PREFIX", "SYSTEM_NO_PERSONAL", "profile_variant"])
def test_ptbench_template_identity_changes_with_what_the_prompt_says(monkeypatch, part):
    """Our PTBench wording is hashed by what it renders under every variant and layout: the prefix layout's
    text and the variants' profile handling count, not only the paper layout's template."""
    from pfc.benchmarks.ptbench import prompts as ptbench
    monkeypatch.delenv("PFC_PTBENCH_DIR", raising=False)
    before = ptbench.template_identity()
    original = getattr(ptbench, part)
    monkeypatch.setattr(ptbench, part, original + " " if isinstance(original, str) else
                        lambda *a: {"changed": original(*a)})
    assert ptbench.template_identity()["sha256"] != before["sha256"]


@pytest.mark.parametrize("part", ["COT_NOTE", "prefix_layout", "dumps"])
def test_toolspectrum_template_identity_changes_with_what_our_code_renders(monkeypatch, part):
    """Besides the release's files, the identity covers what our code adds or rearranges: the CoT note, the
    prefix layout's section order and the JSON form of persona, environment and toolset."""
    from pfc.benchmarks.toolspectrum import prompts as toolspectrum
    before = toolspectrum.template_identity()
    original = getattr(toolspectrum, part)
    monkeypatch.setattr(toolspectrum, part, original + " " if isinstance(original, str) else
                        lambda *a: original(*a) + "\n")
    assert toolspectrum.template_identity()["sha256"] != before["sha256"]


def test_a_history_record_renders_each_value_as_json_writes_it():
    """By hand: strings in JSON quotes with escapes (non-ASCII kept as is), numbers, booleans, null and lists as JSON."""
    from pfc.run.history import record_text
    from pfc.schema import HistoryEntry
    h = HistoryEntry("2024-05-01 08:00", "Maps Pro", "route", {"to": 'Caf\u00e9 "Nord"\n', "n": 2, "x": 1.5, "ok": True,
                                                                  "none": None, "stops": ["a", 3]})
    assert record_text(h) == ('2024-05-01 08:00 Maps_Pro__route(to="Caf\u00e9 \\"Nord\\"\\n", n=2, x=1.5, ok=true, '
                              'none=null, stops=["a", 3])')


@pytest.mark.parametrize("usage", [None, b'{"done": 1, "n_examples": 5}', b"{"])
def test_resuming_a_run_killed_between_its_last_row_and_usage_json_writes_a_finished_usage_json(
        tiny_tracebench, tmp_path, usage):
    """All 5 rows written, then usage.json missing, stale (an earlier invocation's) or torn: the next
    invocation calls nothing and writes a usage.json that says 5 of 5 are done."""
    out = tmp_path / "r"
    go(tiny_tracebench, out, tmp_path / "c", limit=5)
    rows = (out / "predictions.jsonl").read_bytes()
    (out / "usage.json").unlink() if usage is None else (out / "usage.json").write_bytes(usage)
    again = go(tiny_tracebench, out, tmp_path / "c", limit=5)
    written = json.loads((out / "usage.json").read_text())
    assert again["backend_calls"] == again["written"] == 0 and (out / "predictions.jsonl").read_bytes() == rows
    assert (written["done"], written["n_examples"], written["already_done"]) == (5, 5, 5)
