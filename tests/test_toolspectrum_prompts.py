"""ToolSpectrum prompts on the real release: faithful filling, every strategy, demonstrations."""
import json

import pytest

from pfc.benchmarks import toolspectrum as ts
from pfc.run.prompts import STRATEGIES
from pfc.benchmarks.toolspectrum.prompts import FILES, ToolSpectrumPrompter

SUBSET_FILE = {"profile": "dataset_persona", "environment": "dataset_environment", "both": "dataset_persona_environment"}


@pytest.fixture(scope="module")
def loaded(release):
    return {s: ts.load(release / "data" / f"{f}.json") for s, f in SUBSET_FILE.items()}


@pytest.mark.parametrize("subset", SUBSET_FILE)
def test_faithful_prompt_equals_template_filled_by_hand(release, loaded, subset):
    examples, _ = loaded[subset]
    ex = examples[3]
    tpl_name, api_name = FILES[subset]
    template = (release / "prompts" / tpl_name).read_text(encoding="utf-8")
    raw = json.loads((release / "data" / f"{SUBSET_FILE[subset]}.json").read_text())[3]
    toolset = json.loads((release / "api" / api_name).read_text())
    dump = lambda v: json.dumps(v, ensure_ascii=False, indent=4)  # noqa: E731
    want = (template.replace("<INSTRUCTION_PLACEHOLDER>", raw["instruction"])
            .replace("<PERSONA_PLACEHOLDER>", dump(raw.get("persona")))
            .replace("<ENVIRONMENT_PLACEHOLDER>", dump(raw.get("environment")))
            .replace("<TOOLSET_PLACEHOLDER>", dump(toolset)))
    got = ToolSpectrumPrompter.from_release(release, subset).build(ex, "zero_shot")
    assert got.messages == [{"role": "user", "content": want}]


@pytest.mark.parametrize("subset", SUBSET_FILE)
def test_every_strategy_renders_every_sample(release, loaded, subset):
    examples, _ = loaded[subset]
    p = ToolSpectrumPrompter.from_release(release, subset, pool=examples, k=2, seed=1)
    for ex in examples:
        for strategy in STRATEGIES:
            pr = p.build(ex, strategy, domain=ex.meta.get("domain") or "Shopping")
            assert ex.query in pr.text and "PLACEHOLDER>" not in pr.text
        assert ex.query in p.domain_prompt(ex).text


def test_few_shot_never_shows_the_sample_or_its_instruction_and_is_seeded(release, loaded):
    examples, _ = loaded["profile"]
    p = ToolSpectrumPrompter.from_release(release, "profile", pool=examples, k=3, seed=7)
    for ex in examples[:100]:
        ids = p.build(ex, "few_shot").meta["demonstrations"]
        assert len(ids) == 3 and ex.id not in ids
        by_id = {e.id: e for e in examples}
        # trap: the release repeats instructions across records; a demo with the same one leaks the answer
        assert all(by_id[i].query.strip() != ex.query.strip() for i in ids)
    again = ToolSpectrumPrompter.from_release(release, "profile", pool=examples, k=3, seed=7)
    other = ToolSpectrumPrompter.from_release(release, "profile", pool=examples, k=3, seed=8)
    same = [p.build(e, "few_shot").meta["demonstrations"] for e in examples[:20]]
    assert same == [again.build(e, "few_shot").meta["demonstrations"] for e in examples[:20]]
    assert same != [other.build(e, "few_shot").meta["demonstrations"] for e in examples[:20]]


def test_hierarchical_step_two_shows_only_the_domain_apps(release, loaded):
    examples, tools = loaded["both"]
    p = ToolSpectrumPrompter.from_release(release, "both")
    assert len(p.domain_prompt(examples[0]).meta["domains"]) == 9
    pr = p.build(examples[0], "hierarchical", domain="Travel")
    assert pr.meta["apps"] == ["Baidu_Maps", "Ctrip", "Didi_Chuxing"]
    assert '"Tmall"' not in pr.text and '"Ctrip"' in pr.text


def test_domain_answer_parsing(release):
    p = ToolSpectrumPrompter.from_release(release, "profile")
    assert p.parse_domain("<think>maybe travel?</think> The domain is Grocery.") == "Grocery"
    assert p.parse_domain("news") == "News" and p.parse_domain("no idea") is None and p.parse_domain(None) is None


def test_clean_option_removes_the_stray_file_name(release, loaded):
    ex = loaded["profile"][0][0]
    assert "prompt_call_api_persona.txt" in ToolSpectrumPrompter.from_release(release, "profile").build(ex).text
    assert "prompt_call_api_persona.txt" not in ToolSpectrumPrompter.from_release(release, "profile", clean=True).build(ex).text


def test_own_worded_prompt_without_release(loaded):
    examples, tools = loaded["both"]
    p = ToolSpectrumPrompter("both", tools)  # no release directory: our own wording, toolset from specs
    text = p.build(examples[0]).text
    assert not p.faithful and examples[0].query in text and "## Environment" in text and "## User Persona" in text
    assert "I will provide you with user instructions" not in text  # none of the release's wording
    assert json.loads(text[text.index("## Toolset") + 11: text.index("### Output")])["Ctrip"]["APIs"]["bookTicket"]


def test_domain_answer_naming_an_app_reads_as_its_domain(release):
    # trap: a model answers with the app it would use ("Ctrip") rather than the domain's name
    p = ToolSpectrumPrompter.from_release(release, "profile")
    assert p.parse_domain("I would use Ctrip for this.") == "Travel"


def test_domain_answer_fitness_reads_as_health_by_word_overlap(release):
    # trap: Qwen2.5-Coder-0.5B answered "Fitness" (a real step-1 answer, reports/real_models.md);
    # no domain is called that, but Health's Keep app is "A popular fitness app for younger users"
    p = ToolSpectrumPrompter.from_release(release, "profile")
    assert p.parse_domain("Fitness") == "Health"
