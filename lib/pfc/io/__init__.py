"""Low-level file primitives every stage uses: atomic files (:mod:`pfc.io.atomic`), one-writer
directory locks (:mod:`pfc.io.lock`) and reading an unchanged file once per report (:mod:`pfc.io.reuse`). Nothing here
knows a benchmark, a run or a score."""
