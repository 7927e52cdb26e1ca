"""pfc.models.lora_merge's adapter check: what a loader would trip over is a one-line UserError naming the file,
before torch or peft load anything (both engines call it first). No model involved."""
import json

import pytest

from pfc.errors import UserError
from pfc.models.lora_merge import adapter_digest, adapter_weights


def _adapter(d, config=b'{"peft_type": "LORA"}', weights=None):
    d.mkdir()
    (d / "adapter_config.json").write_bytes(config)
    header = json.dumps({"__metadata__": {}}).encode()
    (d / "adapter_model.safetensors").write_bytes(weights if weights is not None
                                                  else len(header).to_bytes(8, "little") + header)
    return d


def test_a_well_formed_adapter_is_named_by_its_weights_hash(tmp_path):
    import hashlib
    d = _adapter(tmp_path / "a")
    expected = hashlib.sha256((d / "adapter_model.safetensors").read_bytes()).hexdigest()[:12]
    assert adapter_weights(d).name == "adapter_model.safetensors" and adapter_digest(d) == expected


@pytest.mark.parametrize("config, weights, words", [
    (b"", None, "adapter_config.json: not a UTF-8 JSON file"),
    (b"\xff\xfe\x00bad", None, "adapter_config.json: not a UTF-8 JSON file"),
    (b"[1, 2]", None, "field 'peft_type'"),
    (b'{"peft_type": "LORA"}', b"garbage!", "adapter_model.safetensors: not a safetensors file"),
    (b'{"peft_type": "LORA"}', b"", "adapter_model.safetensors: not a safetensors file"),
])
def test_a_broken_adapter_is_one_line_naming_the_file(tmp_path, config, weights, words):
    d = _adapter(tmp_path / "a", config, weights)
    with pytest.raises(UserError, match=words) as e:
        adapter_digest(d)
    assert "\n" not in str(e.value)


def test_a_directory_without_the_adapter_files_says_what_it_needs(tmp_path):
    with pytest.raises(UserError, match="no adapter_config.json and adapter_model"):
        adapter_digest(tmp_path)
