"""``python -m pfc.report.pipeline``: ``make reproduce``'s command line (:func:`pfc.report.pipeline.command.main`)."""
import sys

from pfc.report.pipeline.command import main

sys.exit(main())
