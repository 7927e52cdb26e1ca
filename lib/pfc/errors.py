"""User errors: one exception type for a mistake the user can fix, and the checks that raise it.

A :class:`UserError` names the file, the line (or record) and the field it is about; the command line prints it as one
line, ``pfc <cmd>: <file>:<line>: field '<field>': <message>``, and exits 2 — never a traceback. Only this type (and an
``OSError`` on a user's path) is a user error: it subclasses ``Exception``, not ``ValueError``, so a ``ValueError`` or
``ImportError`` raised by a bug is not mistaken for one. Anything else that escapes a command is a bug in pfc:
:func:`report_bug` prints a short traceback and says so, exit 1 (``PFC_DEBUG=1``: the full traceback). This module also
holds the small input checks every command shares (a file where a file is expected, an output directory that is not a
file, text that decodes as UTF-8, numbers in range). It does not know any benchmark format.

    >>> str(UserError("expected a string", file="p.jsonl", line=3, field="output"))
    "p.jsonl:3: field 'output': expected a string"
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
import os
import re
import sys
import traceback

EXIT_USER_ERROR = 2       # a bad input, refused before or while reading it
EXIT_RUN_FAILED = 1       # `pfc run`: some requests failed or nothing was written
EXIT_INTERRUPTED = 130    # Ctrl-C (128 + SIGINT)
EXIT_BUG = 1              # an exception that is not a UserError: a bug in pfc


class UserError(Exception):
    """A mistake in the user's input or command; the message names file, line and field."""

    def __init__(self, message: str, *, file: str | None = None, line=None, field: str | None = None):
        self.msg, self.file, self.line, self.field = message, file, line, field
        where = ":".join(str(p) for p in (file, line) if p is not None)
        prefix = f"{where}: " if where else ""
        fld = f"field '{field}': " if field else ""
        super().__init__(f"{prefix}{fld}{message}")


class MissingDependency(UserError):
    """An optional stack (torch, vLLM, peft) is not installed; the message says how to install it."""


def report_bug(cmd: str, exc: BaseException, frames: int = 3) -> int:
    """Print the last ``frames`` frames of ``exc``'s traceback and "this is a bug in pfc" on stderr;
    returns :data:`EXIT_BUG`. The full traceback is ``PFC_DEBUG=1`` (callers re-raise then)."""
    tb = traceback.extract_tb(exc.__traceback__)[-frames:]
    lines = "".join(traceback.format_list(tb)).rstrip("\n")
    what = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    print(f"{lines}\n{what}\npfc {cmd}: this is a bug in pfc ({type(exc).__name__}); "
          "PFC_DEBUG=1 shows the full traceback", file=sys.stderr)
    return EXIT_BUG


INTERRUPTED = "interrupted; files it had finished are kept (each is replaced whole or not at all)"


def entry(name: str, main, *args, bugs: bool = True, interrupted: str = INTERRUPTED) -> int:
    """The one error path of every command and ``main()``: ``main(*args)``'s exit code (None: 0).

    A :class:`UserError` or an ``OSError`` is one line ``<name>: <message>`` on stderr and exit 2; Ctrl-C is one line
    (the interrupt's own text, else ``interrupted``) and exit 130; any other exception is a bug: a short traceback and
    exit 1 (:func:`report_bug`), or, with ``bugs=False`` (scripts outside ``pfc``), its full traceback. ``PFC_DEBUG=1``
    re-raises every one of them with its full traceback.
    """
    try:
        code = main(*args)
        return 0 if code is None else code
    except (UserError, OSError) as e:
        if os.environ.get("PFC_DEBUG"):
            raise
        print(f"{name}: {os_error_message(e) if isinstance(e, OSError) else e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt as e:
        if os.environ.get("PFC_DEBUG"):
            raise
        print(f"{name}: {str(e) or interrupted}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # noqa: BLE001 - not a user error: say it is ours
        if os.environ.get("PFC_DEBUG") or not bugs:
            raise
        return report_bug(name.removeprefix("pfc "), e)


def script_main(name: str, main, argv=None) -> int:
    """:func:`entry` for a script outside ``pfc`` (``benchmarks/*.py``): a bug propagates with its traceback."""
    return entry(name, main, argv, bugs=False)


def os_error_message(e: OSError) -> str:
    """One line for an OSError on a user path (no errno tuple, no traceback); one raised with a message of
    its own (``FileNotFoundError("x: not found (…)")``) keeps it.

    >>> os_error_message(FileNotFoundError(2, "No such file or directory", "a.json"))
    'a.json: not found'
    >>> os_error_message(FileNotFoundError("runs/x/config.json: not found (a run directory holds …)"))
    'runs/x/config.json: not found (a run directory holds …)'
    """
    if e.filename is None and e.strerror is None and len(e.args) == 1 and isinstance(e.args[0], str):
        return e.args[0]
    what = {IsADirectoryError: "is a directory, expected a file",
            NotADirectoryError: "is not a directory",
            FileNotFoundError: "not found",
            FileExistsError: "exists and is not a directory",
            PermissionError: "permission denied"}.get(type(e), e.strerror or type(e).__name__)
    return f"{e.filename}: {what}" if e.filename else what


# ---------------------------------------------------------------- paths
def existing(path, flag: str) -> Path:
    """``path`` exists (file or directory), else a UserError naming the flag; a FIFO or a device is refused."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"not found (given as {flag})", file=str(path))
    return regular(p)


def regular(path) -> Path:
    """``path``, refused in one line when it exists and is neither a regular file nor a directory: a FIFO blocks
    its reader, ``/dev/zero`` never ends. Checked before opening (opening a FIFO already blocks)."""
    p = Path(path)
    if p.exists() and not (p.is_file() or p.is_dir()):
        raise UserError("not a regular file (a FIFO, a device or a socket)", file=str(path))
    return p


def out_dir(path, flag: str = "--out") -> Path:
    """An output directory: may exist as a directory, never as a file."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UserError(f"exists and is a file; {flag} must be a directory", file=str(path))
    return p


def out_file(path, flag: str = "--out") -> Path:
    """An output file: its folder exists, and it is not itself a directory."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"is a directory; {flag} must be a file", file=str(path))
    if not p.parent.is_dir():
        raise UserError(f"its folder does not exist (given as {flag})", file=str(path))
    return p


# ---------------------------------------------------------------- text
def decode_line(raw: bytes, path, n: int) -> str:
    """One line of a text file as str: UTF-8 (a BOM on line 1 accepted), CR/LF stripped by the caller."""
    if b"\x00" in raw:
        raise UserError("binary data (NUL byte), expected UTF-8 text", file=str(path), line=n)
    try:
        text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"not UTF-8 text (byte 0x{raw[e.start]:02x} at column {e.start + 1})",
                        file=str(path), line=n) from None
    return text


def read_text(path) -> str:
    """A whole UTF-8 file (BOM accepted; a regular file only); an undecodable byte is reported with its line."""
    p = regular(path)
    raw = p.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        n = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        what = "binary data, expected UTF-8 text" if b"\x00" in raw[:4096] else "not UTF-8 text"
        raise UserError(f"{what} (byte 0x{raw[e.start]:02x} at column {col})", file=str(path), line=n) from None


def read_json(path):
    """A JSON document (BOM accepted); bad JSON names the file and line, so does an integer too long to read."""
    text = read_text(path)
    try:
        return loads(text, path)
    except json.JSONDecodeError as e:
        raise UserError(f"invalid JSON: {e.msg} (column {e.colno})", file=str(path), line=e.lineno) from None


class _LongInt(Exception):
    """An integer literal longer than Python converts (``sys.get_int_max_str_digits``)."""


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _LongInt(text) from None


def loads(text: str, path, line: int | None = None):
    """``json.loads(text)``; an integer too long to convert is a UserError naming ``path``, the line and the
    field it stands in (the last key before it), never a ValueError. (Read again only then, to find it.)"""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:
        long = _long_int(text)
        if long is None:
            raise
    at = text.find(long)
    keys = re.findall(r'"((?:[^"\\]|\\.)*)"\s*:', text[:at])
    field = json.loads(f'"{keys[-1]}"') if keys else None
    raise UserError(f"an integer of {len(long.lstrip('-'))} digits, more than the {sys.get_int_max_str_digits()} "
                    "pfc reads", file=str(path), line=line or text.count("\n", 0, at) + 1, field=field)


def _long_int(text: str) -> str | None:
    """The first integer literal in the JSON ``text`` too long to convert, or None."""
    try:
        json.loads(text, parse_int=_int)
    except _LongInt as e:
        return e.args[0]
    except ValueError:
        pass
    return None


# ---------------------------------------------------------------- numbers (argparse types)
def _int_at_least(low: int, what: str):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if v < low:
            raise argparse.ArgumentTypeError(f"expected {what}, got {v}")
        return v
    parse.__name__ = what
    return parse


positive_int = _int_at_least(1, "an integer >= 1")
nonneg_int = _int_at_least(0, "an integer >= 0")


def _float_in(low: float, high: float | None, what: str, open_low: bool = False):
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if v != v or (v <= low if open_low else v < low) or (high is not None and v > high):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text}")
        return v
    parse.__name__ = what
    return parse


positive_float = _float_in(0.0, None, "a number > 0", open_low=True)
nonneg_float = _float_in(0.0, None, "a number >= 0")
unit_float = _float_in(0.0, 1.0, "a number in [0, 1]")
