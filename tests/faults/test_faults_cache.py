"""Fault suite: the response cache with several writer processes at once, and killed mid-write."""
import os
import signal
import subprocess
import sys
import time

from pfc import paths
from pfc.run.cache import ResponseCache

ENV = {**os.environ, "PYTHONPATH": str(paths.ROOT / "lib")}

WRITER = """
import sys, time
from pathlib import Path
from pfc.run.cache import ResponseCache
path, name, go, n = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
c = ResponseCache(path)
while not go.exists():
    time.sleep(0.001)
for i in range(n):
    c.put(f"{name}-{i}", {"text": f"{name} answer {i}", "usage": {}})
c.close()
print("ok")
"""


def test_two_processes_writing_one_cache_at_once_lose_nothing(tmp_path):
    path, go, n = tmp_path / "c.sqlite", tmp_path / "go", 300
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, str(go), str(n)], env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("A", "B")]
    time.sleep(0.5)
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and out.strip() == "ok", err[-2000:]
    c = ResponseCache(path)
    assert len(c) == 2 * n
    assert c.get("A-17") == {"text": "A answer 17", "usage": {}} and c.get("B-299")["text"] == "B answer 299"


OPENER = """
import sys, time
from pathlib import Path
from pfc.run.cache import ResponseCache
path, go = sys.argv[1], Path(sys.argv[2])
while not go.exists():
    time.sleep(0.0005)
c = ResponseCache(path)
c.put(sys.argv[3], {"text": sys.argv[3]})
print("ok")
"""


def test_several_processes_creating_one_new_cache_at_the_same_instant_all_open_it(tmp_path):
    """Switching a new file to WAL takes a lock SQLite's busy wait does not cover: each opener must retry."""
    path, go = tmp_path / "c.sqlite", tmp_path / "go"
    names = [f"P{i}" for i in range(6)]
    procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(path), str(go), name], env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in names]
    time.sleep(1.0)  # every process imported and waiting
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and out.strip() == "ok", err[-2000:]
    c = ResponseCache(path)
    assert len(c) == len(names) and all(c.get(n) == {"text": n} for n in names)


def test_a_cache_writer_killed_with_sigkill_leaves_every_committed_answer_readable(tmp_path):
    path = tmp_path / "c.sqlite"
    code = ("import sys; from pfc.run.cache import ResponseCache\n"
            "c = ResponseCache(sys.argv[1]); i = 0\n"
            "while True:\n"
            "    c.put(f'k{i}', {'text': str(i)}); i += 1\n"
            "    if i == 50: print('50', flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", code, str(path)], env=ENV, stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "50"
    p.send_signal(signal.SIGKILL)
    p.wait(30)
    c = ResponseCache(path)
    n = len(c)
    assert n >= 50 and all(c.get(f"k{i}") == {"text": str(i)} for i in range(n))


def test_a_full_disk_while_caching_says_so_naming_the_cache_and_keeps_what_was_committed(tmp_path):
    """RLIMIT_FSIZE (no privileges needed): the cache file cannot grow past 64 KiB, as on a full disk."""
    import resource
    path = tmp_path / "c.sqlite"
    code = ("import sys; from pfc.run.cache import ResponseCache; from pfc.errors import UserError\n"
            "c = ResponseCache(sys.argv[1])\n"
            "try:\n"
            "    for i in range(100000): c.put(f'k{i}', {'text': 'x' * 200})\n"
            "except UserError as e:\n"
            "    print(e); print(i)\n")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))
    p = subprocess.run([sys.executable, "-c", code, str(path)], env=ENV, capture_output=True, text=True,
                       preexec_fn=limit)
    message, failed_at = p.stdout.strip().splitlines()
    assert message.startswith(f"{path}: cannot write the response cache (")  # SQLite: 'disk I/O error' here
    assert message.endswith("; free space and re-run the same command (finished rows are kept)")
    c = ResponseCache(path)
    assert len(c) == int(failed_at) and c.get("k0") == {"text": "x" * 200}
