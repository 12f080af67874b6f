"""Test doubles for the memory-store tests.

``fake_hash_embedder`` is a FAKE embedder: deterministic unit vectors seeded by a hash of the
text. It has no semantics at all; the store logic under test does not depend on the model.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone

import numpy as np

FAKE_DIM = 384
UTC = timezone.utc


def fake_hash_embedder(texts: list[str]) -> list[list[float]]:
    """FAKE embedder: hash-seeded random unit vectors (dim 384), not a real model."""
    out = []
    for t in texts:
        seed = int.from_bytes(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(FAKE_DIM).astype(np.float32)
        v /= np.linalg.norm(v)
        out.append(v.tolist())
    return out


class FakeEmbedder:
    """FAKE embedder object with the engine's ``.embed`` interface (hash-seeded vectors), for
    code that asks ``Services.embedder()``."""

    dim = FAKE_DIM

    def embed(self, texts: list[str]) -> list[list[float]]:
        return fake_hash_embedder(texts)


class FakeClock:
    """A settable clock for bitemporal tests (``store = MemoryStore(..., clock=clock)``)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def set(self, when: datetime) -> None:
        self.now = when

    def advance(self, **kw: float) -> datetime:
        self.now = self.now + timedelta(**kw)
        return self.now


def dt(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


TEST_KEY = "7f" * 32  # explicit key for child processes (they do not share the in-memory keyring)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``keepsake ARGV`` in this process: (exit code, stdout, stderr)."""
    from assistant.cli import main

    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err
