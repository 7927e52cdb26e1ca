"""Does OpenVINO use this CPU's bf16 matrix units? One MLP-sized matmul (1024 x 896 @ 896 x 4864, the 0.5B's
prefill chunk) timed in OpenVINO (bf16 and f32 inference precision, 2 threads) and in torch bf16, fastest of 10.

    python benchmarks/probe_ov_matmul.py     # prints three GFLOP/s figures; writes nothing

A probe for issue 63's notes (reports/perf_engines_amx.md), not a benchmark of the engines: the rates are kernel
rates, measured on whatever else the machine does.
"""
import time, numpy as np, openvino as ov
from openvino import opset13 as ops
import torch
core = ov.Core()
print("caps", core.get_property("CPU", "OPTIMIZATION_CAPABILITIES"))
M, K, N = 1024, 896, 4864
x = ops.parameter([M, K], ov.Type.f32)
w = ops.constant(np.random.randn(K, N).astype(np.float32))
m = ov.Model([ops.matmul(x, w, False, False)], [x])
for hint in ("bf16", "f32"):
    c = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": hint, "INFERENCE_NUM_THREADS": 2})
    r = c.create_infer_request(); a = np.random.randn(M, K).astype(np.float32)
    r.infer([a]); best = 1e9
    for _ in range(10):
        t = time.perf_counter(); r.infer([a]); best = min(best, time.perf_counter() - t)
    print("openvino", hint, round(2*M*K*N/best/1e9), "GFLOP/s")
torch.set_num_threads(2)
A = torch.randn(M, K, dtype=torch.bfloat16); B = torch.randn(K, N, dtype=torch.bfloat16)
A @ B; best = 1e9
for _ in range(10):
    t = time.perf_counter(); A @ B; best = min(best, time.perf_counter() - t)
print("torch bf16", round(2*M*K*N/best/1e9), "GFLOP/s")
