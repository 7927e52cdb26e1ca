"""``python -m pfc`` and the ``pfc`` command (``pfc.cli``): Ctrl-C while the command line is still loading
is one line and exit 130, like Ctrl-C in a command (``pfc.errors.entry``)."""
import sys


def main(argv=None) -> int:
    try:
        from pfc.cli import main as cli_main
        return cli_main(argv)
    except KeyboardInterrupt:  # before a command started (imports, the parser): nothing was done
        print("pfc: interrupted while starting; nothing was written", file=sys.stderr, flush=True)
        # straight out with 130: a half-finished import (torn down at shutdown) must not turn this into a
        # death by SIGINT (exit -2, seen once on a loaded machine) after the line was printed
        import os
        os._exit(130)


if __name__ == "__main__":
    sys.exit(main())
