"""Low-level output primitives every stage uses: atomic files (:mod:`pfc.io.atomic`) and one-writer
directory locks (:mod:`pfc.io.lock`). Nothing here knows a benchmark, a run or a score."""
