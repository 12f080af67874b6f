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
