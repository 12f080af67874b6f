"""The capture queue: off the caller's thread, failures persisted and retried, nothing lost."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone

import pytest

from assistant import events
from assistant.memory.capture.capturer import Capturer
from assistant.memory.capture.queue import CaptureQueue
from assistant.memory.records import Kind
from assistant.memory.store.facade import MemoryStore
from assistant.config import load_settings

UTC = timezone.utc
OBS = datetime(2023, 5, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "m.db"


@pytest.fixture
def store(db):
    s = MemoryStore(db)
    yield s
    s.close()


@pytest.fixture
def captured():
    got: list = []
    unsubscribe = events.subscribe("capture", got.append)
    yield got
    unsubscribe()


def journal_of(db):
    return db.with_name("capture-journal.jsonl")


def say(store, text, session=None):
    session = session or store.create_session("chat")
    return store.add_message(session.id, "user", text, observed_at=OBS)


class FlakyCapturer(Capturer):
    """Fails the first ``n`` captures (a stand-in for a locked database or a model crash)."""

    def __init__(self, store, n: int) -> None:
        super().__init__(store, use_llm=False, settings=load_settings)
        self.left = n
        self.calls: list[tuple[int, object]] = []

    def capture_message(self, message_id, **kw):
        self.calls.append((message_id, kw.get("use_llm")))
        if self.left > 0:
            self.left -= 1
            raise RuntimeError("database is locked")
        return super().capture_message(message_id, **kw)


def test_capture_runs_in_the_background_and_publishes_an_event(db, store, captured):
    msg = say(store, "I live in Lyon.")
    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), use_llm=False, settings=load_settings)
    try:
        q.submit(msg.id)
        assert q.flush(30)
    finally:
        q.stop()
    (result,) = captured
    assert result.message_id == msg.id and result.episode_id is not None
    assert "User lives in Lyon." in [m.text for m in store.get_many(result.memory_ids)]
    assert threading.current_thread() is threading.main_thread()  # the caller was never the worker


def test_a_5mb_message_does_not_block_and_keeps_only_its_statement(db, store, captured):
    """A huge paste: the capture returns at once, the message row keeps all of it, and memory
    keeps only what the person said about themselves (the pasted text is no statement)."""
    big = "I moved to Berlin last month. " + ("lorem ipsum dolor sit amet " * 200_000)[: 5 * 1024 * 1024]
    msg = say(store, big)
    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), use_llm=False, settings=load_settings)
    try:
        start = time.perf_counter()
        q.submit(msg.id)
        assert time.perf_counter() - start < 0.05  # returns at once
        assert q.flush(120)
    finally:
        q.stop()
    (result,) = captured
    episode = store.get(result.episode_id)
    assert (episode.kind, episode.text) == (Kind.EPISODE, "I moved to Berlin last month.")
    assert store.get_message(msg.id).content == big  # the message row keeps the full text
    assert "User lives in Berlin." in [m.text for m in store.get_many(result.memory_ids)]
    assert not any("lorem" in m.text for m in store.list(include_all=True))


def test_a_failure_is_persisted_and_retried(db, store, captured):
    msg = say(store, "I live in Lyon.")
    flaky: list[FlakyCapturer] = []
    failed: list = []
    unsubscribe = events.subscribe("capture_failed", failed.append)
    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), retry_base=0.3,
                     capturer_factory=lambda s: flaky.append(FlakyCapturer(s, 1)) or flaky[0], settings=load_settings)
    try:
        q.submit(msg.id)  # never raises, even though the capture fails
        assert q.flush(30)
        (failure,) = q.failures()
        assert (failure.message_id, failure.attempts) == (msg.id, 1) and "database is locked" in failure.error
        journal = [json.loads(line) for line in q.journal.read_text().splitlines()]
        assert [e["op"] for e in journal] == ["submit", "fail"]
        assert q.idle(30)  # the retry succeeds
    finally:
        q.stop()
        unsubscribe()
    assert len(failed) == 1 and [r.message_id for r in captured] == [msg.id]
    assert q.failures() == []
    assert "User lives in Lyon." in [m.text for m in store.list()]


def test_pending_and_failed_captures_survive_a_restart(db, store, captured):
    a, b = say(store, "I live in Lyon."), say(store, "I work at Renault.")
    broken = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), retry_base=3600,
                          capturer_factory=lambda s: FlakyCapturer(s, 10**6), settings=load_settings)
    broken.submit(a.id)
    assert broken.flush(30)
    broken.stop()
    # b was submitted to a queue that stopped before running it (a process exit)
    stopped = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), start=False, settings=load_settings)
    stopped.submit(b.id)
    assert captured == [] and store.count() == 0

    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), use_llm=False, settings=load_settings)  # the next start replays the journal
    try:
        assert q.idle(30)
    finally:
        q.stop()
    assert sorted(r.message_id for r in captured) == [a.id, b.id]
    texts = [m.text for m in store.list()]
    assert "User lives in Lyon." in texts and "User works at Renault." in texts
    assert CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), start=False, settings=load_settings).pending == 0  # nothing left to replay


def test_later_attempts_leave_the_model_out(db, store):
    msg = say(store, "I live in Lyon.")
    flaky: list[FlakyCapturer] = []
    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), retry_base=0.05,
                     capturer_factory=lambda s: flaky.append(FlakyCapturer(s, 3)) or flaky[0], settings=load_settings)
    try:
        q.submit(msg.id)
        assert q.idle(30)
    finally:
        q.stop()
    assert [use_llm for _, use_llm in flaky[0].calls] == [None, None, False, False]


def test_a_store_that_cannot_open_is_a_retried_failure(db, store, captured):
    msg = say(store, "I live in Lyon.")
    opened = []

    def factory():
        opened.append(1)
        if len(opened) == 1:
            raise OSError("disk not ready")
        return MemoryStore(db)

    q = CaptureQueue(factory, journal=journal_of(db), use_llm=False, retry_base=0.05, settings=load_settings)
    try:
        q.submit(msg.id)
        assert q.idle(30)
    finally:
        q.stop()
    assert [r.message_id for r in captured] == [msg.id]


def test_a_deleted_message_is_dropped_not_retried(db, store, captured):
    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), use_llm=False, settings=load_settings)
    try:
        q.submit(987654)
        assert q.idle(30)
    finally:
        q.stop()
    assert captured == [] and q.failures() == []
    assert [json.loads(line)["op"] for line in q.journal.read_text().splitlines()] == ["submit", "drop"]


def test_incognito_through_the_queue_captures_nothing(db, store, captured):
    s = store.create_session("secret", incognito=True)
    msg = say(store, "I live in Lyon.", session=s)
    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), use_llm=False, settings=load_settings)
    try:
        q.submit(msg.id)
        assert q.flush(30)
    finally:
        q.stop()
    assert captured[0].skipped == "incognito session" and store.count(include_all=True) == 0


def test_the_journal_is_compacted_when_quiet(db, store, monkeypatch):
    from assistant.memory.capture import queue as capture_queue

    monkeypatch.setattr(capture_queue, "_COMPACT_BYTES", 0)
    q = CaptureQueue(lambda: MemoryStore(db), journal=journal_of(db), use_llm=False, settings=load_settings)
    try:
        for text in ("I live in Lyon.", "I work at Renault."):
            q.submit(say(store, text).id)
        assert q.idle(30)
    finally:
        q.stop()
    assert q.journal.read_text() == ""  # everything done: nothing to keep
