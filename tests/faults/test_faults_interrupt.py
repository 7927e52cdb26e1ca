"""Fault suite: Ctrl-C in a command other than ``pfc run`` is one line saying what was kept and how to go on."""
import signal
import subprocess
import sys
import time

from faultkit import last_line

from pfc import paths


def test_ctrl_c_in_pfc_build_is_one_line_saying_what_was_kept_and_to_rerun(tmp_path):
    out = tmp_path / "b"
    cmd = [sys.executable, "-m", "pfc", "build", "tracebench", "--users", "400", "--out", str(out)]
    # SIGINT at its default in the child, as in a terminal (a backgrounded shell would pass on 'ignored')
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(cmd, cwd=paths.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, before)
    deadline = time.time() + 120
    while time.time() < deadline and not out.exists():
        time.sleep(0.05)
    time.sleep(1.0)  # simulating 400 users takes far longer than this
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)

    class P:
        returncode, stderr = proc.returncode, err
    assert last_line(P, 130) == ("pfc build: interrupted: files it had finished are kept (score and report files "
                                 "are replaced whole or not at all); re-run the same command to finish")
