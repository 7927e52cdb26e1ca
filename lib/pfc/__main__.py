"""``python -m pfc`` entry point (see ``pfc.cli``)."""
import sys

from .cli import main

sys.exit(main())
