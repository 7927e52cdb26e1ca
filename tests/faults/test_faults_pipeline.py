"""Fault suite: the pipeline (``make reproduce``): one per checkout, bad options and state refused up front."""
import json
import os
import subprocess
import sys

import pytest
from faultkit import last_line

from pfc import paths
from pfc.errors import UserError
from pfc.io.lock import writer_lock
from pfc.report.pipeline import PIPELINE_LOCK, Step, reproduce


def pipeline(tmp_path, *args):
    env = {**os.environ, "PFC_OUTPUT_ROOT": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "pfc.report.pipeline", *args], cwd=paths.ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_second_reproduce_in_one_checkout_is_refused_naming_the_first(tmp_path):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "pipeline.json").write_text('{"build": "k"}\n')
    with writer_lock(tmp_path / "reports", "checkout's pipeline", "make reproduce", name=PIPELINE_LOCK):
        p = pipeline(tmp_path, "--real-model", "none", "--leave-out", "toolspectrum")
    line = last_line(p, 2)
    assert line.startswith(f"reproduce: {tmp_path}/reports: another writer holds this checkout's pipeline "
                           f"(pid {os.getpid()} on ")
    assert (tmp_path / "reports" / "pipeline.json").read_text() == '{"build": "k"}\n'


def test_a_negative_n_boot_is_refused_before_any_step(tmp_path):
    p = pipeline(tmp_path, "--n-boot", "-5")
    assert last_line(p, 2).endswith("argument --n-boot: expected an integer >= 1, got -5")
    assert not (tmp_path / "reports").exists()


def test_a_pipeline_state_of_the_wrong_shape_is_one_line_and_left_alone(tmp_path):
    state = tmp_path / "pipeline.json"
    state.write_text("[1, 2]\n")
    ran = []
    with pytest.raises(UserError) as e:
        reproduce([Step("a", None, fn=lambda: ran.append(1))], log=lambda *a, **k: None, state_path=state)
    assert str(e.value) == f"{paths.relative(state)}: not a pipeline state (expected a JSON object); delete it to run every step"
    assert ran == [] and state.read_text() == "[1, 2]\n"


def test_an_interrupted_pipeline_keeps_the_steps_that_finished(tmp_path):
    state = tmp_path / "pipeline.json"

    def stop():
        raise KeyboardInterrupt
    try:
        reproduce([Step("a", None, fn=lambda: None), Step("b", None, fn=stop)], log=lambda *a, **k: None,
                  state_path=state)
    except KeyboardInterrupt:
        pass
    assert list(json.loads(state.read_text())) == ["a"]
    assert reproduce([Step("a", None, fn=lambda: None)], log=lambda *a, **k: None,
                     state_path=state)[0]["status"] == "skipped (inputs unchanged)"


def test_a_real_model_that_is_not_a_model_directory_is_refused_before_step_one(tmp_path):
    p = pipeline(tmp_path, "--real-model", tmp_path / "nonexistent")
    line = last_line(p, 2)
    assert "nonexistent: not a model directory (no config.json)" in line
    assert not (tmp_path / "reports" / "pipeline.json").exists() and not (tmp_path / "data").exists()
