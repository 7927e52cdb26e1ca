"""PTool synthesis (PTBench §4) and `pfc build ptbench`: shape, determinism, split, validation, scoring.

Golden facts come from the paper's definitions (N = prod k_l, held-out users, bracket
format) or from an independent route (the published loader's field accesses, reimplemented
below from its source; the official-compat scorer), never from the synthesizer itself.
"""
import hashlib
import json
import os
import subprocess
import sys

import pytest

from pfc import paths
from pfc.data.ptool import agents, catalogue, features, profiles
from pfc.data.ptool.build import synthesize, write
from pfc.data.ptool.synthesis import SPLITS
from pfc.eval.scoring import score_files

SMALL = dict(seed=5, ks=(2, 2, 3), per_user=12, unseen_ks=(1, 2, 1), unseen_per_user=4, held_out=2)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("ptb")
    result = synthesize(**SMALL)
    stats = write(result, out)
    return out, result, stats


def _records(out, split):
    return json.loads((out / split / "data.json").read_text())


def test_profiles_are_the_product_of_the_level_sizes_and_distinct():
    cat = catalogue.load()
    users = profiles.assign(cat, features.build_tree(cat), (2, 3, 4), seed=1)
    assert len(users) == 2 * 3 * 4  # PTBench §4.2: N = prod k_l
    assert len({u.key for u in users}) == len(users)
    assert len({u.basic["name"] for u in users}) == len(users)


def test_feature_tree_separates_basic_facts_from_enumerated_preferences():
    tree = features.build_tree(catalogue.load())
    assert all(lf.enum is None and lf.basic_key for f in tree.basic for lf in f.leaves)
    assert all(lf.enum for f in tree.implicit for lf in f.leaves)
    names = [lf.name for f in tree.basic + tree.implicit for lf in f.leaves]
    assert len(names) == len(set(names))  # each leaf sits under exactly one feature
    assert "shipping_address" in names and "seat_class" in names


def test_published_loader_accepts_every_split(built):
    # trap: the published run.py reads data["user_profile"|"platforms"|"tools"|"query"] for the
    # prompt and real[i]["answer"|"query_params"|"profile_params"] for scoring, answer as
    # [platform, [{function: {param: [values]}}]]
    out, _, _ = built
    for split in SPLITS:
        recs = _records(out, split)
        assert isinstance(recs, list) and recs
        for r in recs:
            for key in ("user_profile", "platforms", "tools", "query", "answer", "query_params", "profile_params"):
                assert key in r, (split, key)
            platform, funcs = r["answer"]
            assert isinstance(platform, str) and isinstance(funcs, list) and funcs
            for f in funcs:
                (name, params), = f.items()
                assert all(isinstance(v, list) and v for v in params.values())
            assert "{profile}".format(profile=r["user_profile"])  # str.format of the raw objects works


def test_implicit_preferences_are_hidden_but_shown_by_the_history(built):
    out, _, _ = built
    for r in _records(out, "test_untrained_user"):
        assert set(r["user_profile"]) == {"basic_features", "user_history"}
        history = " ".join(h["action"].lower() for v in r["user_profile"]["user_history"].values() for h in v)
        basic = {str(v).lower() for v in r["user_profile"]["basic_features"].values()}
        for f in r["answer"][1]:
            for p, vals in next(iter(f.values())).items():
                if p in r["profile_params"]:
                    v = vals[0]
                    shown = "yes" if v is True else "no" if v is False else str(v).replace("_", " ").lower()
                    assert shown in history or shown in basic, (r["id"], p, v)


def test_query_values_are_stated_and_profile_values_are_not(built):
    out, _, _ = built
    for r in _records(out, "train"):
        q = r["query"].lower()
        for f in r["answer"][1]:
            for p, vals in next(iter(f.values())).items():
                if p in r["query_params"]:
                    assert str(vals[0]).lower() in q
                elif isinstance(vals[0], str) and p not in r["query_params"]:
                    assert vals[0].lower() not in q or len(vals[0]) <= 3, (r["id"], p)


def test_split_holds_out_users_and_samples_trained_queries(built):
    out, result, _ = built
    train_users = {r["user_id"] for r in _records(out, "train")}
    untrained = {r["user_id"] for r in _records(out, "test_untrained_user")}
    trained = {r["user_id"] for r in _records(out, "test_trained_user")}
    assert len(untrained) == SMALL["held_out"] and not untrained & train_users
    assert trained <= train_users
    unseen = _records(out, "unseen")
    assert {r["scenario"] for r in unseen} == {"finance", "lifestyle", "knowledge"}
    assert not {r["scenario"] for r in unseen} & {r["scenario"] for r in _records(out, "train")}


def test_trained_test_share_is_about_six_percent():
    r = synthesize(seed=2, ks=(2, 2, 4), per_user=60, unseen_ks=(1, 1, 1), unseen_per_user=1, held_out=2)
    n_tr, n_train = len(r["splits"]["test_trained_user"]), len(r["splits"]["train"])
    assert 0.03 < n_tr / (n_tr + n_train) < 0.10  # PTBench §5.1: "about 6% queries of another 74 users"


def test_table5_counts_match_the_files(built):
    out, _, stats = built
    rows = stats["table5"]
    for split, row in (("train", "Train"), ("test_trained_user", "Trained"),
                       ("test_untrained_user", "Untrained"), ("unseen", "Unseen")):
        recs = _records(out, split)
        assert rows[row]["queries"] == len(recs)
        assert rows[row]["users"] == len({r["user_id"] for r in recs})
    assert rows["Unseen"]["scenarios"] == 3 and rows["Train"]["scenarios"] == 5
    assert rows["Train"]["platforms"] == 15  # 3 platforms per seen scenario (PTBench §5.1)


@pytest.mark.parametrize("compat", [None, "official"])
def test_oracle_bracket_outputs_score_one_in_both_modes(built, tmp_path, compat):
    out, _, _ = built
    from pfc.train.sft import answer_text
    for split in ("test_trained_user", "test_untrained_user"):
        d = tmp_path / split
        d.mkdir()
        with (d / "generation.jsonl").open("w") as fh:  # the official generation.jsonl shape
            for r in _records(out, split):
                fh.write(json.dumps({"query": r["query"], "label": r["answer"], "predict": answer_text(r["answer"])}) + "\n")
    split_dir = tmp_path / "data"
    for split in ("test_trained_user", "test_untrained_user"):
        (split_dir / split).mkdir(parents=True)
        (split_dir / split / "data.json").write_text((out / split / "data.json").read_text())
    rep = score_files("ptbench", split_dir, tmp_path, compat=compat)
    assert rep.metrics["overall"] == 1.0 and rep.metrics["format"] == 1.0
    assert rep.metrics["profile_params"] == 1.0 and rep.metrics["query_params"] == 1.0


def _digest(d):
    h = hashlib.sha256()
    for p in sorted(d.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(d)).encode() + p.read_bytes())
    return h.hexdigest()


@pytest.mark.slow
def test_same_seed_same_bytes_under_any_hash_seed(tmp_path):
    # trap: set/dict iteration over strings depends on PYTHONHASHSEED
    for hs in ("1", "271"):
        env = {**os.environ, "PYTHONHASHSEED": hs}
        cmd = [sys.executable, "-m", "pfc", "build", "ptbench", "--seed", "3", "--ks", "1,2,2", "--per-user", "6",
               "--held-out", "1", "--out", str(tmp_path / hs)]
        subprocess.run(cmd, check=True, env=env, capture_output=True, cwd=paths.ROOT)
    assert _digest(tmp_path / "1") == _digest(tmp_path / "271")


def test_bad_level_sizes_exit_2_with_one_line(tmp_path):
    p = subprocess.run([sys.executable, "-m", "pfc", "build", "ptbench", "--ks", "2,2", "--out", str(tmp_path)],
                       capture_output=True, text=True, cwd=paths.ROOT)
    assert p.returncode == 2 and "--ks" in p.stderr and "Traceback" not in p.stderr


SPECS = {"buy": {"item": {"type": "string"}, "n": {"type": "integer"}, "mode": {"type": "string", "enum": ["a", "b"]}}}


def test_validation_flags_a_hallucinated_tool():
    assert any("hallucinated tool" in p for p in agents.validate(["P", [{"sell": {"item": ["x"]}}]], SPECS, ["P"]))


def test_validation_flags_a_hallucinated_parameter():
    ans = ["P", [{"buy": {"item": ["x"], "n": [1], "mode": ["a"], "colour": ["red"]}}]]
    assert any("hallucinated parameter" in p for p in agents.validate(ans, SPECS, ["P"]))


def test_validation_flags_a_hallucinated_platform():
    assert any("platform" in p for p in agents.validate(["Q", [{"buy": {"item": ["x"], "n": [1], "mode": ["a"]}}]],
                                                        SPECS, ["P"]))


def test_validation_flags_wrong_type_enum_and_missing_parameter():
    probs = agents.validate(["P", [{"buy": {"item": [3], "mode": ["c"]}}]], SPECS, ["P"])
    assert any("not string" in p for p in probs) and any("not in" in p for p in probs)
    assert any("missing parameter 'n'" in p for p in probs)


def test_validation_accepts_a_correct_answer():
    assert agents.validate(["P", [{"buy": {"item": ["x"], "n": [2], "mode": ["b"]}}]], SPECS, ["P"]) == []
