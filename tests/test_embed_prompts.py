"""Query/document prompts and per-embedder thresholds (assistant/engine/embed_profile.py): an
embedder knows them from the catalog entry of its file; stored texts get the document prompt,
questions and their question forms the query prompt; MiniLM (no entry) embeds exactly as before.

The prompted embedder here is a fake catalog entry ("Q: " / "D: " prompts) over the real MiniLM
file (+32 bytes: another file identity, same vectors, as in tests/test_reembed.py); a subclass of
LlamaEmbedder records the exact texts that reach the model."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from assistant.memory.language.reading import reading
from assistant import reembed
from assistant.engine import embed_profile
from assistant.engine import embedder as embedder_module
from assistant.engine.catalog import entries as catalog
from assistant.memory.retrieval import answer, forms
from assistant.memory.retrieval.retriever import DEFAULT_THRESHOLD
from assistant.memory.store.sqlite import fts

FACTS = ["My sister Anna lives in Lisbon.", "I am allergic to peanuts.", "I work as a nurse at the Sint Lucas hospital."]
ENTRY = {"id": "prompted-test", "name": "Prompted test", "role": "embedding", "repo": "keepsake-test/prompted",
         "file": "prompted-test.gguf", "size_bytes": 45_000_000, "sha256": None, "ram_gb": 0.2,
         "recommended_ram_gb": 1, "context_length": 512, "license": "Apache-2.0", "summary": "A test embedder.",
         "query_prefix": "Q: ", "document_prefix": "D: ", "pooling": "mean",
         "calibration": {"calibrated": False, "threshold": 0.5, "cosines": {"answer": 0.6, "slot": 0.8}}}  # fmt: skip


class Recording(embedder_module.LlamaEmbedder):
    """The real LlamaEmbedder; every text that reaches the model is recorded."""

    seen: list[str] = []

    def _embed_raw(self, texts):
        Recording.seen.extend(texts)
        return super()._embed_raw(texts)


def test_shipped_prompted_embedders_carry_prompts_pooling_and_an_uncalibrated_threshold():
    embedders = {e.id: e for e in catalog.load() if e.role == "embedding"}
    gemma, qwen = embedders["embeddinggemma-300m"], embedders["qwen3-embedding-0.6b"]
    assert gemma.query_prefix.startswith("task: search result") and gemma.document_prefix.startswith("title: none")
    assert qwen.query_prefix.startswith("Instruct: ") and qwen.document_prefix == "" and qwen.pooling == "last"
    for e in (gemma, qwen):
        assert e.threshold is not None and e.threshold != DEFAULT_THRESHOLD and not e.calibrated
        assert set(dict(e.cosines)) <= forms.COSINE_NAMES == catalog.COSINE_NAMES
        assert e.to_json()["calibrated"] is False and "answer" in e.to_json()["cosines"]
    profile = embed_profile.for_file("/somewhere/else/" + gemma.file.upper())  # matched by file name
    assert (profile.query_prefix, profile.threshold, profile.source) == (gemma.query_prefix, gemma.threshold, "catalog embeddinggemma-300m")


def test_minilm_has_no_prompts_and_embeds_byte_identically(services):
    emb = services.embedder()
    assert emb.profile == embed_profile.PLAIN  # the default file is in no catalog entry
    texts = ["I live in Porto.", "Where do I live?"]
    raw = np.asarray(emb._embed_raw(texts), dtype=np.float32).tobytes()
    assert np.asarray(emb.embed(texts), dtype=np.float32).tobytes() == raw
    assert np.asarray(emb.embed_queries(texts), dtype=np.float32).tobytes() == raw
    store = services.open_store()
    try:
        mid = store.add(texts[0])
        stored = store.read(lambda c: c.execute("SELECT embedding FROM memory_vec WHERE rowid = ?", (mid,)).fetchone()[0])
        assert bytes(stored) == np.asarray(emb._embed_raw(texts[:1])[0], dtype=np.float32).tobytes()
        retriever = services.retriever(store)
        assert retriever.threshold == DEFAULT_THRESHOLD == 0.33 and retriever.matcher.cosines == forms.Cosines()
        qv = retriever._unit(np.asarray(emb._embed_raw([fts.clean_query("Where do I live?")])[0], dtype=np.float32))
        assert retriever.embed_query("Where do I live?").tobytes() == qv.tobytes()
        assert retriever.search("Where do I live?", k=1)[0].memory.text == texts[0]
    finally:
        store.close()


@pytest.fixture
def prompted(services, converted_embedder_path, monkeypatch, tmp_path):
    target = services.profile.paths.ensure().models / ENTRY["file"]
    shutil.copyfile(converted_embedder_path, target)
    with open(target, "ab") as fh:
        fh.write(b"\0" * 32)
    cat = tmp_path / "catalog.json"
    cat.write_text(json.dumps({"models": [ENTRY]}))
    monkeypatch.setenv("KEEPSAKE_CATALOG", str(cat))
    monkeypatch.setattr(embedder_module, "LlamaEmbedder", Recording)
    Recording.seen = []
    return services


def test_fake_prompted_embedder_gets_document_prompt_when_storing_and_query_prompt_when_searching(prompted):
    services = prompted
    store = services.open_store()
    for fact in FACTS:
        store.add(fact)  # MiniLM, no prompts
    store.close()
    assert Recording.seen == FACTS

    # re-embedding: every memory as a document
    Recording.seen = []
    result = reembed.switch_embedder(services, reembed.plan_switch(services, "prompted-test"))
    assert result.reembedded and sorted(Recording.seen) == sorted("D: " + f for f in FACTS)

    store = services.open_store()
    try:
        emb = services.embedder()
        assert isinstance(emb, Recording) and emb.profile.source == "catalog prompted-test"
        # capture writes through store.add_many: the new memory as a document
        Recording.seen = []
        store.add("I keep my passport in the blue folder.")
        assert Recording.seen == ["D: I keep my passport in the blue folder."]

        # search: the question and the question forms it is compared with, all as queries
        Recording.seen = []
        retriever = services.retriever(store)
        assert (retriever.threshold, retriever.matcher.cosines.answer, retriever.matcher.cosines.slot) == (0.5, 0.6, 0.8)
        assert retriever.matcher.cosines.top == forms.TOP_COSINE  # not overridden: MiniLM's
        hits = retriever.search("What am I allergic to?", k=3, include_rejected=True)
        retriever.search("Wo arbeite ich?", k=3)  # slot by meaning: compared with the slots' question forms
        answer.choose("What am I allergic to?", hits, retriever.matcher)  # memory answer: the memories' forms
        assert hits and all(t.startswith("Q: ") for t in Recording.seen), [t for t in Recording.seen if not t.startswith("Q: ")]
        # a question in another language is embedded as read in English (its gloss)
        assert {"Q: What am I allergic to?", "Q: " + reading("Wo arbeite ich?")} <= set(Recording.seen)
        assert reading("Wo arbeite ich?") != "Wo arbeite ich?"
        assert "Q: " + forms.SLOT_FORMS["employer"][2] in Recording.seen  # "Where do I work?", a slot's form
        assert "Q: I am allergic to peanuts." in Recording.seen  # a memory's own form, as a query
    finally:
        store.close()


def test_a_catalog_entry_with_an_unknown_cosine_or_pooling_is_refused(tmp_path):
    bad = dict(ENTRY, calibration={"threshold": "high"})
    cat = tmp_path / "c.json"
    cat.write_text(json.dumps({"models": [bad]}))
    with pytest.raises(catalog.CatalogError):
        catalog.load(cat)
    cat.write_text(json.dumps({"models": [dict(ENTRY, pooling="max")]}))
    with pytest.raises(catalog.CatalogError, match="pooling"):
        catalog.load(cat)
    cat.write_text(json.dumps({"models": [dict(ENTRY, calibration={"cosines": {"answr": 0.6}})]}))
    with pytest.raises(catalog.CatalogError, match="answr"):
        catalog.load(cat)
