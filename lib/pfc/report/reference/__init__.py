"""The reference runs' readers: the committed real-model runs under ``reports/reference_runs/`` read, scored and paired.

:mod:`.run` reads one run directory (what it holds, its label, its data version), :mod:`.score` writes
``metrics.json`` (``python -m pfc.report.reference``), :mod:`.pairs` and :mod:`.personalization` write
``paired.{json,md}``. They run nothing: the runs are ``pfc.plans.reference``'s; the tables over any run directories
are ``pfc.report.tables``'.
"""
