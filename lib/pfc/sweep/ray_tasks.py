"""The Ray adapter of ``pfc sweep``: start or join Ray, one task per run, results back as they finish.

:func:`connect` joins a running cluster (``address`` or ``RAY_ADDRESS``) or starts Ray on
this machine with its cores, bound to loopback only (Ray's single-node mode,
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``) in a private temporary folder. :func:`submit_all`
sends each :class:`pfc.sweep.plan.PlannedRun` as a Ray task with the model's declared
resources (``num_cpus``, ``num_gpus``, custom resources); a model marked ``keep_loaded``
gets one actor that holds the backend across its runs. Each task calls
:func:`pfc.sweep.one_run.execute`. A process or node that dies is retried by Ray
(``max_retries``; actors ``max_restarts``); what still fails comes back as a ``failed``
result naming Ray's reason. A cluster address is probed first (:func:`_reachable`: one line in
seconds when nothing answers), and :func:`infeasible` names a run no live node can hold (Ray would
wait for one forever). On a cluster the API settings (:data:`SECRET_ENV`, read from this environment)
reach every task as an argument held in Ray's object store, never as ``runtime_env`` ``env_vars``
(Ray's runtime_env agent writes those, the key included, to its log on every node).
This module plans nothing and writes no run files itself; it imports Ray inside its functions only, and only
:mod:`pfc.sweep.command` (``pfc sweep``) calls it.
"""
from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import json
import re
import socket

from pfc.errors import MissingDependency, UserError
from pfc.run.backends import builtin, get
from pfc.sweep.one_run import execute

LOCAL_OBJECT_STORE = 100_000_000  # bytes: runs pass only small dicts through Ray


def connect(address: str | None = None, num_cpus: int | None = None,
            object_store_memory: int = LOCAL_OBJECT_STORE) -> dict:
    """``ray.init`` for a sweep; returns what to show and what :func:`disconnect` must clean."""
    address = address or os.environ.get("RAY_ADDRESS") or None
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    info = {"address": address, "temp_dir": None}
    if address is not None:
        _reachable(address)  # a dead address fails in seconds, before Ray would wait for minutes
    if address is None:
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # read when ray is imported: loopback only
        # token authentication with a token of this sweep only, kept in the environment (Ray would otherwise
        # write ~/.ray/auth_token, which switches later `ray start` clusters of this user to token mode)
        os.environ.setdefault("RAY_AUTH_MODE", "token")
        os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))
        # Ray runs task workers at nice 15 by default; on a shared machine that gives a run a fraction of the
        # CPU the same `pfc run` gets (measured: 2.5x slower under load). Runs here get the shell's priority.
        os.environ.setdefault("RAY_worker_niceness", "0")
        os.environ.setdefault("RAY_agent_register_timeout_ms", "180000")  # slow agents on a loaded machine
    try:
        import ray
    except ImportError:
        raise MissingDependency("pfc sweep runs on Ray: pip install -r requirements-ray.txt (or make venv-ray)") from None
    if address is None:
        info["temp_dir"] = tempfile.mkdtemp(prefix="pfc-ray-")
        cpus = num_cpus or len(os.sched_getaffinity(0))
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, object_store_memory=object_store_memory,
                 _temp_dir=info["temp_dir"], log_to_driver=False, configure_logging=False)
        info["where"] = f"local Ray on 127.0.0.1 with {cpus} CPUs"
    else:
        try:
            # no runtime_env env_vars: Ray's runtime_env agent logs them on every node (the API key in
            # runtime_env_agent.log, measured with Ray 2.60); the settings travel as a task argument instead
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise UserError(f"cannot join the Ray cluster at {address!r}: {first}", field="--address") from None
        info["where"] = f"Ray cluster at {address}"
    res = ray.cluster_resources()
    info["resources"] = {k: v for k, v in res.items() if not k.startswith("node:") and "memory" not in k}
    return info


SECRET_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL")  # what an openai run reads; passed to a cluster's tasks
CONNECT_TIMEOUT_S = 5.0


def secret_env() -> dict:
    """The API settings set in this environment, sent to every task (:func:`submit_all`)."""
    return {k: os.environ[k] for k in SECRET_ENV if os.environ.get(k)}


def apply_env(env: dict | None) -> None:
    """In a task: the driver's API settings into this worker's environment (where the openai backend reads
    them); only :data:`SECRET_ENV` names are taken."""
    for k, v in (env or {}).items():
        if k in SECRET_ENV and isinstance(v, str):
            os.environ[k] = v


def _reachable(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """A ``host:port`` (or ``ray://host:port``) cluster address answers a TCP connection within ``timeout``
    seconds, else one line (Ray itself would wait for minutes); ``auto`` and other forms are left to Ray."""
    m = re.fullmatch(r"(?:ray://)?\[?([A-Za-z0-9.:-]+?)\]?:(\d+)", address.strip())
    if not m:
        return
    try:
        socket.create_connection((m.group(1), int(m.group(2))), timeout=timeout).close()
    except (OSError, ValueError) as e:
        why = "timed out" if isinstance(e, socket.timeout) else (getattr(e, "strerror", None) or str(e))
        raise UserError(f"cannot join the Ray cluster at {address!r}: {why} (is its head running and reachable?)",
                        field="--address") from None


def infeasible(runs) -> str | None:
    """Why some run can never be scheduled (no live node has the resources it asks for), or None."""
    import ray
    nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    for r in runs:
        o = _options(r)
        need = {"CPU": o["num_cpus"], "GPU": o["num_gpus"], **o["resources"]}
        need = {k: v for k, v in need.items() if v}
        if not any(all(node.get(k, 0) >= v for k, v in need.items()) for node in nodes):
            have = "; ".join(", ".join(f"{k}={v:g}" for k, v in sorted(n.items())
                                       if not k.startswith("node:") and "memory" not in k) for n in nodes)
            return (f"run {r.name} needs {', '.join(f'{k}={v:g}' for k, v in need.items())}, and no node of this "
                    f"Ray has that (nodes: {have or 'none'}); change the model's resources or join another cluster")
    return None


def disconnect(info: dict) -> None:
    import ray
    ray.shutdown()
    if info.get("temp_dir"):
        shutil.rmtree(info["temp_dir"], ignore_errors=True)


def _options(r) -> dict:
    res = r.resources
    return {"num_cpus": res.get("cpus", 1), "num_gpus": res.get("gpus", 0), "resources": dict(res.get("custom", {}))}


def _run_task(planned, out, cache_path, env=None):
    apply_env(env)
    return execute(planned, out, cache_path)


class _ModelHolder:
    """One model kept loaded across its runs (built-in baselines need per-run tools: built per run)."""

    def __init__(self):
        self.backends: dict = {}

    def run(self, planned, out, cache_path, env=None):
        apply_env(env)  # before the backend is built: the openai backend reads the key then
        backend = None
        cfg = planned.config
        if cfg.backend not in builtin.BUILTINS:
            key = json.dumps([cfg.backend, cfg.model, cfg.backend_options], sort_keys=True)
            if key not in self.backends:
                self.backends[key] = get(cfg.backend, cfg.model, **cfg.backend_options)
            backend = self.backends[key]
        return execute(planned, out, cache_path, backend=backend)


def submit_all(runs, out, cache_path=None, retries: int = 2) -> dict:
    """Submit every run; returns {object ref: planned run}. Tasks retry on a dead worker or node only."""
    import ray
    task = ray.remote(_run_task)
    # the API settings, once, through the object store (memory; never a file or log, unlike runtime_env)
    env = ray.put(secret_env())
    holder = ray.remote(_ModelHolder)
    actors: dict = {}
    refs = {}
    for r in runs:
        opts = _options(r)
        if r.keep_loaded:
            if r.model_name not in actors:
                actors[r.model_name] = holder.options(**opts, max_restarts=retries, max_task_retries=retries,
                                                      name=None).remote()
            ref = actors[r.model_name].run.remote(r, str(out), cache_path, env)
        else:
            ref = task.options(**opts, max_retries=retries, retry_exceptions=False).remote(r, str(out), cache_path,
                                                                                          env)
        refs[ref] = r
    return refs


def results(refs: dict):
    """Yield (planned run, result dict) as each run finishes; a run Ray gave up on is a ``failed`` result."""
    import ray
    pending = dict(refs)
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        r = pending.pop(ready[0])
        try:
            res = ray.get(ready[0])
        except ray.exceptions.RayError as e:
            first = str(e).strip().splitlines()
            res = {"status": "failed", "error": f"{type(e).__name__}: {first[0] if first else ''}"[:300]}
        yield r, res


def cancel(refs) -> None:
    """Stop whatever is still running (Ctrl-C): their finished rows stay, a re-submit resumes them."""
    import ray
    for ref in refs:
        try:
            ray.cancel(ref, force=True)
        except Exception:  # noqa: BLE001 - actor tasks cannot be force-cancelled; shutdown ends them
            pass
