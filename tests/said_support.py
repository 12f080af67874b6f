"""A store seeded the way the answer benchmarks seed it, for memory-answer tests: each statement
sent through the real capture (rules) as a message on its date, with the real MiniLM; and the
memory answer code picks for a question (:func:`assistant.memory.retrieval.answer.choose`)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from assistant.bench.answer_splits import seed_said
from assistant.engine.embedder import LlamaEmbedder
from assistant.memory.retrieval import answer as A
from assistant.memory.retrieval.retriever import Retriever
from assistant.memory.store.facade import MemoryStore


@contextmanager
def said_retriever(db: Path, embedder_path: Path, said: Sequence[str | tuple[str, str] | tuple[str, str, str]], said_on: str = "2026-11-02",
                   key: str = "5e" * 32) -> Iterator[Retriever]:  # fmt: skip
    """A :class:`Retriever` over a fresh encrypted store at ``db`` holding ``said`` (texts, (key,
    text) pairs, or (key, text, said on) triples), each said on ``said_on`` unless its triple says;
    store and embedder are closed on exit."""
    embedder = LlamaEmbedder(embedder_path, n_threads=1)
    store = MemoryStore(db, key=key, embed=embedder.embed)
    try:
        rows = [(*s, said_on)[:3] if isinstance(s, tuple) else (str(i), s, said_on) for i, s in enumerate(said)]
        seed_said(store, {"memories": [{"key": k, "said": s, "said_on": on} for k, s, on in rows]})
        yield Retriever(store, embedder)
    finally:
        store.close()
        embedder.close()


def answer(retriever: Retriever, question: str):
    """The memory answer code picks for ``question`` (None: no memory answers it)."""
    return A.choose(question, retriever.search(question, k=A.POOL, include_rejected=True), retriever.matcher)
