"""``python -m pfc`` entry point (see ``pfc.cli``)."""
import sys

from pfc.cli import main

sys.exit(main())
