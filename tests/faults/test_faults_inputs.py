"""Fault suite: corrupt configs, deeply nested prediction files and an unusable --device are one line, exit 2."""
import json

import pytest
from faultkit import last_line, pfc, tree

from pfc.render import render_json
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.schema import load_examples

pytestmark = pytest.mark.slow  # subprocess runs on malformed inputs: not in make test-fast


@pytest.fixture
def oracle_run(bench, tmp_path):
    out = tmp_path / "run"
    execute(RunConfig("tracebench", bench, "oracle", out, limit=3, cache_path=tmp_path / "c.sqlite", progress=False))
    return out


@pytest.mark.parametrize("config, message", [
    ("[1, 2]", "not a run's config.json (expected a JSON object, got list)"),
    ('{"benchmark": "tracebench", "examples": 7}', "field 'examples' missing or not a path"),
    ("[" * 100000 + "]" * 100000, "not a run's config.json (unreadable text or nested too deeply)"),
])
def test_a_config_json_of_the_wrong_shape_is_one_line_naming_it(oracle_run, tmp_path, config, message):
    (oracle_run / "config.json").write_text(config)
    before = tree(oracle_run)
    line = last_line(pfc("report", oracle_run, "--out", tmp_path / "rep", "--n-boot", 10), 2)
    assert f"{oracle_run / 'config.json'}: " in line and message in line
    assert tree(oracle_run) == before


def test_a_deeply_nested_prediction_file_is_one_line_naming_file_and_line(bench, tmp_path):
    ex = load_examples(bench / "examples.jsonl")
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"id": ex[0].id, "output": render_json(ex[0].gold)}) + "\n"
                     + '{"id": "%s", "output": %s}\n' % (ex[1].id, "[" * 100000 + "]" * 100000))
    line = last_line(pfc("score", "--benchmark", "tracebench", "--examples", bench, "--predictions", preds,
                         "--out", tmp_path / "s"), 2)
    assert line == f"pfc score: {preds}:2: JSON nested too deeply to read"
    assert not (tmp_path / "s" / "score.json").exists()


def test_device_cuda_on_a_cpu_build_of_torch_is_refused_before_loading(bench, tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible here")
    model = tmp_path / "model"
    model.mkdir()  # never loaded: the device is checked first
    line = last_line(pfc("run", "--benchmark", "tracebench", "--examples", bench, "--backend", "hf", "--model",
                         model, "--device", "cuda", "--out", tmp_path / "r"), 2)
    why = "this torch is a CPU build" if torch.version.cuda is None else "no CUDA GPU is visible"
    assert line == f"pfc run: --device 'cuda': {why}; use --device cpu"
    assert not (tmp_path / "r").exists()
