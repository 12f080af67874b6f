"""Offload (the archive is the store's encrypted ``context_offloads`` table), and the in-process
event bus."""

from __future__ import annotations

import threading

import pytest

from assistant import events
from assistant.context import offload
from assistant.context.offload import OFFLOAD_CHARS, PREVIEW_CHARS
from assistant.memory.errors import NotFound
from assistant.memory.store.facade import MemoryStore
from assistant.config import paths


@pytest.fixture
def archive():
    store = MemoryStore(paths().database)
    yield store.context_archive
    store.close()


def test_content_up_to_8000_chars_stays_in_the_window(archive):
    assert offload.offload(archive, "a" * OFFLOAD_CHARS, 1) is None
    assert offload.offload_text(archive, "a" * OFFLOAD_CHARS, 1) == "a" * OFFLOAD_CHARS
    assert archive._store.conn.execute("SELECT count(*) FROM context_offloads").fetchone()[0] == 0


def test_longer_content_goes_to_the_archive_with_a_preview_and_pointer(archive, keepsake_home):
    text = "".join(f"line {i}: " + "word " * 10 + "\n" for i in range(200))
    assert len(text) > OFFLOAD_CHARS
    done = offload.offload(archive, text, 7, kind="assistant")
    assert done is not None and archive.offload(done.ref) == text and done.ref.startswith("session-7/assistant-")
    assert done.text.startswith(text[:PREVIEW_CHARS]) and "line 150:" not in done.text
    assert done.ref in done.text and str(len(text)) in done.text
    assert len(done.text) < PREVIEW_CHARS + 200
    again = offload.offload(archive, text, 7, kind="assistant")
    assert again.text == done.text and again.ref == done.ref  # same text, same pointer
    assert archive.offload(done.ref) == text  # the whole text comes back from the archive
    files = [p for p in keepsake_home.rglob("*") if p.is_file() and b"line 150:" in p.read_bytes()]
    assert files == []  # in the encrypted database, in no file


def test_a_missing_entry_and_a_bad_session_id_are_clear_errors(archive):
    with pytest.raises(NotFound, match="no archive entry"):
        archive.offload("session-1/output-0000000000000000")
    with pytest.raises(ValueError):
        offload.offload(archive, "x" * 9000, "../x")


# -- event bus ---------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _clean_bus():
    yield
    events.clear("test")


def test_publish_reaches_subscribers_in_order_and_survives_a_broken_one():
    got = []
    events.subscribe("test", lambda p: got.append(("a", p)))
    events.subscribe("test", lambda p: 1 / 0)
    unsubscribe = events.subscribe("test", lambda p: got.append(("c", p)))
    assert events.publish("test", 1) == 3
    unsubscribe()
    events.publish("test", 2)
    events.publish("other", 3)
    assert got == [("a", 1), ("c", 1), ("a", 2)]


def test_bus_is_thread_safe():
    got = []
    lock = threading.Lock()

    def listener(p):
        with lock:
            got.append(p)

    def worker(n):
        for i in range(200):
            off = events.subscribe("test", listener)
            events.publish("test", (n, i))
            off()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {(n, i) for n in range(8) for i in range(200)} <= set(got)
