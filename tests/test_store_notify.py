"""The store's one change signal: every committed write publishes what it changed (read from the
audit rows and messages it added); writes that change nothing visible publish nothing; changes
made through another connection (another process) are found by ExternalWatch, without the ones
this process announced itself. Real SQLCipher store."""

from __future__ import annotations

import pytest

from assistant import events
from assistant.memory.store.sqlite import notify
from assistant.memory.store.facade import MemoryStore


@pytest.fixture
def store(tmp_path):
    s = MemoryStore(tmp_path / "k.db", key="ab" * 32)
    yield s
    s.close()


@pytest.fixture
def published():
    got: list[notify.StoreChange] = []
    unsubscribe = events.subscribe(notify.TOPIC, got.append)
    yield got
    unsubscribe()


def test_each_write_publishes_what_it_changed(store, published):
    tea = store.add("User likes green tea.", kind="fact")
    store.invalidate(tea)
    session = store.create_session("Tea")
    store.add_message(session.id, "user", "I like tea.")
    store.record_use([tea])  # usage counters: nothing a view shows as a change
    store.delete([tea])
    assert [(c.memory_ids, c.actions) for c in published] == [
        ({tea}, {"add"}), ({tea}, {"invalidate"}), (set(), {"create_session"}), (set(), set()), ({tea}, {"delete"}),
    ]
    assert [c.session_ids for c in published] == [set(), set(), {session.id}, {session.id}, set()]
    assert published[-1].deleted_memory_ids == {tea} and published[-1].removes_text
    assert not published[1].removes_text
    assert all(c.database == store.path for c in published)


def test_a_failed_write_publishes_nothing(store, published):
    tea = store.add("User likes green tea.", kind="fact")
    published.clear()
    with pytest.raises(RuntimeError):
        store.write(lambda c: (store.audit_log.add(c, action="edit", memory_id=tea), (_ for _ in ()).throw(RuntimeError("boom"))))
    assert published == []


def test_external_watch_reports_only_what_other_connections_did(tmp_path, published):
    mine = MemoryStore(tmp_path / "k.db", key="cd" * 32)
    theirs = MemoryStore(tmp_path / "k.db", key="cd" * 32)  # another connection, as another process has
    try:
        watch = notify.ExternalWatch(mine.path, notify.marks(mine.conn))
        a = mine.add("User likes green tea.", kind="fact")
        for change in published:  # what this process announced (the app does this on its UI thread)
            watch.announced(change)
        b = theirs.add("User works as a nurse.", kind="profile")
        s = theirs.create_session("Imported")
        theirs.add_message(s.id, "user", "Hello.")
        change = watch.take(watch.poll(mine.conn))
        assert change is not None
        assert change.memory_ids == {b} and a not in change.memory_ids
        assert change.session_ids == {s.id}
        assert watch.take(watch.poll(mine.conn)) is None  # nothing new since
    finally:
        mine.close()
        theirs.close()
