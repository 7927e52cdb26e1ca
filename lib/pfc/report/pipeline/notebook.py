"""Executing one notebook step of ``make reproduce``: papermill runs ``notebooks/<notebook>`` with the step's
parameters into ``reports/notebooks/<copy_name>.ipynb`` (:func:`execute`), then an HTML copy (:func:`to_html`).

Does not decide whether a step runs (:mod:`pfc.report.pipeline.running`) nor run Python steps; the kernel's environment
and the executed copy's tidying are :mod:`pfc.report.pipeline.executed`'s.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from jupyter_client.manager import KernelManager
from nbconvert import HTMLExporter

from pfc import paths
from pfc.io import atomic
from pfc.report.pipeline.step import Step
from pfc.report.pipeline import executed


_LIVE: set = set()  # the kernels of the steps running now (a background step's too), for stop_kernels


def stop_kernels(now: bool = False) -> None:
    """Interrupt (``now``: kill) every step's kernel still running. An interrupted pipeline's background step would
    otherwise run on until its kernel noticed the pipeline gone (and said so after the pipeline's last line);
    interrupted, its run writes what it finished and says it was interrupted, as after Ctrl-C in ``pfc run``."""
    for km in list(_LIVE):
        try:
            km.shutdown_kernel(now=True) if now else km.interrupt_kernel()
        except Exception:  # noqa: BLE001 - already gone: nothing to stop
            pass


def execute(step: Step) -> None:
    import papermill as pm
    nb = paths.REPORTS / "notebooks"
    nb.mkdir(parents=True, exist_ok=True)
    target = nb / f"{step.copy_name}.ipynb"
    # the kernel talks over local sockets in a private temporary folder, not over TCP (ipykernel warns that
    # TCP is unencrypted, once per step); the kernel is ours, so we shut it down
    # (pfc.report.pipeline.executed: progress bars to the terminal, then no absolute path in the saved copy)
    with tempfile.TemporaryDirectory(prefix="pfc-kernel-") as sock, executed.kernel_env():
        km = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sock) / "k"))
        _LIVE.add(km)
        try:
            pm.execute_notebook(str(paths.NOTEBOOKS / step.notebook), str(target), parameters=step.params,
                                kernel_name="python3", language="python", cwd=str(paths.ROOT), progress_bar=False,
                                log_output=False, km=km)
        finally:
            _LIVE.discard(km)
            if km.has_kernel:
                km.shutdown_kernel(now=True)
            if target.exists():  # a failed step's copy too: it is where the user looks
                executed.tidy(target, paths.NOTEBOOKS / step.notebook)
    to_html(target)


def to_html(notebook: Path) -> Path:
    # sanitized: Markdown cells and text/markdown or text/html outputs (report.md shown by a notebook, names from
    # configs) lose scripts, event handlers and other active content on their way to HTML
    body, _ = HTMLExporter(sanitize_html=True).from_filename(str(notebook))
    return atomic.write_text(notebook.with_suffix(".html"), body)
