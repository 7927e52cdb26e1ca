"""The pipeline: ``make reproduce``'s orchestration (``python -m pfc.report.pipeline``, :mod:`.command`).

It plans the steps (:mod:`.planning`, :mod:`.studies`: builds, runs, notebooks, each benchmark's own steps from its
package), keys and runs or skips each one (:mod:`.step`, :mod:`.running`), executes the notebooks (:mod:`.notebook`,
:mod:`.executed`) and writes ``reports/index.{md,html}`` (:mod:`.index`, :mod:`.index_html`). It draws no table and
reads no run itself: the notebooks and report modules it runs do (``pfc.report.tables``, ``pfc.report.reference``).
Re-exported here: the names notebooks and tests use.
"""
from pfc import paths  # noqa: F401 - re-exported (pipeline.paths)
from pfc.report.notebook_helpers import (REAL_MODEL_NAME, out_dir, real_model_dir,  # noqa: F401 - re-exported
                                         split_dirs, stratified_sample, walkthrough_examples)
from pfc.report.pipeline.command import main  # noqa: F401 - re-exported
from pfc.report.pipeline.notebook import execute, to_html  # noqa: F401 - re-exported
from pfc.report.pipeline.planning import plan  # noqa: F401 - re-exported
from pfc.report.pipeline.running import PIPELINE_LOCK, reproduce  # noqa: F401 - re-exported
from pfc.report.pipeline.step import Step, StepFailed, lib_hash, rel, run_step, step_key  # noqa: F401 - re-exported
from pfc.report.pipeline.studies import EVIDENCE_KINDS, counterfactual_steps, evidence_steps  # noqa: F401 - re-exported
