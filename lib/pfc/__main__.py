"""``python -m pfc`` and the ``pfc`` command (``pfc.cli``): Ctrl-C while the command line is still loading
is one line and exit 130, like Ctrl-C in a command (``pfc.errors.entry``)."""
import sys


def main(argv=None) -> int:
    try:
        from pfc.cli import main as cli_main
        return cli_main(argv)
    except KeyboardInterrupt:  # before a command started (imports, the parser): nothing was done
        print("pfc: interrupted while starting; nothing was written", file=sys.stderr)
        from pfc.errors import EXIT_INTERRUPTED
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
