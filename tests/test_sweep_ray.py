"""`pfc sweep` on a real Ray cluster on this machine: a head and one worker node (`ray start`), node IPs on
loopback (127.0.0.2: Ray rewrites 127.0.0.1 to the machine's address), one CPU each, a 100 MB object store,
private temp dirs and free ports. Faults: the worker node killed mid-run (then re-submitting the sweep
resumes what it lost) and a worker process killed mid-run (then Ray retries it). Every run must end
complete, without duplicated rows, with predictions equal to a serial `pfc run` of the same settings.

The cluster's processes carry an environment marker; the finalizer kills exactly those (never `ray stop`,
which would stop other users' Ray on this machine). Each wait is bounded."""
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pfc import paths
from pfc.cli import main
from pfc.sweep import plan as sweep_plan, spec as sweep_spec

pytestmark = [pytest.mark.model, pytest.mark.slow]   # a Ray cluster and the tiny model

IP = "127.0.0.2"
MARK = "PFC_SWEEP_TEST_CLUSTER"
NODE = "PFC_SWEEP_TEST_NODE"
RAY = str(Path(sys.executable).parent / "ray")
PT = paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json"


def _free_ports(n: int) -> list[int]:
    """n distinct free ports: the sockets stay bound until all n are picked (closing each before the next
    lets the kernel hand the same port out twice: CI once got 50007 for both of an agent's ports)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _marked(key: str, value: str) -> list[int]:
    """Pids whose environment has key=value (Ray's workers set their own process group and title)."""
    want, pids = f"{key}={value}".encode(), []
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid():
            try:
                env = Path(f"/proc/{d}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if want in env:
                pids.append(int(d))
    return pids


def _kill(pids, sig) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


class Cluster:
    def __init__(self, root: Path):
        # every port of the cluster, both nodes: 2 + 5 (head) + 4 (worker), all distinct
        self.ports = _free_ports(11)
        self.root, self.tag, self.port = root, root.name, self.ports.pop()
        self.env = {**os.environ, MARK: self.tag, "PYTHONPATH": str(paths.LIB), "RAY_USAGE_STATS_ENABLED": "0",
                    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1", "AUTOSCALER_METRIC_PORT": str(self.ports.pop()),
                    "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),  # never ~/.ray/auth_token
                    # a loaded 2-core machine starts nodes and their agents slowly
                    "RAY_raylet_start_wait_time_s": "180", "RAY_agent_register_timeout_ms": "180000"}
        self.address = f"{IP}:{self.port}"

    def start(self, name: str, head: bool, resources: dict | None = None) -> None:
        cmd = [RAY, "start", "--node-ip-address", IP, "--num-cpus", "1", "--object-store-memory", "100000000",
               "--temp-dir", str(self.root / name), "--disable-usage-stats",
               "--dashboard-agent-listen-port", str(self.ports.pop()), "--dashboard-agent-grpc-port",
               str(self.ports.pop()), "--runtime-env-agent-port", str(self.ports.pop()), "--metrics-export-port",
               str(self.ports.pop())]
        if head:
            cmd += ["--head", "--port", str(self.port), "--include-dashboard", "false", "--dashboard-port",
                    str(self.ports.pop()), "--system-config",
                    json.dumps({"health_check_period_ms": 2000, "health_check_failure_threshold": 10})]
        else:
            cmd += ["--address", self.address]
        if resources:
            cmd += ["--resources", json.dumps(resources)]
        done = subprocess.run(cmd, env={**self.env, NODE: f"{self.tag}-{name}"}, capture_output=True, text=True,
                              timeout=180, start_new_session=True)
        assert done.returncode == 0, f"ray start ({name}) failed: {(done.stdout + done.stderr)[-2000:]}"

    def kill_node(self, name: str) -> None:
        _kill(_marked(NODE, f"{self.tag}-{name}"), signal.SIGKILL)

    def stop(self) -> None:
        _kill(_marked(MARK, self.tag), signal.SIGTERM)
        deadline = time.time() + 10
        while _marked(MARK, self.tag) and time.time() < deadline:
            time.sleep(0.5)
        _kill(_marked(MARK, self.tag), signal.SIGKILL)
        deadline = time.time() + 10
        while _marked(MARK, self.tag) and time.time() < deadline:
            time.sleep(0.2)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(Path(tempfile.mkdtemp(prefix="pfc-rt-")))  # short: Ray's socket paths must fit 107 bytes
    try:
        c.start("head", head=True)
        c.start("worker", head=False, resources={"pfc_worker": 1})
        yield c
    finally:
        c.stop()
        import shutil
        shutil.rmtree(c.root, ignore_errors=True)
    assert not _marked(MARK, c.tag)


@pytest.fixture(scope="module")
def tracebench(tmp_path_factory):
    from pfc.data.build import build_tracebench
    out = tmp_path_factory.mktemp("tb")
    build_tracebench(out, users=1, seed=3, records=120, progress=False)
    return out


def _spec(tmp_path, tiny_model, tracebench, retries: int, models: str, all_three: bool = True) -> Path:
    p = tmp_path / "spec.yaml"
    others = f"""  - {{name: ptbench, examples: "{PT}", limit: 4}}
  - {{name: toolspectrum, examples: "{{toolspectrum}}/data/dataset_persona.json", limit: 4}}
"""
    p.write_text(f"""
retries: {retries}
cache: {tmp_path / 'cache.sqlite'}
models:
{models.format(tiny=tiny_model)}
benchmarks:
  - {{name: tracebench, examples: "{tracebench}", limit: 4}}
{others if all_three else ""}""")
    return p


TINY = "  - {{name: tiny, backend: hf, model: \"{tiny}\", sampling: {{max_tokens: 48}}}}\n"
# one request at a time (engine single) where a test must catch a run half-written: the batched engine writes a
# tiny run's rows in one or two bursts, and on an idle machine the run ended before that state could be seen
ONE_BY_ONE = TINY.replace("sampling:", "options: {{engine: single}}, sampling:")
BASELINES = "".join(f"  - {{{{name: {b}, backend: {b}}}}}\n" for b in ("oracle", "history-prior", "no-history",
                                                                        "random"))


def _sweep(spec: Path, out: Path, cluster: Cluster) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pfc", "sweep", str(spec), "--out", str(out), "--address",
                             cluster.address], env={**cluster.env, MARK: "driver"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen, limit: float = 400) -> str:
    """The sweep's stderr once it exits; killed (and the test failed) if it runs past ``limit`` seconds."""
    try:
        return proc.communicate(timeout=limit)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"the sweep ran past {limit} s: {proc.communicate()[1][-2000:]}") from None


def _writing(pids, out: Path) -> tuple[int, Path] | None:
    """(pid, predictions file) of a process among ``pids`` writing a run of ``out`` that has rows already."""
    for pid in pids:
        try:
            fds = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        for f in fds:
            p = Path(f)
            if p.name == "predictions.jsonl" and str(out) in f and p.exists() and p.read_bytes().count(b"\n") >= 1:
                return pid, p
    return None


def _wait_for_writer(pids_of, out: Path, proc, limit: float = 300) -> tuple[int, Path]:
    deadline = time.time() + limit
    while time.time() < deadline and proc.poll() is None:
        hit = _writing(pids_of(), out)
        if hit:
            return hit
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no run with rows was seen being written (sweep exit {proc.poll()})")


def _rows(path: Path) -> list[tuple]:
    """(id, output) per row: what a run answered, without its cache flag and timing fields."""
    return [(r["id"], json.dumps(r["output"], sort_keys=True))
            for r in map(json.loads, path.read_text().splitlines())]


def _check_runs_equal_serial_pfc_run(spec: Path, out: Path, serial: Path) -> None:
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, out)
    for r in p.runs:
        swept = _rows(r.run_dir(out) / "predictions.jsonl")
        usage = json.loads((r.run_dir(out) / "usage.json").read_text())
        assert len(swept) == len({i for i, _ in swept}) == usage["n_examples"] == 4, r.name  # complete, no duplicates
        assert main(r.pfc_run_args(serial) + ["--no-cache"]) == 0
        assert _rows(r.run_dir(serial) / "predictions.jsonl") == swept, r.name


def test_losing_a_worker_node_mid_run_then_resubmitting_completes_every_run_as_serial_runs(
        cluster, tiny_model, tracebench, tmp_path, capfd):
    spec, out = _spec(tmp_path, tiny_model, tracebench, retries=0, models=ONE_BY_ONE + BASELINES), tmp_path / "sweep"
    first = _sweep(spec, out, cluster)
    pid, pred = _wait_for_writer(lambda: _marked(NODE, f"{cluster.tag}-worker"), out, first)
    cluster.kill_node("worker")
    killed = pred.parent.name
    rows_at_kill = pred.read_bytes().count(b"\n")
    err = _finish(first)
    assert first.returncode == 1, err
    index = json.loads((out / "sweep.json").read_text())
    status = {r["name"]: r for r in index["runs"]}
    assert status[killed]["status"] == "failed" and f"FAILED {killed}: " in err
    assert index["counts"]["complete"] >= index["n_runs"] - 2  # the others went on (at most one more was queued there)
    second = _sweep(spec, out, cluster)
    err = _finish(second)
    assert second.returncode == 0, err
    assert "runs complete from an earlier submission" in err
    index = json.loads((out / "sweep.json").read_text())
    assert index["counts"] == {"complete": 15}
    assert json.loads((out / "runs" / killed / "usage.json").read_text())["already_done"] >= rows_at_kill > 0
    _check_runs_equal_serial_pfc_run(spec, out, tmp_path / "serial")


def test_a_worker_process_killed_mid_run_is_retried_by_ray_and_the_run_resumes(
        cluster, tiny_model, tracebench, tmp_path):
    spec, out = _spec(tmp_path, tiny_model, tracebench, retries=1, models=ONE_BY_ONE, all_three=False), tmp_path / "sweep"
    proc = _sweep(spec, out, cluster)
    pid, pred = _wait_for_writer(lambda: _marked(MARK, cluster.tag), out, proc)
    os.kill(pid, signal.SIGKILL)
    rows_at_kill = pred.read_bytes().count(b"\n")
    err = _finish(proc)
    assert proc.returncode == 0, err
    assert json.loads((out / "sweep.json").read_text())["counts"] == {"complete": 1}
    assert json.loads((pred.parent / "usage.json").read_text())["already_done"] >= rows_at_kill > 0
    _check_runs_equal_serial_pfc_run(spec, out, tmp_path / "serial")


def test_a_model_kept_loaded_serves_all_its_runs_from_one_actor_process(cluster, tiny_model, tracebench, tmp_path):
    kept = "  - {{name: tiny, backend: hf, model: \"{tiny}\", keep_loaded: true, sampling: {{max_tokens: 48}}}}\n"
    spec, out = _spec(tmp_path, tiny_model, tracebench, retries=0, models=kept, all_three=False), tmp_path / "sweep"
    spec.write_text(spec.read_text() + "settings: {seed: [0, 1]}\n")
    proc = _sweep(spec, out, cluster)
    err = _finish(proc)
    assert proc.returncode == 0, err
    runs = json.loads((out / "sweep.json").read_text())["runs"]
    assert [r["status"] for r in runs] == ["complete", "complete"]
    assert runs[0]["pid"] == runs[1]["pid"] and runs[0]["host"] == runs[1]["host"]
    _check_runs_equal_serial_pfc_run(spec, out, tmp_path / "serial")
