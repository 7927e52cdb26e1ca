"""A fast, interruptible command line: ``pfc --help``, ``parse``, ``score`` and ``run`` load no plotting or
scipy stack, and Ctrl-C at any moment, start-up included, is one line and exit 130."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "lib"), "PYTHONHASHSEED": "0"}
ENV.pop("PFC_DEBUG", None)


def imported(args: list[str], stdin: str = "") -> set[str]:
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "pfc", *args], input=stdin, text=True,
                       capture_output=True, env=ENV, cwd=ROOT, timeout=120)
    return {m.group(1).split(".")[0] for m in re.finditer(r"^import time:.*\|\s+(\S+)$", p.stderr, re.M)}


@pytest.mark.parametrize("args, stdin", [(["--help"], ""), (["parse", "--style", "ptbench"], "Shop:[buy(n=2)]\n"),
                                         (["score", "--help"], ""), (["run", "--help"], "")])
def test_the_light_commands_load_no_plotting_or_scipy_stack(args, stdin):
    assert imported(args, stdin) & {"pandas", "matplotlib", "seaborn", "scipy", "torch"} == set()


def test_report_and_compare_default_to_the_bootstrap_resamples_of_the_library():
    from pfc.cli import main  # noqa: F401  (builds nothing heavy)
    from pfc.eval.bootstrap import N_BOOT
    src = (ROOT / "lib" / "pfc" / "report" / "runs.py").read_text(encoding="utf-8")
    assert f"default={N_BOOT} if name == \"report\"" in src


# ``python -m pfc parse``, once the interpreter, the ``pfc`` package and its tiny ``pfc.__main__`` are imported: it says
# so on stderr ("R") and calls ``pfc.__main__.main`` (what ``python -m pfc`` and the ``pfc`` script do next), so a test
# knows when pfc's own start-up begins instead of guessing from a timing. Before that point nothing of pfc's runs (a
# loaded machine made earlier marks land in Python's own start or in runpy compiling ``__main__``: a KeyboardInterrupt
# traceback no program can prevent). SIGINT gets Python's own handler first, as in a terminal: a test run started in
# the background by a non-interactive shell (``make test &``) hands its children SIGINT ignored, and Python keeps an
# ignored SIGINT ignored (seen: all four cases exit 1 with nothing said, the signal never arriving)
BOOT = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); import pfc.__main__ as m; "
        "sys.stderr.write('R'); sys.stderr.flush(); sys.exit(m.main())")


@pytest.mark.parametrize("after", [0.0, 0.05, 0.15, 0.4, 1.0])  # 0.0: in the first import of pfc.cli
def test_ctrl_c_at_any_moment_is_one_line_and_exit_130(after):
    """``pfc parse`` waits on standard input once started: a SIGINT ``after`` seconds past the start of pfc's own
    start-up (signalled by the child, :data:`BOOT`) lands while pfc loads or in the command; either way one line and
    exit 130."""
    p = subprocess.Popen([sys.executable, "-c", BOOT, "parse"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    assert p.stderr.read(1) == "R"  # the interpreter is up: what follows is pfc's
    time.sleep(after)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    p.stdin and p.stdin.close()
    assert p.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_ctrl_c_between_loading_pfc_main_and_calling_main_is_one_line_and_exit_130():
    """The window no timing hits reliably (seen once under pytest-xdist): SIGINT after ``pfc.__main__`` is
    imported, before :func:`pfc.__main__.main` enters its ``try`` (a KeyboardInterrupt there would escape as a
    traceback and exit -2). The child signals itself at exactly that point."""
    boot = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "import pfc.__main__ as m; os.kill(os.getpid(), signal.SIGINT); sys.exit(m.main())")
    p = subprocess.run([sys.executable, "-c", boot, "parse"], input="", capture_output=True, text=True, env=ENV,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 130, p.stderr
    assert p.stderr.strip() == "pfc: interrupted while starting; nothing was written"


def test_a_sigint_ignored_by_the_parent_stays_ignored_while_pfc_starts():
    """A background job's SIGINT is ignored by its shell's choice: pfc's start-up handler does not override it."""
    boot = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            "import pfc.__main__ as m; os.kill(os.getpid(), signal.SIGINT); sys.exit(m.main())")
    p = subprocess.run([sys.executable, "-c", boot, "parse", "--style", "ptbench"], input="Shop:[buy(n=2)]\n",
                       capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120)
    assert p.returncode == 0 and "interrupted" not in p.stderr, p.stderr
