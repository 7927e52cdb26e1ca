"""``pfc sweep SPEC.yaml``: plan a sweep, print it (``--dry-run``) or run it on Ray, index it in sweep.json.

Order of work: read and plan the spec (:mod:`pfc.sweep.spec`, :mod:`pfc.sweep.plan`; any mistake is one line, exit 2),
take the sweep directory's lock (a second ``pfc sweep`` on the same ``--out`` is refused),
build the TRACEBench copies the spec asks for, skip runs a previous submission of the same
spec finished (same spec hash, same predictions), submit the rest through
:mod:`pfc.sweep.ray_tasks` and record each result in the sweep index (:mod:`pfc.sweep.index`) as it arrives.
Exit 0 when every run is complete, 1 when any failed (each named with why, on stderr;
re-submitting the same command resumes them), 2 for a user error, 130 for Ctrl-C.
It does not check a spec or cross its settings itself, and imports Ray only through ``ray_tasks``.
"""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from pfc import paths
from pfc.errors import EXIT_INTERRUPTED, EXIT_RUN_FAILED, UserError, out_dir
from pfc.io import atomic
from pfc.sweep import index
from pfc.sweep.plan import Plan, plan
from pfc.sweep.spec import load_spec, resolve_path, slug


def default_out(spec_path) -> Path:
    from pfc.io.safepath import safe_name  # the spec's file name becomes a folder: '...yaml' must not mean data/
    return paths.OUT_DATA / "sweeps" / safe_name(slug(Path(spec_path).stem), "spec file name (give --out)",
                                                 str(spec_path))


def _show(p: Plan, out: Path) -> str:
    lines = [f"# sweep: {len(p.runs)} runs, spec sha256 {p.spec_hash[:12]}, out {paths.relative(out)}"]
    for name, (kind, params) in p.builds.items():
        lines.append(f"# builds {kind} {name!r} into {paths.relative(out / 'benchmarks' / name)} with {params}")
    for r in p.runs:
        res = ", ".join(f"{k}={v}" for k, v in r.resources.items() if v) + (", kept loaded" if r.keep_loaded else "")
        lines.append(f"{r.name}\t{paths.relative(r.run_dir(out))}\t[{res}]")
        args = r.pfc_run_args(paths.relative(out))
        args = [paths.relative(Path(a)) if i and args[i - 1] in ("--examples", "--tools") else a
                for i, a in enumerate(args)]
        lines.append("    python -m pfc " + " ".join(shlex.quote(a) for a in args))
    lines += [f"# skipped {s}" for s in p.skipped]
    return "\n".join(lines)


def _build(p: Plan, out: Path) -> None:
    """Each benchmark the spec builds, once, by its package's builder (``pfc.benchmarks.adapter.Builder.build``);
    built beside its folder and swapped in whole (``pfc.io.dirset``), only ever inside ``<out>/benchmarks``."""
    from pfc import benchmarks
    from pfc.io.dirset import replace_dir
    from pfc.io.safepath import inside
    for name, (kind, params) in p.builds.items():
        dest = inside(out / "benchmarks", name)
        stamp = dest / "sweep_build.json"
        try:
            if stamp.is_file() and json.loads(stamp.read_text()) == params:
                continue
        except ValueError:
            pass
        with replace_dir(dest, "sweep_build.json", "sweep's benchmark build") as tmp:
            benchmarks.get(kind).builder().build(tmp, **params)
            atomic.write_text(tmp / "sweep_build.json", json.dumps(params, sort_keys=True) + "\n")
        print(f"pfc sweep: built {kind} {name!r} ({paths.relative(dest)})", file=sys.stderr)


def _earlier(p: Plan, out: Path) -> dict:
    """Runs a previous submission of this same spec completed, whose predictions are still those it wrote."""
    from pfc.sweep.one_run import predictions_sha256
    old = index.read_index(out)
    if not old or old.get("spec_hash") != p.spec_hash:
        return {}
    keep = {}
    from pfc.io.safepath import inside
    for r in old.get("runs", []):
        if r.get("status") == "complete" and r.get("predictions_sha256") == \
                predictions_sha256(inside(out, r["run_dir"])):
            keep[r["name"]] = {k: r[k] for k in ("status", "error", "done", "n_examples", "host", "pid", "seconds",
                                                 "predictions_sha256") if k in r}
    return keep


def _sweep_lock(out: Path):
    """The sweep directory's one-writer lock: a second `pfc sweep` into it is refused naming the holder."""
    from pfc.io.lock import writer_lock
    return writer_lock(out, "sweep directory", "pfc sweep")


def check_plan(p: Plan, out: Path, spec_path, inputs: bool = True) -> list[str]:
    """Every planned run checked as ``pfc run`` checks it (its own parser, ``RunConfig.check``, the input files),
    before anything starts; the sampling and option values become the types ``pfc run`` would pass. ``inputs=False`` (a
    dry run, perhaps on a machine without the cluster's data): missing input files are returned, one line each, instead
    of refused."""
    missing = []
    from dataclasses import replace
    from pfc.run.run_args import parse_run_args
    built = {str(out / "benchmarks" / name) for name in p.builds}
    for r in p.runs:
        field = f"run {r.name}"
        try:
            parsed = parse_run_args(r.pfc_run_args(out))  # the line the dry run prints, read back by `pfc run`
            parsed.check()
        except UserError as e:
            raise UserError(f"`pfc run` would refuse it: {e}", file=str(spec_path), field=field) from None
        for flag, value in (("examples", r.config.examples), ("tools", r.config.tools)):
            if value and value not in built and not Path(value).exists():
                e = UserError(f"{flag}: {paths.relative(Path(value))} not found", file=str(spec_path), field=field)
                if inputs:
                    raise e
                missing.append(str(e))
        # the values as `pfc run` types them (a YAML 0 for a temperature is 0.0); options without a flag stay
        r.config = replace(r.config, sampling=parsed.sampling,
                           backend_options={**r.config.backend_options, **parsed.backend_options})
    return missing


def sweep_cmd(args) -> int:
    spec = load_spec(args.spec)
    out = out_dir(args.out or default_out(args.spec))
    p = plan(spec, args.spec, out)
    # all of it before Ray starts, so the dry run never prints a line pfc run refuses
    missing = check_plan(p, out, args.spec, inputs=not args.dry_run)
    if args.dry_run:
        print(_show(p, out))
        for line in missing:
            print(f"# missing here (the sweep refuses it): {line}")
            print(f"pfc sweep: missing here (the sweep refuses it): {line}", file=sys.stderr)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    with _sweep_lock(out):
        return _run(p, out, args, spec)


def _run(p: Plan, out: Path, args, spec: dict) -> int:
    from pfc.sweep import ray_tasks
    spec_name = paths.relative(Path(args.spec))
    _build(p, out)
    status = _earlier(p, out)
    todo = [r for r in p.runs if r.name not in status]
    index.write_index(out, p, status, spec_name)
    cache = spec.get("cache")
    cache = resolve_path(str(cache), Path(args.spec).parent) if cache else None
    if status:
        print(f"pfc sweep: {len(status)} of {len(p.runs)} runs complete from an earlier submission", file=sys.stderr)
    info = ray_tasks.connect(args.address, args.num_cpus) if todo else None
    refs = {}
    try:
        if info:
            why = ray_tasks.infeasible(todo)  # Ray would wait for such a node forever, without a word
            if why:
                raise UserError(why, file=str(args.spec))
            print(f"pfc sweep: {len(todo)} runs on {info['where']} {info['resources']}", file=sys.stderr)
            refs = ray_tasks.submit_all(todo, out, cache, retries=spec.get("retries", 2))
            for r, res in ray_tasks.results(refs):
                status[r.name] = res
                index.append_result(out, r.name, res)  # appended, not rewritten (10^4 runs: one short line each)
                print(f"pfc sweep: {res['status']:<8} {r.name}" + (f": {res['error']}" if res.get("error") else ""),
                      file=sys.stderr)
    except KeyboardInterrupt:
        ray_tasks.cancel(refs)
        index.write_index(out, p, status, spec_name)
        print(f"pfc sweep: interrupted; {sum(s['status'] == 'complete' for s in status.values())} of {len(p.runs)} "
              "runs complete, finished rows kept; re-run the same command to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if info:
            ray_tasks.disconnect(info)
    index.write_index(out, p, status, spec_name)  # the appended results folded into sweep.json once
    failed = {n: s for n, s in status.items() if s["status"] != "complete"}
    print(json.dumps({"runs": len(p.runs), "complete": len(p.runs) - len(failed), "failed": len(failed),
                      "index": paths.relative(out / index.INDEX)}))
    for n, s in failed.items():
        print(f"pfc sweep: FAILED {n}: {s.get('error')}", file=sys.stderr)
    if failed:
        print(f"pfc sweep: {len(failed)} of {len(p.runs)} runs failed; re-run the same command to resume them",
              file=sys.stderr)
        return EXIT_RUN_FAILED
    return 0


def add_command(sub) -> None:
    """Register ``sweep`` on the ``python -m pfc`` sub-command parser."""
    from pfc.errors import positive_int
    sw = sub.add_parser("sweep", help="run a spec of models x benchmarks x settings on Ray (local or a cluster)")
    sw.add_argument("spec", help="sweep spec (YAML)")
    sw.add_argument("--out", help="sweep directory (default: data/sweeps/<spec name>)")
    sw.add_argument("--dry-run", action="store_true", help="print the planned runs and their run directories")
    sw.add_argument("--address", help="join this Ray cluster (default: $RAY_ADDRESS, else start Ray locally)")
    sw.add_argument("--num-cpus", type=positive_int, help="local Ray: CPUs to use (default: all cores here)")
    sw.set_defaults(func=sweep_cmd)
