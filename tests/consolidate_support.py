"""Shared helpers for the consolidation tests: the REAL MiniLM embedder (converted GGUF, via
the session fixture ``converted_embedder_path``), a store with a settable clock, and a
capture-like way to say things."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from assistant.memory.records import Kind, Role, Source
from assistant.memory.store.facade import MemoryStore
from assistant.config import paths
from store_fakes import FakeClock

UTC = timezone.utc


def dt(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.fixture(scope="session")
def minilm(converted_embedder_path):
    """The real all-MiniLM-L6-v2 (llama.cpp), shared by the whole session."""
    from assistant.engine.embedder import LlamaEmbedder

    e = LlamaEmbedder(converted_embedder_path, n_threads=2)
    yield e
    e.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(dt(2025, 3, 25, 12))


@pytest.fixture
def store(minilm, clock, keepsake_home):
    s = MemoryStore(paths().database, embed=minilm.embed, clock=clock)
    yield s
    s.close()


class Speaker:
    """Messages in one session; ``fact`` adds a memory sourced by a message (like capture)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.session = store.create_session("test").id

    def message(self, text: str, when: datetime) -> int:
        return self.store.add_message(self.session, Role.USER, text, observed_at=when).id

    def fact(self, text: str, when: datetime, *, kind: Kind = Kind.FACT, message: str | None = None,
             created: datetime | None = None, **kw) -> int:  # fmt: skip
        mid = self.message(message or text, when)
        src = Source(session_id=self.session, message_id=mid, extractor="test", observed_at=when)
        return self.store.add(text, kind=kind, source=src, created_at=created or when, **kw)


def days(n: float) -> timedelta:
    return timedelta(days=n)
