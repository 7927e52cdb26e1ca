"""Export a local transformers model directory to OpenVINO IR for the ``openvino`` backend.

    <export venv>/bin/python lib/pfc/models/openvino_export.py SRC_DIR DEST_DIR

Runs in its own virtual environment (``.venv-openvino``, ``requirements-openvino-export.txt``): optimum-intel pins a
transformers older than the project's, so this file imports nothing from ``pfc`` and is started as a script by
:mod:`pfc.models.openvino_ir`. It writes a stateful IR with the weights as they are in SRC (bf16 stays bf16: no weight
compression) plus the tokenizer files, into DEST, which must not exist yet (the caller exports into a temporary
directory and renames it). It does not quantize, download or run anything.
"""
from __future__ import annotations

import json
import os
import sys
import time

# this file's folder holds specs.py, registry.py, openvino_ir.py: never let them shadow the exporter's packages
sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != os.path.dirname(os.path.realpath(__file__))]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: openvino_export.py SRC_DIR DEST_DIR", file=sys.stderr)
        return 2
    src, dest = argv
    os.environ["HF_HUB_OFFLINE"] = "1"  # a local directory only: never the hub
    t0 = time.perf_counter()
    from importlib.metadata import version
    from optimum.intel import OVModelForCausalLM
    from transformers import AutoTokenizer
    # load_in_8bit=False: the weights as they are (optimum compresses models > 1B parameters by default)
    model = OVModelForCausalLM.from_pretrained(src, export=True, load_in_8bit=False, compile=False)
    model.save_pretrained(dest)
    AutoTokenizer.from_pretrained(src).save_pretrained(dest)
    info = {**{k: version(k) for k in ("openvino", "optimum-intel", "transformers", "torch")},
            "seconds": round(time.perf_counter() - t0, 1)}
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
