"""The openvino backend (OpenVINO GenAI continuous batching) on the real SmolLM2-135M IR from
``make models-openvino``, and the IR bookkeeping (pfc.models.openvino_ir) without a model."""
import json

import pytest

from pfc.errors import UserError
from pfc.models import openvino_ir, registry
from pfc.run.backends import Request, get

SMOL = "smollm2-135m"
MESSAGES = [[{"role": "system", "content": "You are a helpful assistant."},
             {"role": "user", "content": q}] for q in
            ("What is the capital of France?", "Name three colours.", "Count from one to five.",
             "Say hello in German.")]


def _greedy(max_tokens=24):
    return {"temperature": 0, "max_tokens": max_tokens, "seed": 0}


def _ir_ready():
    if registry.installed(SMOL) is None or openvino_ir.current(SMOL) is None:  # a failure: `make test` exports it
        pytest.fail(f"{SMOL} has no current OpenVINO IR: run `make models-openvino`")


@pytest.mark.model
def test_openvino_in_float32_answers_as_hf_in_float32_greedy():
    """The exported IR is the same model: with f32 compute and an f32 KV cache its greedy answers are the
    transformers model's, token for token (an independent route: hf's own forward pass)."""
    _ir_ready()
    reqs = [Request(m, None, _greedy()) for m in MESSAGES]
    ov = get("openvino", SMOL, precision="f32", kv_precision="f32").generate(reqs)
    hf = get("hf", SMOL, engine="single", dtype="float32").generate(reqs)
    assert [r.error for r in ov] == [None] * len(reqs)
    assert [r.text for r in ov] == [r.text for r in hf]


@pytest.mark.model
def test_openvino_counts_the_prompt_tokens_of_the_models_own_chat_template():
    _ir_ready()
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(registry.model_dir(SMOL)))
    (r,) = get("openvino", SMOL).generate([Request(MESSAGES[0], None, _greedy(4))])
    text = tok.apply_chat_template(MESSAGES[0], add_generation_prompt=True, tokenize=False)
    assert r.usage["prompt_tokens"] == len(tok.encode(text, add_special_tokens=False))
    assert 1 <= r.usage["completion_tokens"] <= 4


@pytest.mark.model
def test_openvino_seeded_sampling_gives_the_same_bytes_twice():
    _ir_ready()
    be = get("openvino", SMOL)
    reqs = [Request(m, None, {"temperature": 0.8, "top_p": 0.9, "max_tokens": 16, "seed": 3}) for m in MESSAGES]
    assert [r.text for r in be.generate(reqs)] == [r.text for r in be.generate(reqs)]


@pytest.mark.model
def test_openvino_identity_names_the_ir_runtime_and_precisions():
    _ir_ready()
    ident = get("openvino", SMOL, kv_precision="f16").identity()
    assert ident.startswith(f"{SMOL}@") and ":openvino-" in ident and ident.endswith(":prefill-b32:kv-f16")


@pytest.mark.model
def test_openvino_identity_names_a_scheduler_step_other_than_the_default():
    _ir_ready()
    assert get("openvino", SMOL, max_batched_tokens=4096).identity().endswith(":kv-bf16:step-4096")
    assert get("openvino", SMOL, max_batched_tokens=2048).identity().endswith(":kv-bf16")  # runs made before


@pytest.mark.model
def test_openvino_identity_names_whole_prompt_prefill_and_answers_with_it():
    _ir_ready()
    be = get("openvino", SMOL, split_fuse=False, max_batched_tokens=4096)
    assert be.identity().endswith(":kv-bf16:step-4096:no-split-fuse")
    assert be.generate([Request(messages=[{"role": "user", "content": "Say hi."}],
                                sampling={"temperature": 0, "max_tokens": 4})])[0].error is None


@pytest.mark.model
@pytest.mark.parametrize("kw, word", [({"model": "no-such-model"}, "neither a registered model"),
                                      ({"model": SMOL, "kv_precision": "u4"}, "kv_precision"),
                                      ({"model": SMOL, "max_batched_tokens": 16}, "max_batched_tokens"),
                                      ({"model": SMOL, "max_batched_tokens": "8192"}, "max_batched_tokens"),
                                      ({"model": ""}, "needs --model")])
def test_openvino_bad_options_are_one_line_user_errors(kw, word):
    with pytest.raises(UserError, match=word):
        get("openvino", **kw)


def _random_adapter(out):
    """A seeded LoRA adapter on SmolLM2-135M with non-zero B (peft's ``init_lora_weights=False``): it changes answers."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM
    torch.manual_seed(0)
    lm = AutoModelForCausalLM.from_pretrained(str(registry.model_dir(SMOL)), dtype=torch.float32)
    cfg = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], init_lora_weights=False,
                     task_type="CAUSAL_LM")
    get_peft_model(lm, cfg).save_pretrained(str(out))
    return out


@pytest.mark.model
def test_openvino_with_an_adapter_answers_as_hf_with_it_merged(tmp_path, monkeypatch):
    """--adapter on openvino merges the adapter and exports that model once (into the models directory, here a
    temporary one): its greedy answers are hf's with the same adapter merged (both float32, hf's merged weights
    rounded to the base's stored bf16 as the export stores them), they differ from the base model's (the
    adapter is applied, not dropped), the name carries the adapter's hash, and a second backend reuses the IR."""
    _ir_ready()
    import torch
    adapter = _random_adapter(tmp_path / "adapter")
    root = tmp_path / "models"
    root.mkdir()
    for n in (SMOL, f"{SMOL}.json", f"{SMOL}-openvino", f"{SMOL}-openvino.json"):
        (root / n).symlink_to(registry.model_dir(SMOL).parent / n)
    monkeypatch.setenv("PFC_MODELS_DIR", str(root))
    reqs = [Request(m, None, _greedy()) for m in MESSAGES]
    ov_be = get("openvino", SMOL, precision="f32", kv_precision="f32", adapter=str(adapter))
    ov = ov_be.generate(reqs)
    hf_be = get("hf", SMOL, engine="single", dtype="float32", adapter=str(adapter))
    hf_be.lm = hf_be.lm.to(torch.bfloat16).to(torch.float32)
    base = get("openvino", SMOL, precision="f32", kv_precision="f32").generate(reqs)
    assert [r.error for r in ov] == [None] * len(reqs)
    assert [r.text for r in ov] == [r.text for r in hf_be.generate(reqs)]
    assert [r.text for r in ov] != [r.text for r in base]
    assert ov_be.model == hf_be.model and ov_be.model.startswith(f"{SMOL}+lora:")
    merged = sorted(p.name for p in root.iterdir() if "+lora-" in p.name)
    assert len(merged) == 2 and merged[1] == merged[0] + ".json"  # the IR and its record; no temporary left
    stamp = (root / merged[0] / "openvino_model.xml").stat().st_mtime_ns
    again = get("openvino", SMOL, adapter=str(adapter))
    assert (root / merged[0] / "openvino_model.xml").stat().st_mtime_ns == stamp  # reused, not exported again
    assert again.fingerprint == ov_be.fingerprint


@pytest.mark.model
def test_openvino_adapter_without_weights_is_a_one_line_error(tmp_path):
    _ir_ready()
    with pytest.raises(UserError, match="adapter_model"):
        get("openvino", SMOL, adapter=str(tmp_path))


def _fake_install(root, name=SMOL):
    """A registry install record and directory as pfc.models.registry writes them (no weights)."""
    d = registry.model_dir(name, root)
    d.mkdir(parents=True)
    (d / "config.json").write_text("{}")
    registry.stamp_path(name, root).write_text(json.dumps({"gguf_sha256": registry.spec(name).gguf_sha256,
                                                         "recipe": registry.RECIPE}))
    ir = openvino_ir.ir_dir(name, root)
    ir.mkdir()
    (ir / "openvino_model.xml").write_text("<net/>")
    openvino_ir.record_path(name, root).write_text(json.dumps({"source_fingerprint": registry.fingerprint(str(d))}))
    return d


def test_an_ir_exported_from_the_installed_model_is_current(tmp_path):
    _fake_install(tmp_path)
    assert openvino_ir.current(SMOL, tmp_path) is not None


def test_an_ir_whose_source_model_changed_is_not_current(tmp_path):
    d = _fake_install(tmp_path)
    (d / "config.json").write_text('{"changed": true}')  # a re-converted model: new sizes, new fingerprint
    assert openvino_ir.current(SMOL, tmp_path) is None


def test_an_ir_without_its_model_file_is_not_current(tmp_path):
    _fake_install(tmp_path)
    (openvino_ir.ir_dir(SMOL, tmp_path) / "openvino_model.xml").unlink()
    assert openvino_ir.current(SMOL, tmp_path) is None


def test_warm_prefixes_end_on_whole_kv_cache_blocks():
    """A warm prefix ending inside a block made OpenVINO decode garbage for the requests reusing it (measured on
    the 1.5B; see warm_prefixes): every prefix it hands out is a whole number of blocks, never empty."""
    from pfc.run.backends.openvino import BLOCK, warm_prefixes
    shared = list(range(1000, 1000 + 3 * BLOCK + 5))           # 3 whole blocks and 5 tokens shared
    prompts = [shared + [1, 2], shared + [3], shared + [4, 5, 6]]
    got = warm_prefixes(prompts, min_new=BLOCK)
    assert got == [shared[:3 * BLOCK]]                           # hand count: 3 * 32 = 96 of the 101 shared tokens
    assert warm_prefixes([shared[:BLOCK - 1] + [1], shared[:BLOCK - 1] + [2]], min_new=1) == []  # < 1 block: none
