"""A PTBench build: the synthesis' records on disk, Table 5 statistics, and a build made once per seed and version.

``synthesize`` runs a :class:`~pfc.data.ptool.synthesis.Synthesis`: records in the official ``data.json`` shape
(``user_profile``, ``platforms``, ``tools``, ``query``, ``answer`` = ``[platform, [{function: {param: [values]}}]]``,
``query_params``, ``profile_params``; plus ``id``, ``user_id``, ``scenario``) for the four splits ``train``,
``test_trained_user``, ``test_untrained_user`` and ``unseen`` (PTBench §5.1, Table 5). ``write`` puts them on disk with
the unified schema (``unified/<split>/examples.jsonl``), the feature tree and ``stats.json``; ``train.jsonl`` (chat
messages for SFT, built with the run stage's prompts) is ``pfc.train.sft``.
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc.data.ptool.synthesis import DEFAULT_VERSION, VERSIONS, Synthesis
from pfc.io import atomic
from pfc.benchmarks.ptbench import load_official
from pfc.data.audits import audit
from pfc.data.ptool.overlap import audits as overlap_audits
from pfc.schema import load_examples, write_examples


def synthesize(**options) -> dict:
    """``Synthesis(**options).run()`` (:class:`pfc.data.ptool.synthesis.Synthesis`): every split as
    official-shape records, plus the feature trees and counts."""
    return Synthesis(**options).run()


def split_stats(recs: list[dict]) -> dict:
    scen = {r["scenario"] for r in recs}
    plats = {(r["scenario"], p["name"]) for r in recs for p in r["platforms"]}
    apis = {(r["scenario"], p["name"], t["function"]["name"]) for r in recs for p in r["platforms"] for t in r["tools"]}
    n_q = sum(len(r["query_params"]) for r in recs)
    n_p = sum(len(r["profile_params"]) for r in recs)
    return {"scenarios": len(scen), "platforms": len(plats), "apis": len(apis), "users": len({r["user_id"] for r in recs}),
            "queries": len(recs), "query_params": n_q, "profile_params": n_p,
            "platform_from_query": sum(bool(r.get("platform_from_query")) for r in recs),
            "multi_call": sum(len(r["answer"][1]) > 1 for r in recs)}


def stats(result: dict) -> dict:
    """Table 5 rows (ours): Train, Test (all three test sets), Trained, Untrained, Unseen, Total."""
    sp = result["splits"]
    test = sp["test_trained_user"] + sp["test_untrained_user"] + sp["unseen"]
    rows = {"Train": split_stats(sp["train"]), "Test": split_stats(test),
            "Trained": split_stats(sp["test_trained_user"]), "Untrained": split_stats(sp["test_untrained_user"]),
            "Unseen": split_stats(sp["unseen"]), "Total": split_stats(sp["train"] + test)}
    return {"seed": result["seed"], "synthesis": result.get("synthesis", VERSIONS[1]), "table5": rows,
            "counts": result["counts"]}


def _dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


def write(result: dict, out) -> dict:
    """Official files per split, unified schema, feature trees, ``stats.json`` (``train.jsonl``, the SFT chat
    records, needs the run stage's prompts: ``pfc.train.sft.write_train``)."""
    out = Path(out)
    for split, recs in result["splits"].items():
        d = out / split
        d.mkdir(parents=True, exist_ok=True)
        atomic.write_text(d / "data.json", _dump(recs))
        u = out / "unified" / split
        u.mkdir(parents=True, exist_ok=True)
        write_examples(load_official(d / "data.json"), u / "examples.jsonl")
    atomic.write_text(out / "feature_tree.json", _dump({"seen": result["tree"], "unseen": result["tree_unseen"]}))
    st = stats(result)
    st["overlap"] = overlap_audits(result["splits"])
    unified = {s: load_examples(out / "unified" / s / "examples.jsonl") for s in result["splits"]}
    st["audits"] = {s: audit(unified[s], unified.get("train")) for s in sorted(unified) if s != "train"}
    atomic.write_text(out / "stats.json", _dump(st))
    return st


# the fields ``write`` puts in stats.json: a build whose stats.json lacks one was written by older code
STATS_FIELDS = ("seed", "synthesis", "table5", "counts", "overlap", "audits")


def build_once(out, seed: int = 0, version: int = DEFAULT_VERSION) -> Path:
    """``pfc build ptbench --seed SEED --synthesis VERSION --out OUT`` unless ``OUT/stats.json`` already
    exists and records that synthesis and seed (same seed, same bytes, so an existing build is that build); returns
    ``OUT``. Used by ``make reproduce`` and the real reference runs so both score the same synthesized data. A build of
    another synthesis version or seed in ``OUT`` is refused (one line), never mixed or overwritten; one whose stats.json
    lacks a field of :data:`STATS_FIELDS` (written by older code, before that field) is built again in place, stats.json
    last, saying so on stderr."""
    out = Path(out)
    st = out / "stats.json"
    if st.exists():
        from pfc import paths
        from pfc.errors import UserError, read_json
        have = read_json(st)  # an empty or broken stats.json: one line naming it
        if not isinstance(have, dict):
            raise UserError(f"{paths.relative(st)}: not a stats.json object; remove that directory or build into another")
        synth = have.get("synthesis", VERSIONS[1])
        if synth != VERSIONS[version]:
            raise UserError(f"{paths.relative(st)}: field synthesis: {synth!r} is built there, not "
                            f"{VERSIONS[version]!r}; remove that directory or build into another")
        if have.get("seed", seed) != seed:
            raise UserError(f"{paths.relative(st)}: field seed: {have['seed']!r} is built there, not {seed!r}; "
                            f"remove that directory or build into another")
        missing = [f for f in STATS_FIELDS if f not in have]
        if not missing:
            return out
        import sys
        print(f"{paths.relative(st)}: no field {', '.join(missing)} (built by older code): building "
              f"{VERSIONS[version]} seed {seed} again in place", file=sys.stderr)
    write(synthesize(seed=seed, version=version), out)
    return out
