"""Prompt layouts (pfc.run.prompts.LAYOUTS): ``paper`` keeps the published bytes, ``prefix`` puts the
invariant parts first with the same content; the layout is part of a run's identity and config."""
import json

import pytest

from pfc.benchmarks import toolspectrum as ts
from pfc.data.ptool.build import synthesize, write
from pfc.errors import UserError
from pfc.benchmarks.ptbench import load_official
from pfc.benchmarks.ptbench import prompts as pp
from pfc.benchmarks.toolspectrum.prompts import ToolSpectrumPrompter
from pfc.run.config import RunConfig
from pfc.run.runner import execute


@pytest.fixture(scope="module")
def both(release):
    exs, tools = ts.load(release / "data" / "dataset_persona_environment.json")
    return exs, tools


def _prompter(release, layout):
    return ToolSpectrumPrompter.from_release(release, "both", clean=True) if layout == "paper" else \
        ToolSpectrumPrompter("both", [], release, clean=True, layout=layout)


def test_toolspectrum_prefix_layout_puts_the_toolset_first_and_the_instruction_last(release, both):
    exs, _ = both
    text = ToolSpectrumPrompter("both", [], release, clean=True, layout="prefix").build(exs[0]).messages[0]["content"]
    heads = [text.index(h) for h in ("### Input", "## Toolset", "## User Persona", "## Environment",
                                     "## User Instruction", "### Output")]
    assert heads == sorted(heads)
    assert text.index(exs[0].query) > text.index("## User Instruction")


def test_toolspectrum_prefix_layout_has_the_same_lines_as_the_paper_layout(release, both):
    exs, _ = both
    paper = ToolSpectrumPrompter("both", [], release, clean=True).build(exs[5]).messages[0]["content"]
    prefix = ToolSpectrumPrompter("both", [], release, clean=True, layout="prefix").build(exs[5]).messages[0]["content"]
    assert paper != prefix
    assert sorted(x for x in paper.splitlines() if x.strip()) == sorted(x for x in prefix.splitlines() if x.strip())


def test_toolspectrum_prefix_prompts_of_a_subset_share_the_toolset_as_prefix(release, both):
    exs, _ = both
    p = ToolSpectrumPrompter("both", [], release, clean=True, layout="prefix")
    a, b = (p.build(e).messages[0]["content"] for e in exs[:2])
    shared = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
    assert shared > a.index("## User Persona")  # everything up to the persona section is shared


@pytest.fixture(scope="module")
def pt_example(tmp_path_factory):
    out = tmp_path_factory.mktemp("ptb")
    write(synthesize(seed=11, ks=(2, 2, 3), per_user=10, unseen_ks=(1, 1, 1), unseen_per_user=2, held_out=3), out)
    return load_official(out / "test_untrained_user" / "data.json")[0]


def test_ptbench_prefix_layout_moves_the_profile_after_the_apis(pt_example, monkeypatch):
    monkeypatch.delenv("PFC_PTBENCH_DIR", raising=False)
    text = pp.system_prompt(pt_example, wording="own", layout="prefix")
    profile = json.dumps(pt_example.profile, ensure_ascii=False)
    assert text.endswith("User profile:\n" + profile)
    assert text.index("APIs of the platforms:") < text.index(profile)
    assert pp.system_prompt(pt_example, wording="own") == pp.SYSTEM.format(
        profile=profile, platforms=json.dumps(pt_example.meta["platforms"], ensure_ascii=False),
        tools=json.dumps(pt_example.meta["official_tools"], ensure_ascii=False))


def test_unknown_layout_is_refused(pt_example):
    with pytest.raises(UserError, match="unknown prompt layout 'compact'"):
        pp.system_prompt(pt_example, wording="own", layout="compact")


@pytest.fixture
def tb(tiny_tracebench):
    return tiny_tracebench  # the shared tiny TRACEBench (tests/conftest.py): runs only read it


def test_layout_is_recorded_and_resuming_with_another_layout_is_refused(tb, tmp_path):
    execute(RunConfig("tracebench", tb, "oracle", tmp_path / "r", cache_path=tmp_path / "c", progress=False, limit=3,
        layout="prefix"))
    assert json.loads((tmp_path / "r" / "run.json").read_text())["identity"]["layout"] == "prefix"
    assert json.loads((tmp_path / "r" / "config.json").read_text())["layout"] == "prefix"
    with pytest.raises(UserError, match=r'layout: "prefix" -> \(absent\)'):
        execute(RunConfig("tracebench", tb, "oracle", tmp_path / "r", cache_path=tmp_path / "c", progress=False, limit=3))


def test_paper_layout_keeps_the_identity_of_runs_made_before_layouts(tb, tmp_path):
    execute(RunConfig("tracebench", tb, "oracle", tmp_path / "r", cache_path=tmp_path / "c", progress=False, limit=3))
    assert "layout" not in json.loads((tmp_path / "r" / "run.json").read_text())["identity"]
