"""Assembly of an embedded GGUF from its packages, with fake part packages on sys.path."""

import hashlib
import importlib

import pytest

from causalqa.errors import ModelFileError
from causalqa.llm.models import EmbeddedModel, assemble, check_gguf, ensure_model


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    """A 3-part 'model' whose parts are installed as packages fakegguf_partN."""
    site = tmp_path / "site"
    data = b"GGUF" + bytes(range(256)) * 50
    chunks = [data[:3000], data[3000:9000], data[9000:]]
    for n, chunk in enumerate(chunks, start=1):
        pkg = site / f"fakegguf_part{n}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{n:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    model = EmbeddedModel(
        spec="local:fake",
        name="Fake",
        filename="fake.gguf",
        distribution="fakegguf-part{n}",
        version="1.0",
        parts=3,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        extra="fake",
    )
    return model, data, site


def test_assembles_verifies_and_reuses(fake_model):
    model, data, _ = fake_model
    assert not model.is_assembled()
    path = ensure_model(model, quiet=True)
    assert path.read_bytes() == data
    assert model.is_assembled()
    assert not list(path.parent.glob("*.partial-*"))
    mtime = path.stat().st_mtime_ns
    assert ensure_model(model, quiet=True) == path
    assert path.stat().st_mtime_ns == mtime  # verified file reused, not rewritten


def test_missing_part_names_the_package(fake_model):
    model, _, site = fake_model
    (site / "fakegguf_part2" / "data" / "part02.bin").unlink()
    with pytest.raises(ModelFileError, match="fakegguf-part2") as e:
        ensure_model(model, quiet=True)
    assert "pip install" in e.value.hint
    assert not model.path.exists()


def test_bad_checksum_is_refused_and_leaves_no_file(fake_model):
    model, data, site = fake_model
    part = site / "fakegguf_part3" / "data" / "part03.bin"
    raw = bytearray(part.read_bytes())
    raw[10] ^= 0xFF
    part.write_bytes(bytes(raw))
    with pytest.raises(ModelFileError, match="sha256"):
        ensure_model(model, quiet=True)
    assert not model.path.exists()
    assert not list(model.path.parent.glob("*.partial-*"))


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_damaged_cached_file_is_detected_and_rebuilt(fake_model, damage):
    model, data, _ = fake_model
    path = ensure_model(model, quiet=True)
    if damage == "truncate":
        path.write_bytes(data[:100])
    else:
        raw = bytearray(data)
        raw[500] ^= 0x01
        path.write_bytes(bytes(raw))
    assert not model.is_assembled()
    assert ensure_model(model, quiet=True).read_bytes() == data
    assert model.is_assembled()


def test_unwritable_cache_dir_is_a_clear_error(fake_model, tmp_path, monkeypatch):
    model, _, _ = fake_model
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    monkeypatch.setenv("CAUSALQA_HOME", str(blocker))
    with pytest.raises(ModelFileError, match="could not write"):
        assemble(model, quiet=True)


def test_check_gguf(tmp_path):
    with pytest.raises(ModelFileError, match="does not exist"):
        check_gguf(tmp_path / "nope.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"<html>not a model</html>")
    with pytest.raises(ModelFileError, match="not a GGUF"):
        check_gguf(bad)
    with pytest.raises(ModelFileError, match="directory"):
        check_gguf(tmp_path)
