"""``pfc export``: Parquet splits + dataset card, loaded with ``datasets`` and converted back to our schema."""
import json
import subprocess
import sys

import datasets  # pinned in requirements.txt
import pytest

from pfc import paths

pytestmark = pytest.mark.slow  # builds two benchmarks, exports and loads them in subprocesses


def pfc(*args):
    return subprocess.run([sys.executable, "-m", "pfc", *args], capture_output=True, text=True, cwd=paths.ROOT,
                          timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Export outputs and the small PTBench; the TRACEBench exported is the shared ``tiny_tracebench``."""
    from pfc.data.ptool.build import synthesize, write
    root = tmp_path_factory.mktemp("hf")
    write(synthesize(seed=0, ks=(2, 2, 2), per_user=5, unseen_ks=(1, 2, 1), unseen_per_user=3, held_out=2), root / "pt")
    return root


def export(built, bench, src):
    out = built / f"hf-{bench}"
    p = pfc("export", "--benchmark", bench, "--examples", str(src), "--out", str(out))
    assert p.returncode == 0, p.stderr
    return out, datasets.load_dataset("parquet", data_dir=str(out), cache_dir=str(built / "hf-cache"))


def test_tracebench_export_round_trips_to_the_same_examples_bytes(built, tiny_tracebench, tmp_path):
    from pfc.integrations.hf_datasets import to_examples
    from pfc.schema import write_examples
    _, ds = export(built, "tracebench", tiny_tracebench)
    assert list(ds) == ["test"]
    write_examples(to_examples(ds["test"]), tmp_path / "back.jsonl")
    assert (tmp_path / "back.jsonl").read_bytes() == (tiny_tracebench / "examples.jsonl").read_bytes()


def test_ptbench_export_has_the_four_splits_and_round_trips_each(built, tmp_path):
    from pfc.integrations.hf_datasets import to_examples
    from pfc.schema import write_examples
    _, ds = export(built, "ptbench", built / "pt")
    assert list(ds) == ["train", "test_trained_user", "test_untrained_user", "unseen"]
    for split in ds:
        write_examples(to_examples(ds[split]), tmp_path / f"{split}.jsonl")
        assert (tmp_path / f"{split}.jsonl").read_bytes() == \
            (built / "pt" / "unified" / split / "examples.jsonl").read_bytes(), split


def test_dataset_card_names_generator_seed_statistics_license_and_scoring(built, tiny_tracebench):
    out, ds = export(built, "tracebench", tiny_tracebench)
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-4.0\n")
    assert "pfc build tracebench --users 2 --seed 1" in card  # the build's users and seed (stats.json)
    assert f"| test | {ds['test'].num_rows} | 0 | 2 |" in card         # examples, refusals, users
    assert "pfc score --benchmark tracebench" in card
    assert (out / "tools.json").read_bytes() == (tiny_tracebench / "tools.json").read_bytes()
    assert str(paths.ROOT) not in card and str(built) not in card and str(tiny_tracebench) not in card


def test_plain_columns_match_the_nested_fields(built, tiny_tracebench):
    _, ds = export(built, "tracebench", tiny_tracebench)
    row = ds["test"][0]
    assert row["n_history"] == len(json.loads(row["history"]))
    assert row["is_refusal"] == (json.loads(row["gold"]) is None)


def test_toolspectrum_release_is_refused_in_one_line_exit_2(tmp_path):
    p = pfc("export", "--benchmark", "toolspectrum", "--examples", str(tmp_path), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == ["pfc export: the ToolSpectrum release is third-party data and is never "
                                             "exported (export tracebench or ptbench)"]
    assert not (tmp_path / "o").exists()


def test_examples_of_another_benchmark_are_refused_naming_file_and_record(tiny_tracebench, tmp_path):
    p = pfc("export", "--benchmark", "ptbench", "--examples", str(tiny_tracebench), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    line = p.stderr.strip()
    assert "\n" not in line and "examples.jsonl: record" in line and "field 'benchmark'" in line
