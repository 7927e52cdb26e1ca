"""PTBench prompts (official from PFC_PTBENCH_DIR, own fallback, ablation variants), the built-in
baselines on PTBench-format data, and the LLM hooks of the synthesis (scripted chat functions)."""
import json

import pytest

from pfc.errors import UserError
from pfc.benchmarks.ptbench import load_official
from pfc.benchmarks.ptbench import prompts as pp
from pfc.data.ptool.build import synthesize, write
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.eval.scoring import score_files

# Our own stand-in for a PTBench checkout's src/template.py: same structure (string constants
# `prompt` and `format`, plus code that must never run), different words.
FAKE_TEMPLATE = '''
import os
prompt = """PROFILE={profile}\\nPLATFORMS={platforms}\\nAPIS={tools}\\nANSWER AS {format}"""
format = "p:[f(a=1)]"
os.system("echo this must never run")
'''


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    out = tmp_path_factory.mktemp("ptb")
    write(synthesize(seed=11, ks=(2, 2, 3), per_user=10, unseen_ks=(1, 1, 1), unseen_per_user=2, held_out=3), out)
    return out


@pytest.fixture
def example(data):
    return load_official(data / "test_untrained_user" / "data.json")[0]


def test_variants_drop_exactly_their_profile_parts(example, monkeypatch):
    monkeypatch.delenv("PFC_PTBENCH_DIR", raising=False)
    basic = json.dumps(example.profile["basic_features"]["address"])[1:-1]
    action = example.profile["user_history"][next(iter(example.profile["user_history"]))][0]["action"]
    texts = {v: pp.build(example, variant=v).messages[0]["content"] for v in pp.VARIANTS}
    assert basic in texts["all"] and action in texts["all"]
    assert basic not in texts["no_basic"] and action in texts["no_basic"]
    assert basic in texts["no_history"] and action not in texts["no_history"]
    assert basic not in texts["no_basic_history"] and action not in texts["no_basic_history"]
    assert basic not in texts["no_personal"] and action not in texts["no_personal"]
    assert "user profile" not in texts["no_personal"].lower()


def test_unknown_variant_is_refused(example):
    with pytest.raises(UserError, match="variant"):
        pp.build(example, variant="no_everything")


def test_official_prompt_is_read_from_the_checkout_never_executed(example, tmp_path, monkeypatch, capfd):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "template.py").write_text(FAKE_TEMPLATE)
    monkeypatch.setenv("PFC_PTBENCH_DIR", str(tmp_path))
    p = pp.build(example)
    text = p.messages[0]["content"]
    assert text.startswith("PROFILE={'basic_features'")  # Python repr, as the published str.format gives
    assert "ANSWER AS p:[f(a=1)]" in text and p.meta["wording"] == "official"
    assert "never run" not in capfd.readouterr().out
    assert pp.build(example, wording="own").messages[0]["content"].startswith("You act for a user")


def test_official_wording_without_a_checkout_is_a_clear_error(example, monkeypatch):
    monkeypatch.delenv("PFC_PTBENCH_DIR", raising=False)
    with pytest.raises(pp.OfficialPromptError, match="PFC_PTBENCH_DIR"):
        pp.build(example, wording="official")


def test_checkout_without_the_prompt_constants_is_a_clear_error(example, tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "template.py").write_text("x = 1\n")
    monkeypatch.setenv("PFC_PTBENCH_DIR", str(tmp_path))
    with pytest.raises(pp.OfficialPromptError, match="template.py"):
        pp.build(example)


def test_prompt_variant_is_refused_for_other_benchmarks(tmp_path):
    from pfc.run.config import check_prompt_variant
    with pytest.raises(UserError, match="applies to tracebench, ptbench only"):
        check_prompt_variant("toolspectrum", "no_history")
    with pytest.raises(UserError, match=r"expected one of \('all', .*'ask', 'ask-followup'\)"):  # the axes', then issue 64's
        check_prompt_variant("tracebench", "no_history")


def _score(data, backend, tmp_path, split="test_untrained_user"):
    f = data / split / "data.json"
    execute(RunConfig("ptbench", f, backend, tmp_path / backend, cache_path=tmp_path / "c.sqlite", progress=False))
    return score_files("ptbench", f, tmp_path / backend / "predictions.jsonl").metrics


def test_every_builtin_baseline_answers_every_ptbench_example(data, tmp_path):
    n = len(json.loads((data / "test_untrained_user" / "data.json").read_text()))
    for b in ("oracle", "random", "history-prior", "no-history"):
        m = _score(data, b, tmp_path)
        assert m["format"] == 1.0, b
        assert len((tmp_path / b / "predictions.jsonl").read_text().splitlines()) == n
    assert _score(data, "oracle", tmp_path)["overall"] == 1.0


def test_history_helps_the_platform_choice(data, tmp_path):
    # the preferred platform is only visible through the behaviour history
    hp, nh = _score(data, "history-prior", tmp_path), _score(data, "no-history", tmp_path)
    assert hp["platforms"] > nh["platforms"] + 0.2
    assert hp["profile_params"] > nh["profile_params"]


def test_random_baseline_is_seeded_per_example(data, tmp_path):
    a = _score(data, "random", tmp_path)
    b = _score(data, "random", tmp_path / "again")
    assert a == b


# ------------------------------------------------------------------ LLM hooks (scripted chat)
class Script:
    """A chat function that answers by prompt kind and records what it was asked."""

    def __init__(self, verdict="yes", rewrite=None, leak=False):
        self.calls, self.verdict, self.rewrite, self.leak = [], verdict, rewrite, leak

    def __call__(self, messages):
        text = messages[-1]["content"]
        self.calls.append(text)
        if text.startswith("Rewrite this request"):
            req = text.split("Request: ", 1)[1].split("\nAnswer with", 1)[0]
            name = text.split("the way ", 1)[1].split(" (", 1)[0]
            return f"Hi! {req} I am {name}." if self.leak else f"Hi! {req}"
        if text.startswith("These user-profile attributes"):
            return "Shopping habits"
        if "Answer yes or no" in text:
            return self.verdict
        if text.startswith("You design APIs"):
            return json.dumps([{"name": "giftCard", "description": "Buy a gift card.",
                                "params": [["amount", "integer", "query", "Value.", "amount"]],
                                "templates": ["Buy a gift card worth {amount}."]},
                               {"name": "bad name", "params": []}])
        return "I cannot help."  # assistant agent: unparsable -> the template solution is kept


SMALL = dict(seed=4, ks=(1, 2, 2), per_user=5, unseen_ks=(1, 1, 1), unseen_per_user=2, held_out=1)


def test_llm_rewrites_are_kept_when_they_state_every_value():
    chat = Script()
    r = synthesize(**SMALL, chat=chat)
    queries = [x["query"] for s in r["splits"].values() for x in s]
    assert queries and all(q.startswith("Hi! ") for q in queries)
    assert any(c.startswith("You are the assistant") for c in chat.calls)  # assistant agent consulted


def test_llm_rewrites_that_leak_the_profile_are_rejected():
    r = synthesize(**SMALL, chat=Script(leak=True))
    assert not any(x["query"].startswith("Hi! ") for s in r["splits"].values() for x in s)


def test_model_based_verification_drops_rejected_solutions():
    r = synthesize(**SMALL, chat=Script(verdict="No, the platform is wrong."), llm_verify=True)
    assert sum(len(s) for s in r["splits"].values()) == 0 and r["counts"]["rejected_model"] > 0


def test_llm_tool_expansion_keeps_only_valid_apis():
    r = synthesize(**SMALL, chat=Script(), expand_tools=2, version=1)  # expansion works on the v1 catalogue
    assert r["counts"]["llm_tools"] == 8  # one valid API per scenario; the malformed one is dropped
    assert r["tree"]["basic_features"] and r["tree"]["implicit_preferences"][0]["summary"] == "Shopping habits"


def test_build_with_a_builtin_llm_backend_falls_back_to_templates(tmp_path):
    # a backend that cannot chat (the oracle needs an example) must not break synthesis
    import subprocess
    import sys
    from pfc import paths
    p = subprocess.run([sys.executable, "-m", "pfc", "build", "ptbench", "--ks", "1,1,2", "--per-user", "3",
                        "--held-out", "1", "--llm-backend", "oracle", "--out", str(tmp_path)],
                       capture_output=True, text=True, cwd=paths.ROOT)
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "test_untrained_user" / "data.json").read_text())
