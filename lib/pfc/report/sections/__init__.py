"""Each benchmark's section of ``pfc report``, one module per benchmark, named by its adapter (``Adapter.report``).

A section module defines ``SUMMARY`` (the metrics ``pfc compare`` prints) and one function
``(writer, runs, n_boot, seed) -> None`` named ``<benchmark>_section`` that writes its tables and
figures through ``pfc.report.writer.Writer``; it gets that benchmark's runs only (never none).
"""
