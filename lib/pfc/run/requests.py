"""Requests of one run: each example's prompt (and tool specs) under the run's strategy and history.

:class:`RequestBuilder` holds what every request of a run shares (the candidate tools, the
strategy, history mode, sampling, few-shot pool, PTBench prompt variant) and builds the answer
request of an example (:meth:`RequestBuilder.answer`, optionally restricted to one domain) and
the hierarchical strategy's step 1 (:meth:`RequestBuilder.domain`). The prompt texts are the
benchmark's prompt module's (``pfc.run.prompts``); :func:`template_identity` says which template
text a run uses and where it comes from (our wording, an official file, the ToolSpectrum
release), by content hash, for the run identity. This module calls no backend.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from pfc import paths
from pfc.run.backends import Request


def _sha(*texts: str) -> str:
    return hashlib.sha256("\0".join(texts).encode("utf-8", "surrogatepass")).hexdigest()


def template_identity(benchmark: str) -> dict:
    """``{"source", "sha256"}`` of the prompt template this run's requests are built from: PTBench's official
    prompt (``PFC_PTBENCH_DIR``) or our wording, the ToolSpectrum release's prompt files, our TRACEBench
    wording (its prompt module). A different template means different requests: a different run."""
    if benchmark == "ptbench":
        from pfc.run.prompts import ptbench as pt
        official = pt._wording("auto")
        if official is not None:
            return {"source": "official", "sha256": _sha(*official)}
        return {"source": "own", "sha256": _sha(pt.SYSTEM, pt.SYSTEM_NO_PERSONAL)}
    if benchmark == "toolspectrum":
        from pfc.run.prompts.toolspectrum import FILES
        d = paths.toolspectrum_dir()
        if d is None:
            return {"source": "own", "sha256": None}
        texts = [(Path(d) / sub / name).read_text(encoding="utf-8", errors="surrogateescape")
                 if (Path(d) / sub / name).exists() else "" for tpl, api in FILES.values()
                 for sub, name in (("prompts", tpl), ("api", api))]
        return {"source": "release", "sha256": _sha(*texts)}
    from pfc.run.prompts import tracebench
    return {"source": "own", "sha256": _sha(Path(tracebench.__file__).read_text(encoding="utf-8"))}


class RequestBuilder:
    def __init__(self, benchmark: str, tools, strategy: str = "zero_shot", history: str = "full", k: int = 50,
                 native: bool = True, sampling: dict | None = None, pool=(), prompt_variant: str = "all"):
        self.benchmark, self.strategy, self.history, self.k, self.native = benchmark, strategy, history, k, native
        self.tools_by_key = tools if isinstance(tools, dict) else {t.key: t for t in tools}
        self.sampling, self.pool, self.prompt_variant = dict(sampling or {}), pool, prompt_variant
        self.seed = int(self.sampling.get("seed", 0))
        self._prompters: dict = {}  # this run's own prompt builders (ToolSpectrum: one per subset)

    def _toolspectrum_prompter(self, example):
        """One prompter per subset, with this run's pool (few-shot sources) and seed."""
        from pfc.run.prompts.toolspectrum import ToolSpectrumPrompter
        sub = example.meta.get("subset", "both")
        if sub not in self._prompters:
            same = [e for e in self.pool if e.meta.get("subset", "both") == sub]
            # clean=True: the release's persona template leaks its own file name into the answer format
            # (`"APP": "APP",prompt_call_api_persona.txt`), which real models copy; runs use the cleaned text
            self._prompters[sub] = ToolSpectrumPrompter(sub, list(self.tools_by_key.values()), paths.toolspectrum_dir(),
                                                        pool=same, seed=self.seed, clean=True)
        return self._prompters[sub]

    def domain(self, example) -> tuple[Request, dict]:
        """Hierarchical step 1 and the domain names it may answer with."""
        if self.benchmark == "tracebench":
            from pfc.run.prompts.tracebench import domain_prompt
            p = domain_prompt(example, self.tools_by_key)
        else:
            p = self._toolspectrum_prompter(example).domain_prompt(example)
        return Request(p.messages, None, dict(self.sampling)), p.meta["domains"]

    def answer(self, example, domain: str | None = None) -> Request:
        """The request for the answer (step 2 of the hierarchical strategy: ``domain`` from step 1)."""
        if self.benchmark == "tracebench":
            from pfc.run.prompts.tracebench import build
            prompt, specs = build(example, self.tools_by_key, native=self.native, history=self.history, k=self.k,
                                  strategy=self.strategy, pool=self.pool, seed=self.seed, domain=domain)
            return Request(prompt.messages, specs, dict(self.sampling))
        if self.benchmark == "ptbench":
            from pfc.run.prompts.ptbench import build as build_pt
            return Request(build_pt(example, self.strategy, self.pool, self.seed, variant=self.prompt_variant).messages,
                           None, dict(self.sampling))
        return Request(self._toolspectrum_prompter(example).build(example, self.strategy, domain=domain).messages,
                       None, dict(self.sampling))
