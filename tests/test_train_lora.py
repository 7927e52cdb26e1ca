"""pfc.train.lora: LoRA SFT on PTool-synthesized data teaches a real packaged model PTBench's
bracket format; adapters load through the hf backend; checkpoints resume; another
configuration is refused.

The format test uses SmolLM2-135M-Instruct (installed by `make models`, a prerequisite of
`make test`; ~1.5 min on CPU): before training it answers in prose (format accuracy 0/6 here),
after one epoch on 48 records it answers ``Platform:[func(param='value')]``. The tiny locally
built model cannot be taught the format under LoRA: its tied 64-wide embeddings are random
(std 0.02), so with the final norm frozen its logits stay within about ±1.3 and the loss
plateaus near 6 nats even on one memorized record (measured; see the closing note of the
issue) — it stays for the fast plumbing tests below.
"""
import json

import pytest

from pfc.errors import UserError
from pfc.benchmarks.ptbench.official import OfficialFormatError, official_parse
from pfc.data.ptool.build import synthesize
from pfc.train.sft import answer_text
from pfc.models import registry
from pfc.run.backends import Request
from pfc.run.backends.hf import HFBackend
from pfc.train.lora import PAPER, train_lora

SYSTEM = "Answer as platform:[func(param=value)]."
SMOL = "smollm2-135m"


@pytest.fixture(scope="module")
def records():
    """48 training chats and 6 held-out requests of an untrained user (a small seeded synthesis, the first
    PTool synthesis: this test is about the answer format, which 48 chats of v2's far wider phrasing do not
    yet teach SmolLM2 — measured 0.33 of 6 held-out answers in format after training, v1 at least 0.5)."""
    r = synthesize(seed=7, ks=(1, 2, 2), per_user=16, unseen_ks=(1, 1, 1), unseen_per_user=1, held_out=1, version=1)
    recs = [{"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": x["query"]},
                          {"role": "assistant", "content": answer_text(x["answer"])}]}
            for x in r["splits"]["train"] + r["splits"]["test_trained_user"]][:48]
    held = [{"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": x["query"]}]}
            for x in r["splits"]["test_untrained_user"][:6]]
    return recs, held


def format_accuracy(be, held) -> float:
    """The share of answers the published evaluator parses (PTBench's format accuracy)."""
    ok = 0
    for h in held:
        (resp,) = be.generate([Request(h["messages"], None, {"temperature": 0, "max_tokens": 48, "seed": 0})])
        try:
            official_parse(resp.text or "")
            ok += 1
        except OfficialFormatError:
            pass
    return ok / len(held)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from tiny_model import build_tiny_model  # benchmarks/ (tests/conftest.py puts it on the path)
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), steps=0)


def test_paper_settings_are_the_defaults():
    # PTBench §5.1: rank 8, alpha 16, lr 1e-4, cosine, warm-up 0.1, one epoch, all linear modules
    assert PAPER == {"r": 8, "lora_alpha": 16, "lr": 1e-4, "scheduler": "cosine", "warmup_ratio": 0.1, "epochs": 1,
                     "target_modules": "all-linear", "lora_dropout": 0.0}


@pytest.mark.model
def test_lora_raises_format_accuracy_of_a_real_model_on_held_out_users(records, tmp_path):
    # trap: a loss that goes down while generation stays in prose; the measure is the evaluator's parse
    if registry.installed(SMOL) is None:  # a failure, not a skip: `make test` installs it first
        pytest.fail(f"{SMOL} is not installed in {registry.paths.models_dir()}: run `make models`")
    recs, held = records
    base = str(registry.model_dir(SMOL))
    before = format_accuracy(HFBackend(model=base), held)
    s = train_lora(base, recs, tmp_path / "run", lr=1e-3, progress=False)  # 48 steps: 10x the paper's lr
    after_be = HFBackend(model=base, adapter=str(tmp_path / "run" / "adapter"))
    after = format_accuracy(after_be, held)
    assert before < after and after >= 0.5, (before, after)
    assert s["last_loss"] < s["first_loss"]
    assert "+lora:" in after_be.model  # cache keys never confuse base and adapter
    log = [json.loads(line) for line in (tmp_path / "run" / "train_log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in log] == list(range(1, s["steps"] + 1))


@pytest.mark.model
def test_a_finished_run_resumes_without_retraining_and_refuses_another_config(tiny, records, tmp_path):
    recs = records[0][:4]
    train_lora(tiny, recs, tmp_path / "run", lr=1e-3, progress=False, checkpoint_every=1)
    again = train_lora(tiny, recs, tmp_path / "run", lr=1e-3, progress=False, checkpoint_every=1)
    assert again["steps_this_session"] == 0  # resumed at the last step: nothing left to train
    with pytest.raises(UserError, match="another configuration"):
        train_lora(tiny, recs, tmp_path / "run", lr=2e-3, progress=False)


@pytest.mark.model
def test_a_resumed_run_reports_its_first_loss_and_all_its_time_and_logs_each_step_once(tiny, records, tmp_path):
    # trap: a summary of the last session only (first loss of the resumed step, seconds of that session)
    recs = records[0][:4]
    first = train_lora(tiny, recs, tmp_path / "run", lr=1e-3, progress=False, checkpoint_every=1)
    log_path = tmp_path / "run" / "train_log.jsonl"
    rows = [json.loads(line) for line in log_path.read_text().splitlines()]
    with log_path.open("a") as f:  # a row trained after the last checkpoint, then killed: trained again on resume
        f.write(json.dumps({"step": first["steps"] + 1, "loss": 9.0, "lr": 0.0, "elapsed_s": 1e6}) + "\n")
        f.write('{"step": 6, "loss": 0.1')  # a row cut short by the kill
    again = train_lora(tiny, recs, tmp_path / "run", lr=1e-3, progress=False, checkpoint_every=1)
    assert again["first_loss"] == rows[0]["loss"] and again["last_loss"] == rows[-1]["loss"]
    assert again["seconds"] == round(rows[-1]["elapsed_s"], 1)
    assert [json.loads(line)["step"] for line in log_path.read_text().splitlines()] == [1, 2, 3, 4]


def test_reference_adapter_summary_covers_both_of_its_sessions():
    # the committed adapter trained steps 1-110, was stopped, and resumed for 111-500; its log's elapsed_s
    # restarts at step 111 (5201.07 s at step 110, 9235.59 s at step 500): 14436.66 s in all, by hand
    from pfc.report.reference.run import ROOT
    d = ROOT / "qwen2.5-coder-0.5b-openvino" / "lora-adapter"
    s = json.loads((d / "train_summary.json").read_text())
    assert (s["first_loss"], s["last_loss"], s["seconds"]) == (0.84869, 0.01961, 14436.7)


@pytest.mark.model
def test_a_log_that_is_not_the_trainers_is_a_one_line_error_naming_file_and_line(tiny, records, tmp_path):
    recs = records[0][:4]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "train_log.jsonl").write_text('{"step": 1, "loss": 0.5, "elapsed_s": 1}\n{"step": 2}\n')
    with pytest.raises(UserError, match=r"train_log\.jsonl:2: no number 'loss'"):
        train_lora(tiny, recs, tmp_path / "run", lr=1e-3, progress=False, checkpoint_every=1)


@pytest.mark.model
def test_missing_adapter_is_a_clear_error_before_the_base_weights_load(tiny, tmp_path, monkeypatch):
    import transformers

    def no_load(*a, **k):
        raise AssertionError("the base weights loaded before --adapter was checked")
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", no_load)
    with pytest.raises(UserError, match="adapter_model"):  # one line through the CLI's error path, naming --adapter
        HFBackend(model=str(tiny), adapter=str(tmp_path))


@pytest.mark.model
def test_reference_adapter_is_copied_whole_and_names_no_absolute_path(tiny, golden, tmp_path, monkeypatch):
    from pfc.plans import reference
    monkeypatch.setitem(reference.LORA, "train_n", 3)
    train_json = golden / "ptbench_official" / "test_trained_user" / "data.json"
    out = reference.train_adapter(str(tiny), train_json, out=tmp_path / "lora-adapter", work=tmp_path / "work")
    names = {p.name for p in out.iterdir()}
    assert {"adapter_config.json", "train_config.json", "train_summary.json", "train_log.jsonl"} <= names
    assert json.loads((out / "train_config.json").read_text())["records"] == 3
    assert not (tmp_path / "lora-adapter.tmp").exists()
    for f in out.iterdir():  # committed beside the reference runs: no path of this machine, model card included
        if f.suffix != ".safetensors":
            assert str(tmp_path) not in f.read_text() and str(tiny) not in f.read_text(), f.name
