"""OpenVINO IR of the registered models: where each lives, whether it is current, and how to export it.

An IR sits beside its transformers directory, ``<models dir>/<name>-openvino``, with an install
record ``<name>-openvino.json`` naming the source model's fingerprint and the exporter's versions.
An IR whose source has changed (a new GGUF or conversion recipe) is not current and is refused.
:func:`export` runs ``openvino_export.py`` in the export environment (``.venv-openvino``, whose
optimum-intel pins an older transformers) into a temporary directory and renames it into place,
so a killed export leaves no half IR. ``make models-openvino`` calls it for every installed
registered model. This module does not load or run a model (``pfc.run.backends.openvino`` does).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pfc import paths
from pfc.errors import UserError, entry
from pfc.io import atomic
from pfc.models import registry
from pfc.models.lora_merge import adapter_digest, merge_to_dir

EXPORTER = Path(__file__).with_name("openvino_export.py")
EXPORT_PYTHON = paths.ROOT / ".venv-openvino" / "bin" / "python"


def ir_dir(name: str, root: Path | None = None) -> Path:
    return (root or paths.models_dir()) / f"{name}-openvino"


def record_path(name: str, root: Path | None = None) -> Path:
    return (root or paths.models_dir()) / f"{name}-openvino.json"


def current(name: str, root: Path | None = None) -> dict | None:
    """The IR's install record when it is complete and exported from the installed model as it is now."""
    rec_p, d = record_path(name, root), ir_dir(name, root)
    if not rec_p.exists() or not (d / "openvino_model.xml").exists() or registry.installed(name, root) is None:
        return None
    try:
        rec = json.loads(rec_p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return rec if rec.get("source_fingerprint") == registry.fingerprint(str(registry.model_dir(name, root))) else None


def resolve(model: str) -> tuple[Path, Path]:
    """``model`` (a registry name, or an IR directory holding its tokenizer files) -> (IR dir, tokenizer dir)."""
    if model in registry.REGISTRY:
        if current(model) is None:
            raise registry.ModelError(f"model {model!r} has no current OpenVINO IR in {paths.models_dir()}: run "
                                    f"`make models-openvino` (after `make models`)")
        return ir_dir(model), registry.model_dir(model)
    p = Path(model)
    if not (p / "openvino_model.xml").is_file():
        raise registry.ModelError(f"--model {model!r} is neither a registered model ({', '.join(registry.REGISTRY)}) "
                                f"nor a directory with openvino_model.xml")
    return p, p


def export(name: str, python: Path = EXPORT_PYTHON, root: Path | None = None, force: bool = False) -> dict:
    """Export the installed registry model ``name`` to its IR (skipped when current, unless ``force``)."""
    if not force and (rec := current(name, root)) is not None:
        print(f"[pfc models] {name}-openvino: current", file=sys.stderr)
        return rec
    _check_export(name, python, root)
    src, dest = registry.model_dir(name, root), ir_dir(name, root)
    print(f"[pfc models] exporting {name} to OpenVINO IR ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=f".{dest.name}-") as tmp:
        info = _export_into(src, Path(tmp) / "ir", dest, python, name)
    rec = {"name": name, "source_fingerprint": registry.fingerprint(str(src)), **info}
    atomic.write_text(record_path(name, root), json.dumps(rec, indent=1) + "\n")
    print(f"[pfc models] {name}-openvino: exported in {info['seconds']} s", file=sys.stderr)
    return rec


def merged_ir(name: str, adapter, python: Path = EXPORT_PYTHON, root: Path | None = None) -> tuple[Path, str]:
    """The IR of registry model ``name`` with the LoRA ``adapter`` merged in (:mod:`pfc.models.lora_merge`), and
    the adapter's digest. Exported once, to ``<models dir>/<name>+lora-<digest>-openvino`` beside its record (the base
    model's fingerprint, the adapter's digest, the exporter's versions); reused while both match."""
    digest = adapter_digest(adapter)
    merged = f"{name}+lora-{digest}"
    dest, rec_p = ir_dir(merged, root), record_path(merged, root)
    _check_export(name, python, root)
    want = {"source_fingerprint": registry.fingerprint(str(registry.model_dir(name, root))), "adapter": digest}
    try:
        rec = json.loads(rec_p.read_text(encoding="utf-8")) if rec_p.exists() else {}
    except (OSError, json.JSONDecodeError):
        rec = {}
    if (dest / "openvino_model.xml").exists() and all(rec.get(k) == v for k, v in want.items()):
        return dest, digest
    print(f"[pfc models] merging the adapter {digest} into {name} and exporting it to OpenVINO IR ...",
          file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=f".{dest.name}-") as tmp:
        dtype = merge_to_dir(registry.model_dir(name, root), adapter, Path(tmp) / "merged")
        info = _export_into(Path(tmp) / "merged", Path(tmp) / "ir", dest, python, merged)
    rec = {"name": name, **want, "merged_dtype": dtype, **info}
    atomic.write_text(rec_p, json.dumps(rec, indent=1) + "\n")
    print(f"[pfc models] {merged}-openvino: exported in {info['seconds']} s", file=sys.stderr)
    return dest, digest


def _check_export(name: str, python: Path, root: Path | None) -> None:
    if registry.installed(name, root) is None:
        raise registry.ModelError(f"model {name!r} is not installed: run `make models` first")
    if not Path(python).exists():
        raise registry.ModelError(f"no export environment at {paths.relative(Path(python))}: run `make models-openvino`")


def _export_into(src: Path, out: Path, dest: Path, python: Path, label: str) -> dict:
    """Run the exporter on ``src`` into ``out``, then rename ``out`` to ``dest``; the exporter's versions."""
    p = subprocess.run([str(python), "-I", str(EXPORTER), str(src), str(out)], capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise registry.ModelError(f"OpenVINO export of {label} failed: {tail}")
    info = json.loads(p.stdout.strip().splitlines()[-1])
    if dest.exists():
        shutil.rmtree(dest)
    out.rename(dest)
    return info


def fingerprint(ir: Path) -> str:
    """Identity of an IR. With its install record: the source model's fingerprint, the exporter's versions and
    each file's name and size (the same export on another machine keeps it); else the files' names, sizes and
    modification times (:func:`pfc.models.registry.fingerprint`)."""
    rec_p = ir.parent / f"{ir.name}.json"
    try:
        rec = json.loads(rec_p.read_text(encoding="utf-8")) if rec_p.exists() else None
    except (OSError, json.JSONDecodeError):
        rec = None
    if not isinstance(rec, dict):
        return registry.fingerprint(str(ir))
    h = hashlib.sha256(json.dumps({k: v for k, v in rec.items() if k != "seconds"}, sort_keys=True).encode())
    for f in sorted(f for f in ir.rglob("*") if f.is_file()):
        h.update(f"{f.relative_to(ir)}\0{f.stat().st_size}\n".encode())
    return h.hexdigest()[:16]


def main(argv=None) -> int:
    """The command line, through the one error path (``pfc.errors.entry``): a UserError is one line, exit 2;
    Ctrl-C one line, exit 130."""
    return entry("make models-openvino", _main, argv)


def _main(argv: list[str] | None = None) -> int:
    """``python -m pfc.models.openvino_ir NAME...``: export each (``make models-openvino``); a failure is one line, exit 2."""
    names = sys.argv[1:] if argv is None else argv
    try:
        for n in names:
            registry.spec(n)  # an unknown name fails before any export
        for n in names:
            export(n)
    except registry.ModelError as e:
        raise UserError(str(e)) from None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
