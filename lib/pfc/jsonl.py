"""Reading JSONL: one decoded object per line, a bad line named by file and line (:class:`SchemaError`).

:func:`iter_jsonl` accepts UTF-8 with or without a BOM and LF or CRLF line ends, skips blank lines, and
refuses a file that is one JSON array, a line that is not UTF-8 (or holds a NUL byte), invalid JSON,
JSON nested too deeply, an integer too long to convert and a path that is not a regular file (a FIFO, a
device), each with one line naming the file and line. It does not check what the objects
hold: :mod:`pfc.schema` turns them into examples and tools.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from pfc.errors import UserError, decode_line, loads, regular


class SchemaError(UserError):
    """A record does not fit the schema; the message names file, line and field."""


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, decoded object) for each non-blank line; bad JSON names file and line.

    UTF-8 with or without a BOM, LF or CRLF line ends. A line that is not UTF-8 (or holds a NUL byte) raises naming file
    and line; a file that is one JSON array is told apart from JSONL.
    """
    path = regular(path)  # a FIFO or /dev/zero is refused, never read
    with path.open("rb") as fh:
        first = True
        for n, raw in enumerate(fh, 1):
            line = decode_line(raw, path, n)
            if not line.strip():
                continue
            if first and line.lstrip().startswith("["):
                raise SchemaError("a JSON array, expected JSONL (one JSON object per line); "
                                  "convert with: jq -c '.[]'", file=str(path), line=n)
            first = False
            try:
                yield n, loads(line, path, n)
            except json.JSONDecodeError as e:
                raise SchemaError(f"invalid JSON: {e.msg} (column {e.colno})", file=str(path), line=n) from None
            except RecursionError:
                raise SchemaError("JSON nested too deeply to read", file=str(path), line=n) from None
