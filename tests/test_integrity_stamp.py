"""The integrity check before the first write is not repeated for a file left exactly as a store
that checked it closed it (``<db>.verified``: its inode, size and mtime; issue 31): any change
by anyone, a write-ahead log not checkpointed, or a check more than a day old means the next
store checks again. Real SQLCipher files; the embedder is a FAKE (hash vectors): nothing here
depends on what a vector means."""

from __future__ import annotations

import json
import os
import random
import time

import pytest
from store_fakes import fake_hash_embedder

from assistant.memory.errors import DamagedError
from assistant.memory.store import core
from assistant.memory.store.facade import MemoryStore
from assistant.memory.store.sqlite import integrity

PAGE = 4096


@pytest.fixture
def checks(monkeypatch):
    """How many times ``PRAGMA quick_check`` ran (the real one)."""
    calls = []

    def counting(conn):
        calls.append(1)
        return integrity.quick_check(conn)

    monkeypatch.setattr(core, "quick_check", counting)
    return calls


def written(db, text: str) -> None:
    store = MemoryStore(db, embed=fake_hash_embedder)
    store.add(text)
    store.close()


def test_a_file_left_healthy_is_not_checked_again_until_it_changes(tmp_path, checks):
    db = tmp_path / "m.db"
    written(db, "I keep bees")
    assert len(checks) == 1 and integrity.stamp_path(db).exists()
    written(db, "I keep goats")  # the file is as the last store left it: no check
    assert len(checks) == 1
    t = time.time() + 5
    os.utime(db, (t, t))  # changed by something else (only its mtime here): checked again
    written(db, "I keep hens")
    assert len(checks) == 2
    store = MemoryStore(db, embed=fake_hash_embedder)
    assert sorted(m.text for m in store.list()) == ["I keep bees", "I keep goats", "I keep hens"]
    store.close()


def test_a_page_damaged_after_the_stamp_is_found_before_the_next_write(tmp_path, checks):
    db = tmp_path / "m.db"
    store = MemoryStore(db, embed=fake_hash_embedder)
    for i in range(200):
        store.add(f"User's friend number {i} lives in city {i}.")
    store.close()
    assert integrity.stamp_path(db).exists()
    pages = db.stat().st_size // PAGE
    with open(db, "r+b") as fh:  # a damaged sector, written right after the close
        fh.seek((pages // 2) * PAGE)
        fh.write(random.Random(3).randbytes(PAGE))
    store = MemoryStore(db, embed=fake_hash_embedder)
    with pytest.raises(DamagedError):
        store.create_session("after the damage")
    store.close()
    assert integrity.read_marker(db) is not None and not integrity.stamp_path(db).exists()


def test_a_check_older_than_a_day_is_made_again(tmp_path, checks):
    db = tmp_path / "m.db"
    written(db, "I keep bees")
    stamp = json.loads(integrity.stamp_path(db).read_text())
    assert integrity.trusted(db, time.time()) == stamp["checked_at"]
    assert integrity.trusted(db, stamp["checked_at"] + integrity.TRUST_FOR + 1) is None
    stamp["checked_at"] -= integrity.TRUST_FOR + 1
    integrity.stamp_path(db).write_text(json.dumps(stamp))
    written(db, "I keep goats")
    assert len(checks) == 2  # and the new stamp carries the new check's time
    assert json.loads(integrity.stamp_path(db).read_text())["checked_at"] > stamp["checked_at"] + integrity.TRUST_FOR


def test_changes_still_in_the_write_ahead_log_are_not_covered_by_the_stamp(tmp_path):
    db = tmp_path / "m.db"
    written(db, "I keep bees")
    assert integrity.trusted(db, time.time()) is not None
    wal = tmp_path / "m.db-wal"
    wal.write_bytes(b"\0" * 32)  # what the stamp's identity does not describe
    assert integrity.trusted(db, time.time()) is None
    wal.write_bytes(b"")  # an empty log (an open connection's) changes nothing
    assert integrity.trusted(db, time.time()) is not None


def test_stores_of_one_process_share_the_check_and_the_last_to_close_stamps(tmp_path, checks):
    db = tmp_path / "m.db"
    first = MemoryStore(db, embed=fake_hash_embedder)
    first.add("I keep bees")
    assert len(checks) == 1
    integrity.clear_stamp(db)
    second = MemoryStore(db, embed=fake_hash_embedder)  # opened while the first one is open
    second.add("I keep goats")
    assert len(checks) == 1
    first.close()
    assert not integrity.stamp_path(db).exists()  # the second one's changes are not checkpointed yet
    second.close()
    assert integrity.trusted(db, time.time()) is not None
    written(db, "I keep hens")
    assert len(checks) == 1
