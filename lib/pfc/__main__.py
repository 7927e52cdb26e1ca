"""``python -m pfc`` and the ``pfc`` command (``pfc.cli``): Ctrl-C while the command line is still loading
is one line and exit 130, like Ctrl-C in a command (``pfc.errors.entry``).

From the moment this module is imported until the command line has loaded, SIGINT ends the process at once with that
line (a handler, not an exception: a KeyboardInterrupt raised on the first instruction of :func:`main`, before its
``try``, would escape as a traceback and a death by SIGINT). Where SIGINT was not Python's default (ignored by a
background shell, or set by an embedding program), nothing changes.
"""
import os
import signal
import sys

STARTING = "pfc: interrupted while starting; nothing was written"


def _interrupted_while_starting(signum, frame):
    print(STARTING, file=sys.stderr, flush=True)
    os._exit(130)  # straight out: a half-finished import must not turn this into a death by SIGINT


_OURS = signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _OURS:
    signal.signal(signal.SIGINT, _interrupted_while_starting)


def main(argv=None) -> int:
    try:
        from pfc.cli import main as cli_main
        if _OURS:  # loaded: Ctrl-C is a KeyboardInterrupt again, which each command handles (pfc.errors.entry)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        return cli_main(argv)
    except KeyboardInterrupt:  # before a command started (the parser): nothing was done
        _interrupted_while_starting(signal.SIGINT, None)


if __name__ == "__main__":
    sys.exit(main())
