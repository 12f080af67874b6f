"""Model registry and GGUF checks, on the real default model files and damaged copies of them."""

from __future__ import annotations

import os
import shutil

import pytest

from assistant.config import paths
from assistant.engine import gguf_check, registry
from assistant.engine.errors import ModelError


def test_default_chat_model_is_found_offline():
    path = registry.default_chat_path()
    info = gguf_check.inspect(path)
    assert info.arch == "llama" and "chat" in info.roles and info.has_chat_template


def test_random_bytes_are_rejected_with_the_file_name(tmp_path):
    bad = tmp_path / "noise.gguf"
    bad.write_bytes(os.urandom(4096))
    with pytest.raises(ModelError) as exc:
        gguf_check.inspect(bad)
    assert "noise.gguf" in str(exc.value) and "not a GGUF" in exc.value.reason


def test_truncated_gguf_is_rejected(tmp_path):
    src = registry.default_chat_path()
    cut = tmp_path / "cut.gguf"
    with src.open("rb") as fh:
        cut.write_bytes(fh.read(src.stat().st_size // 2))
    with pytest.raises(ModelError) as exc:
        gguf_check.inspect(cut)
    assert "cut.gguf" in str(exc.value) and "truncated" in exc.value.reason


def test_header_only_gguf_is_rejected(tmp_path):
    stub = tmp_path / "stub.gguf"
    stub.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + b"\x00" * 8)
    with pytest.raises(ModelError):
        gguf_check.inspect(stub)


def test_wrong_arch_for_role(converted_embedder_path):
    # MiniLM (bert) cannot chat; SmolLM2 (llama, no pooling) is not an embedder.
    with pytest.raises(ModelError, match="cannot be used for chat"):
        registry.resolve_chat(str(converted_embedder_path))
    with pytest.raises(ModelError, match="not an embedding model"):
        registry.resolve_embedder(str(registry.default_chat_path()), paths().models)


def test_embedder_is_converted_once_and_cached(converted_embedder_path, keepsake_home):
    # The session fixture converted it once; this test's home holds a hard link, not a new file.
    cached = paths().models / registry.DEFAULT_EMBEDDER_FILE
    assert cached.is_file()
    before = cached.stat().st_mtime_ns
    assert registry.default_embedder_path(paths().models) == cached
    assert cached.stat().st_mtime_ns == before  # no reconversion


def test_damaged_cache_is_rebuilt(converted_embedder_path, keepsake_home):
    cached = paths().models / registry.DEFAULT_EMBEDDER_FILE
    cached.unlink()
    cached.write_bytes(b"garbage")
    messages = []
    assert registry.default_embedder_path(paths().models, progress=messages.append) == cached
    assert gguf_check.inspect(cached).arch == "bert"
    assert messages  # the person is told a conversion is happening


def test_discover_lists_defaults_and_dropped_files(converted_embedder_path, keepsake_home):
    user_models = paths().models
    shutil.copy(registry.default_chat_path(), user_models / "my-model.gguf")
    (user_models / "broken.gguf").write_bytes(b"GGUF\x03\x00\x00\x00junk")
    entries = {e.path.name: e for e in registry.discover(paths())}
    assert entries[registry.DEFAULT_CHAT_FILE].source == "default"
    assert entries["my-model.gguf"].source == "user" and entries["my-model.gguf"].error is None
    assert entries["broken.gguf"].error


def test_text_file_renamed_gguf_is_rejected(tmp_path):
    notes = tmp_path / "notes.gguf"
    notes.write_text("These are my notes, not a model.\n" * 20, encoding="utf-8")
    with pytest.raises(ModelError) as exc:
        gguf_check.inspect(notes)
    assert "notes.gguf" in str(exc.value) and "not a GGUF" in exc.value.reason


def test_empty_file_is_rejected(tmp_path):
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    with pytest.raises(ModelError, match="not a GGUF"):
        gguf_check.inspect(empty)


def test_gguf_cut_inside_its_metadata_names_the_damage(tmp_path):
    # 100 kB of SmolLM2 ends inside the tokenizer's vocabulary array (the metadata is ~1.5 MB).
    src = registry.default_chat_path()
    cut = tmp_path / "cut-early.gguf"
    with src.open("rb") as fh:
        cut.write_bytes(fh.read(100_000))
    with pytest.raises(ModelError) as exc:
        gguf_check.inspect(cut)
    assert "cut-early.gguf" in str(exc.value) and "truncated" in exc.value.reason


def test_header_reader_agrees_with_the_gguf_package(converted_embedder_path):
    # The fast reader skips arrays; gguf.GGUFReader builds every field. Same keys, same values,
    # and the tensor data ends where the reader's tensor table says (MiniLM: a small vocabulary).
    from gguf import GGUFReader

    from assistant.engine import gguf_header

    hdr = gguf_header.read_header(converted_embedder_path)
    reader = GGUFReader(converted_embedder_path, "r")
    assert hdr.keys == set(reader.fields) - {"GGUF.version", "GGUF.tensor_count", "GGUF.kv_count"}
    for key in ("general.architecture", "bert.context_length", "bert.embedding_length", "bert.pooling_type"):
        assert hdr.values[key] == reader.fields[key].contents()
    assert hdr.tensor_count == len(reader.tensors)
    assert hdr.data_end == max(t.data_offset + int(t.n_bytes) for t in reader.tensors)


def test_ggml_block_table_matches_the_gguf_package():
    from gguf.constants import GGML_QUANT_SIZES

    from assistant.engine import gguf_header

    known = {int(t): sizes for t, sizes in GGML_QUANT_SIZES.items()}
    assert {t: known[t] for t in gguf_header.GGML_BLOCKS if t in known} == gguf_header.GGML_BLOCKS


def test_verdict_is_kept_on_disk_for_the_next_process(tmp_path, monkeypatch):
    # A new process starts with an empty in-memory cache: the verdict file answers without a
    # header read; a changed file (other size/mtime) is read again.
    from assistant.engine import gguf_header

    model = tmp_path / "model.gguf"
    shutil.copy(registry.default_chat_path(), model)
    verdicts = tmp_path / "cache" / "verdicts.json"
    monkeypatch.setattr(gguf_check, "_cache", {})
    gguf_check.remember_in(verdicts)
    try:
        first = gguf_check.inspect(model)
        assert verdicts.is_file()
        monkeypatch.setattr(gguf_check, "_cache", {})  # "the next process"
        calls = []
        real = gguf_header.read_header
        monkeypatch.setattr(gguf_header, "read_header", lambda p: calls.append(p) or real(p))
        assert gguf_check.inspect(model) == first and calls == []
        with model.open("r+b") as fh:  # cut: a new size, so the verdict no longer applies
            fh.truncate(model.stat().st_size // 2)
        with pytest.raises(ModelError, match="truncated"):
            gguf_check.inspect(model)
        assert calls == [model]
    finally:
        gguf_check.remember_in(None)
