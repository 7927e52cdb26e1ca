"""``python -m pfc.report.reference``: score the reference runs (:func:`pfc.report.reference.score.main`)."""
import sys

from pfc.report.reference.score import main

sys.exit(main())
