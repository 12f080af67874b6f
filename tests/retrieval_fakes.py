"""Test doubles for the retrieval tests.

:class:`FakeBowEmbedder` is a FAKE embedder: a bag of words, each word a fixed random unit
vector (seeded by a hash of the word), summed and normalized. Texts sharing words get a positive
cosine; it has no other semantics. The retrieval *mechanics* (filters, cache, fusion, slots,
injection) do not depend on the model; retrieval *quality* is tested with the real MiniLM in
``test_retrieval_quality.py``.
"""

from __future__ import annotations

import hashlib

import numpy as np

from assistant.memory.store.sqlite.fts import fts_tokens

DIM = 384


def word_vector(word: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(word.encode("utf-8", "surrogatepass")).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(DIM)
    return v / np.linalg.norm(v)


class FakeBowEmbedder:
    """FAKE embedder (bag of hashed word vectors), with the engine's ``embed`` interface."""

    dim = DIM
    name = "fake-bow"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        out = []
        for t in texts:
            v = np.zeros(DIM)
            for w in fts_tokens(t):
                v += word_vector(w)
            n = np.linalg.norm(v)
            v = v / n if n > 0 else word_vector("\x00empty")
            out.append(v.astype(np.float32).tolist())
        return out


def vector_at(query_vec: np.ndarray, cosine: float, seed: int) -> list[float]:
    """A unit vector whose cosine with the unit ``query_vec`` is exactly ``cosine``."""
    q = np.asarray(query_vec, dtype=np.float64)
    q = q / np.linalg.norm(q)
    r = np.random.default_rng(seed).standard_normal(len(q))
    r -= (r @ q) * q
    r /= np.linalg.norm(r)
    v = cosine * q + np.sqrt(max(0.0, 1 - cosine * cosine)) * r
    return (v / np.linalg.norm(v)).tolist()


def bow_store(path, emb: FakeBowEmbedder, now):
    """A real store at ``path`` embedding with the FAKE bag-of-words ``emb``, its clock fixed at ``now``."""
    from assistant.memory.store.facade import MemoryStore
    from store_fakes import FakeClock

    return MemoryStore(path, embed=emb.embed, clock=FakeClock(now))
