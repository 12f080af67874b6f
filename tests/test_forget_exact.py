"""A delete takes exactly what was asked (issue 26): another memory that only holds the same text
(no shared source message, no derivation link) is proposed with the reason, never taken unless
the person names it (``--with-copies``); concurrent writers lose no acknowledged write.
(FAKE hash embedder: which memory goes does not depend on vectors.)"""

from __future__ import annotations

import json
import threading
import time

import pytest
from store_fakes import FakeEmbedder, fake_hash_embedder, run_cli

from assistant.config import paths
from assistant.memory.records import Source
from assistant.memory.store.facade import MemoryStore
from assistant.services import Services


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    monkeypatch.setattr(Services, "embedder", lambda self: FakeEmbedder())


def _json(capsys, *argv: str):
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, (out, err)
    return json.loads(out)


def test_the_four_command_repro_deletes_only_number_one(capsys) -> None:
    one = _json(capsys, "memory", "add", "I enjoy hiking in the Alps.")["id"]
    _json(capsys, "memory", "edit", str(one), "I planted a tree in my garden.")
    two = _json(capsys, "memory", "add", "I enjoy hiking in the Alps.")
    assert two["created"] and two["id"] != one  # a separate memory (#1's text changed)

    code, out, err = run_cli(capsys, "memory", "delete", str(one), "--dry-run")
    assert code == 0
    assert f"memory #{one} goes" in out and f"memory #{two['id']} goes" not in out
    assert f"memory #{two['id']} stays" in out and f"same text as an old version of #{one}" in out

    report = _json(capsys, "memory", "delete", str(one), "--yes")
    assert report["memory_ids"] == [one] and report["memory_edits"] == []
    assert [(p["id"], p["reason"]) for p in report["proposed_copies"]] == [(two["id"], f"same text as an old version of #{one}")]
    left = _json(capsys, "memory", "list", "--all")
    assert [(m["id"], m["text"]) for m in left] == [(two["id"], "I enjoy hiking in the Alps.")]


def test_with_copies_takes_exactly_the_proposed_copies(capsys) -> None:
    one = _json(capsys, "memory", "add", "My locker code is 4417.")["id"]
    copy = _json(capsys, "memory", "add", "Gym notes. My locker code is 4417.")["id"]
    other = _json(capsys, "memory", "add", "I swim on Fridays.")["id"]
    report = _json(capsys, "memory", "delete", str(one), "--yes", "--with-copies")
    assert report["memory_ids"] == [one] and report["proposed_copies"] == []
    # the copy loses only the sentence it shares with #1
    assert [(c["id"], c["kept"]) for c in report["memory_edits"]] == [(copy, "Gym notes.")]
    assert {m["id"] for m in _json(capsys, "memory", "list", "--all")} == {copy, other}


def test_a_verbatim_copy_of_the_same_message_still_goes_with_it() -> None:
    """Copies linked by provenance (the episode of the same message) are not "found by text":
    they lose the sentence as before; only unlinked text copies are proposed."""
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    s = store.create_session()
    msg = store.add_message(s.id, "user", "My locker code is 4417. I swim on Fridays.")
    src = Source(s.id, msg.id, speaker="user")
    fact = store.add("My locker code is 4417.", source=src)
    episode = store.add(msg.content, kind="episode", source=src)
    unlinked = store.add("My locker code is 4417.", kind="episode")  # same text, another origin
    report = store.delete(fact)
    assert report.ok and report.memory_ids == (fact,)
    assert store.get(episode).text == "I swim on Fridays."
    assert store.get(unlinked).text == "My locker code is 4417."
    assert [p.memory_id for p in report.proposed] == [unlinked]
    store.close()


def test_concurrent_writers_lose_no_acknowledged_write() -> None:
    """Four writers (own connections) add memories - many with the deleted memories' texts -
    while the person deletes memories one by one: every acknowledged add that was not itself
    named in a delete is there afterwards."""
    path = paths().database
    main = MemoryStore(path, embed=fake_hash_embedder)
    doomed = [main.add(f"I enjoy hiking in the Alps, trip {i}.") for i in range(12)]
    for i, mid in enumerate(doomed):
        main.edit(mid, f"I planted tree number {i} in my garden.")
    acked: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        store = MemoryStore(path, embed=fake_hash_embedder)
        try:
            n = 0
            while not stop.is_set() and n < 60:
                text = f"I enjoy hiking in the Alps, trip {n % 12}." if n % 2 else f"Writer {w} note {n}."
                mid = store.add(text)
                with lock:
                    acked.append(mid)
                n += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    while len(acked) < 24 and not errors:  # copies of the old texts exist before the first delete
        time.sleep(0.01)
    for mid in doomed:
        report = main.delete(mid)
        assert report.ok and report.memory_ids == (mid,), report.to_json()
    stop.set()
    for t in threads:
        t.join(60)
    assert not errors, errors
    present = {m.id for m in main.list(include_all=True)}
    lost = set(acked) - present - set(doomed)
    assert acked and not lost, sorted(lost)  # 0 acknowledged writes lost
    assert all(d not in present for d in doomed)
    main.close()
