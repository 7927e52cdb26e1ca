"""One write path: every whole file ``lib/`` writes goes through ``pfc.io.atomic`` (docs/robustness.md).

A *bare write* is ``Path.write_text``/``write_bytes``, ``open``/``Path.open`` to write (not to append),
``json.dump``, ``shutil.copy*``, ``DataFrame.to_csv(path)``/``to_parquet``, ``savefig``, ``torch.save`` or
``pyarrow.parquet.write_table`` -- unless it is ``atomic.<function>(...)`` or it writes to the temporary
path of a ``with atomic.staged(...) as tmp`` block. Only ``pfc/io/`` (which implements the atomic writes)
and ``EXEMPT`` may write bare; ``EXEMPT`` names what is not a whole file, with why, and each entry must
still need it (the list only shrinks).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pfc.io import atomic

LIB = Path(__file__).resolve().parents[1] / "lib"
EXEMPT = {
    "pfc/plans/reference.py": "the LoRA adapter folder is copied into a temporary directory that is renamed whole",
}
METHODS = {"write_text", "write_bytes", "to_parquet", "savefig", "write_table"}
WRITE_MODES = ("w", "x")  # appending ("a") is a stream, not a whole file: predictions, failures, a training log


def _staged_names(tree) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "staged"
                        and isinstance(item.optional_vars, ast.Name)):
                    names.add(item.optional_vars.id)
    return names


def _mode(call: ast.Call, pos: int) -> str:
    if len(call.args) > pos and isinstance(call.args[pos], ast.Constant):
        return str(call.args[pos].value)
    return next((str(k.value.value) for k in call.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)),
                "r")


def _memory_names(tree) -> set[str]:
    """Names bound to an in-memory buffer (``buf = io.BytesIO()``): writing there writes no file."""
    return {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "attr", getattr(node.value.func, "id", "")) in ("BytesIO", "StringIO")
            for t in node.targets if isinstance(t, ast.Name)}


def bare_writes(source: str) -> list[int]:
    """Lines of ``source`` that write a file other than through ``pfc.io.atomic``."""
    tree = ast.parse(source)
    staged = _staged_names(tree) | _memory_names(tree)
    out = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        to_tmp = bool(n.args) and isinstance(n.args[0], ast.Name) and n.args[0].id in staged
        if isinstance(f, ast.Attribute):
            owner = f.value.id if isinstance(f.value, ast.Name) else ""
            if owner == "atomic":
                continue
            if f.attr in METHODS and not to_tmp and not (f.attr == "write_table" and len(n.args) > 1
                                                          and isinstance(n.args[1], ast.Name) and n.args[1].id in staged):
                out.append(n.lineno)
            elif f.attr == "to_csv" and (n.args or any(k.arg == "path_or_buf" for k in n.keywords)) and not to_tmp:
                out.append(n.lineno)
            elif f.attr == "open" and owner not in ("os", *staged) and _mode(n, 0).startswith(WRITE_MODES):
                out.append(n.lineno)
            elif owner == "json" and f.attr == "dump":
                out.append(n.lineno)
            elif owner == "shutil" and f.attr.startswith("copy") and not (len(n.args) > 1 and isinstance(n.args[1], ast.Name)
                                                                          and n.args[1].id in staged):
                out.append(n.lineno)
            elif owner == "torch" and f.attr == "save" and not (len(n.args) > 1 and isinstance(n.args[1], ast.Name)
                                                               and n.args[1].id in staged):
                out.append(n.lineno)
        elif isinstance(f, ast.Name) and f.id == "open" and _mode(n, 1).startswith(WRITE_MODES) and not to_tmp:
            out.append(n.lineno)
    return sorted(out)


def test_the_checker_sees_each_kind_of_bare_write():
    src = ("p.write_text('x')\nopen(p, 'w')\nq.open('x')\njson.dump(x, fh)\ndf.to_csv(p)\nfig.savefig(p)\n"
           "shutil.copyfile(a, b)\ntorch.save(x, p)\n")
    assert bare_writes(src) == [1, 2, 3, 4, 5, 6, 7, 8]


def test_the_checker_allows_a_figure_rendered_into_memory():
    src = "buf = io.BytesIO()\nfig.savefig(buf, format='png')\natomic.write_bytes(p, buf.getvalue())\n"
    assert bare_writes(src) == []


def test_the_checker_allows_atomic_staged_paths_reads_and_csv_text():
    src = ("atomic.write_text(p, 'x')\nwith atomic.staged(p) as tmp:\n    fig.savefig(tmp)\n    torch.save(x, tmp)\n    tmp.open('wb')\n"
           "open(p)\np.read_text()\ns = df.to_csv(index=False)\n")
    assert bare_writes(src) == []


def _lib_bare_writes() -> dict[str, list[int]]:
    found = {}
    for f in sorted(LIB.rglob("*.py")):
        rel = f.relative_to(LIB).as_posix()
        if not rel.startswith("pfc/io/"):
            lines = bare_writes(f.read_text(encoding="utf-8"))
            if lines:
                found[rel] = lines
    return found


def test_every_whole_file_write_in_lib_goes_through_atomic():
    assert {rel: lines for rel, lines in _lib_bare_writes().items() if rel not in EXEMPT} == {}


def test_each_exempt_file_still_writes_bare():
    # an entry whose file no longer writes bare (or is gone) is stale: the exemptions only shrink
    assert sorted(set(EXEMPT) - set(_lib_bare_writes())) == []


def test_staged_replaces_the_target_whole_and_removes_the_temporary_on_error(tmp_path):
    target = tmp_path / "t.bin"
    target.write_bytes(b"old")
    with pytest.raises(ZeroDivisionError):
        with atomic.staged(target) as tmp:
            tmp.write_bytes(b"half")
            1 / 0
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["t.bin"]
    with atomic.open_text(target) as fh:
        fh.write("new\n")
    assert target.read_bytes() == b"new\n" and sorted(p.name for p in tmp_path.iterdir()) == ["t.bin"]
