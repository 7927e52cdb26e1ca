"""Fault suite: one writer per directory (pfc.io.lock) with processes really racing, and kill -9."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pfc import paths
from pfc.io.lock import LOCK_NAME, DirBusy, read_holder, writer_lock

ENV = {**os.environ, "PYTHONPATH": str(paths.ROOT / "lib")}

# Each child waits for the start file, then tries to take the lock and, if it gets it, appends 20 rows
# tagged with its name (slowly, so the other one races it); refused: prints the one-line error, exit 2.
RACER = """
import os, sys, time
from pathlib import Path
from pfc.io.lock import writer_lock, DirBusy
d, name, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
while not go.exists():
    time.sleep(0.001)
try:
    with writer_lock(d, "run directory"):
        with open(d / "rows.txt", "a") as fh:
            for i in range(20):
                fh.write(f"{name} {i}\\n"); fh.flush(); time.sleep(0.01)
except DirBusy as e:
    print(e, file=sys.stderr); sys.exit(2)
"""


def _spawn(code, *args):
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_racing_processes_one_writes_the_other_is_refused_naming_the_holder(tmp_path):
    d, go = tmp_path / "run", tmp_path / "go"
    procs = [_spawn(RACER, d, name, go) for name in ("A", "B")]
    time.sleep(0.5)  # both interpreters up and polling
    go.touch()
    results = [(p.wait(30), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2]
    winner = "AB"[[c for c, _ in results].index(0)]
    loser_err = next(err for code, err in results if code == 2)
    assert "another writer holds this run directory (pid " in loser_err
    assert f"pid {procs['AB'.index(winner)].pid} on " in loser_err
    rows = (d / "rows.txt").read_text().splitlines()
    assert rows == [f"{winner} {i}" for i in range(20)]  # one writer's rows, none of the other's


def test_a_lock_held_by_a_process_killed_with_sigkill_is_free_and_its_record_reported_stale(tmp_path):
    d = tmp_path / "run"
    holder = _spawn("import sys, time; from pfc.io.lock import writer_lock\n"
                    "with writer_lock(sys.argv[1]):\n print('held', flush=True); time.sleep(60)", d)
    assert holder.stdout.readline().strip() == "held"
    assert read_holder(d).startswith(f"pid {holder.pid} on ")
    with pytest.raises(DirBusy):
        with writer_lock(d):
            pass
    holder.send_signal(signal.SIGKILL)
    holder.wait(10)
    with writer_lock(d) as info:
        assert info.stale.startswith(f"pid {holder.pid} on ")
        assert read_holder(d).startswith(f"pid {os.getpid()} on ")


def test_a_clean_release_leaves_the_lock_file_empty_and_the_next_writer_sees_no_stale_record(tmp_path):
    with writer_lock(tmp_path):
        pass
    assert (tmp_path / LOCK_NAME).read_text() == ""
    with writer_lock(tmp_path) as info:
        assert info.stale is None


def test_a_second_lock_in_the_same_process_is_refused(tmp_path):
    with writer_lock(tmp_path):
        with pytest.raises(DirBusy, match=r"holds this score directory \(pid %d on " % os.getpid()):
            with writer_lock(tmp_path, "score directory"):
                pass


def test_an_uncreatable_lock_directory_is_one_line_naming_it(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(Exception, match=r"f/run: cannot create the run directory's lock file: Not a directory") as e:
        with writer_lock(tmp_path / "f" / "run", "run directory"):
            pass
    assert "\n" not in str(e.value)


def test_a_refusal_in_the_instant_before_the_holder_writes_its_line_still_names_the_holder(tmp_path):
    # the holder has taken the flock but not yet written its line (the window CI hit): the refusal waits for it
    import fcntl
    import threading
    d = tmp_path / "run"
    d.mkdir()
    fh = open(d / LOCK_NAME, "a+", encoding="utf-8")
    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    late = threading.Timer(0.2, lambda: (fh.write("pid 4242 on elsewhere since now: pfc run\n"), fh.flush()))
    late.start()
    try:
        with pytest.raises(DirBusy, match=r"\(pid 4242 on elsewhere since now: pfc run\)"):
            with writer_lock(d, "run directory"):
                pass
    finally:
        late.join()
        fh.close()
