"""The store API: ADD-only with hash dedup, versions, optimistic concurrency, audit, sessions,
injection log, vectors, export/import."""

from __future__ import annotations

import json
import struct
import threading
from pathlib import Path

import pytest
from store_fakes import FakeClock, dt, fake_hash_embedder

from assistant.memory.errors import NotFound, VersionConflict
from assistant.memory.entries import InjectionItem
from assistant.memory.records import Actor, Kind, LinkType, Scope, Source, Status, Trust, UpdateType
from assistant.memory.store.facade import MemoryStore
from assistant.config import paths

MEMORY_JSON_KEYS = {"id", "text", "kind", "status", "valid_at", "invalid_at", "created_at", "expired_at", "trust",
                    "confidence", "version", "sources"}  # fmt: skip


@pytest.fixture
def store() -> MemoryStore:
    s = MemoryStore(paths().database, embed=fake_hash_embedder)
    yield s
    s.close()


def test_add_is_add_only_with_hash_dedup(store: MemoryStore) -> None:
    s = store.create_session("chat")
    m1 = store.add_message(s.id, "user", "I'm vegetarian")
    m2 = store.add_message(s.id, "user", "as I said, I am vegetarian")
    first = store.add_ex("Is vegetarian.", source=Source(s.id, m1.id, observed_at=m1.observed_at), entities=["vegetarian"])
    again = store.add_ex("  is VEGETARIAN ", source=Source(s.id, m2.id, observed_at=m2.observed_at))
    assert first.created and not again.created and again.id == first.id
    m = store.get(first.id)
    assert m.text == "Is vegetarian." and m.version == 1  # the stored text never changes on re-add
    assert [src.message_id for src in m.sources] == [m1.id, m2.id]
    assert store.add_ex("Is vegetarian", source=Source(s.id, m2.id)).created is False
    assert len(store.get(first.id).sources) == 2  # the same source is not added twice
    # another scope or kind is another memory
    assert store.add_ex("Is vegetarian", scope=Scope("partner")).created
    assert store.add_ex("Is vegetarian", kind=Kind.EPISODE).created
    # an invalidated memory is history: the same statement later is a new fact
    store.invalidate(first.id, dt(2024, 1, 1))
    assert store.add_ex("Is vegetarian").id != first.id
    assert store.find_duplicate("is vegetarian") is not None


def test_memory_json_shape(store: MemoryStore) -> None:
    s = store.create_session()
    msg = store.add_message(s.id, "user", "I was born in Porto", observed_at=dt(2023, 5, 22, 10))
    mid = store.add("Was born in Porto", source=Source(s.id, msg.id, observed_at=msg.observed_at), valid_at=dt(1990, 1, 1))
    j = store.get(mid).to_json()
    assert MEMORY_JSON_KEYS <= set(j)
    assert j["sources"] == [{"session_id": s.id, "message_id": msg.id, "speaker": "user", "extractor": "manual",
                             "extractor_version": "1", "observed_at": "2023-05-22T10:00:00.000000+00:00"}]  # fmt: skip
    assert j["valid_at"] == "1990-01-01T00:00:00.000000+00:00" and j["trust"] == "user_stated"
    json.dumps(j)


def test_edit_keeps_every_version_and_restores(store: MemoryStore) -> None:
    mid = store.add("Works at Acme")
    m2 = store.edit(mid, "Works at Acme Corp")
    m3 = store.update(mid, confidence=0.5, trust=Trust.USER_CONFIRMED, actor=Actor.CONSOLIDATOR, update_type=UpdateType.CONSOLIDATE)
    assert (m2.version, m3.version) == (2, 3)
    hist = store.history(mid)
    assert [(v.version, v.text, v.update_type) for v in hist] == [
        (1, "Works at Acme", None), (2, "Works at Acme Corp", UpdateType.USER_EDIT), (3, "Works at Acme Corp", UpdateType.CONSOLIDATE)
    ]  # fmt: skip
    assert hist[0].superseded_at == hist[1].recorded_at and hist[-1].superseded_at is None
    restored = store.restore_version(mid, 1)
    assert restored.text == "Works at Acme" and restored.version == 4 and restored.trust == Trust.USER_STATED
    assert len(store.history(mid)) == 4
    assert store.update(mid, text="Works at Acme").version == 4  # no-op: no new version
    with pytest.raises(NotFound):
        store.restore_version(mid, 42)


def test_edit_replaces_the_vector(store: MemoryStore) -> None:
    mid = store.add("Owns a red bicycle")

    def vec() -> tuple[float, ...]:
        blob = store.conn.execute("SELECT embedding FROM memory_vec WHERE rowid = ?", (mid,)).fetchone()[0]
        return struct.unpack("384f", blob)

    before = vec()
    store.edit(mid, "Owns a blue bicycle")
    after = vec()
    assert before != after
    assert after == pytest.approx(fake_hash_embedder(["Owns a blue bicycle"])[0], abs=1e-6)
    no_embed = MemoryStore(paths().database)  # same database, no embedder: an edit drops the stale vector
    no_embed.edit(mid, "Owns a green bicycle")
    assert no_embed.missing_vectors() == [(mid, "Owns a green bicycle")]


def test_optimistic_concurrency(store: MemoryStore) -> None:
    mid = store.add("Favourite colour is blue")
    m = store.get(mid)
    store.edit(mid, "Favourite colour is green", expected_version=m.version)  # ok
    with pytest.raises(VersionConflict) as exc:
        store.archive(mid, expected_version=m.version, actor=Actor.CONSOLIDATOR, update_type=UpdateType.DECAY)
    assert exc.value.expected == 1 and exc.value.actual == 2
    assert store.get(mid).status == Status.ACTIVE


def test_every_change_is_audited(store: MemoryStore) -> None:
    mid = store.add("Has a dog named Rex", actor=Actor.CAPTURE)
    other = store.add("Dog Rex is a beagle")
    store.add_ex("has a dog named rex", actor=Actor.IMPORT)
    store.edit(mid, "Has a beagle named Rex")
    store.invalidate(mid, dt(2020, 1, 1))
    store.set_ttl(mid, dt(2030, 1, 1))
    store.clear_ttl(mid)
    store.pin(mid)
    store.unpin(mid)
    store.archive(mid, run_id="run-7", actor=Actor.CONSOLIDATOR, update_type=UpdateType.DECAY)
    store.restore(mid)
    store.link(other, mid, LinkType.EVOLVE_TO, run_id="run-7")
    store.set_entities(mid, ["Rex"])
    actions = [(a.action, a.actor) for a in store.audit(mid)]
    assert actions == [
        ("add", Actor.CAPTURE), ("add_duplicate", Actor.IMPORT), ("edit", Actor.USER), ("invalidate", Actor.USER),
        ("set_ttl", Actor.USER), ("clear_ttl", Actor.USER), ("pin", Actor.USER), ("unpin", Actor.USER),
        ("archive", Actor.CONSOLIDATOR), ("restore", Actor.USER), ("set_entities", Actor.CAPTURE),
    ]  # fmt: skip
    edit = store.audit(mid)[2]
    assert edit.from_version == 1 and edit.to_version == 2 and edit.details["changes"]["text"][1] == "Has a beagle named Rex"
    assert [a.action for a in store.audit(run_id="run-7")] == ["archive", "link"]
    assert store.get(mid).entities == ("Rex",)


def test_sessions_and_message_sequence(store: MemoryStore) -> None:
    clock = FakeClock(dt(2025, 1, 1))
    s = MemoryStore(paths().database, embed=fake_hash_embedder, clock=clock)
    a = s.create_session("first")
    b = s.create_session("second", external_id="chatgpt:abc")
    assert s.create_session("again", external_id="chatgpt:abc").id == b.id
    # timestamps go backwards (imports, clock changes): order is still the sequence
    m1 = s.add_message(a.id, "user", "one", observed_at=dt(2025, 1, 3))
    m2 = s.add_message(a.id, "assistant", "two", observed_at=dt(2025, 1, 1))
    clock.set(dt(2024, 1, 1))
    m3 = s.add_message(a.id, "user", "three", observed_at=dt(2024, 12, 31))
    assert [m.content for m in s.messages(a.id)] == ["one", "two", "three"]
    assert m1.id < m2.id < m3.id
    assert [m.content for m in s.messages(a.id, after_id=m1.id, limit=1)] == ["two"]
    assert s.add_message(b.id, "user", "imported", external_id="msg-1").id == s.add_message(b.id, "user", "imported", external_id="msg-1").id
    assert s.get_session(a.id).message_count == 3
    assert s.rename_session(a.id, "renamed").title == "renamed"
    assert [x.id for x in s.list_sessions()] == [b.id, a.id] and s.count_sessions() == 2
    assert s.set_session_incognito(a.id, True).incognito
    with pytest.raises(NotFound):
        s.add_message(999, "user", "nowhere")
    with pytest.raises(ValueError):
        s.add_message(a.id, "robot", "bad role")
    with pytest.raises(NotFound):
        s.get_session(999)


def test_injection_log(store: MemoryStore) -> None:
    s = store.create_session()
    q = store.add_message(s.id, "user", "where do I live?")
    a = store.add("Lives in Lisbon")
    b = store.add("Works in Lisbon")
    store.record_injection("turn-1", [InjectionItem(a, 0.91, signals={"semantic": 0.8, "bm25": 0.6}, source_message_ids=(3,)),
                                      InjectionItem(b, 0.55)], session_id=s.id, message_id=q.id)  # fmt: skip
    rows = store.injections(turn_id="turn-1")
    assert [(r.memory_id, r.rank, r.score) for r in rows] == [(a, 0, 0.91), (b, 1, 0.55)]
    assert rows[0].signals == {"semantic": 0.8, "bm25": 0.6} and rows[0].source_message_ids == (3,)
    assert [r.turn_id for r in store.injections(memory_id=b)] == ["turn-1"]
    store.record_use([a, b])
    assert store.get(a).use_count == 1 and store.get(a).version == 1


def test_get_many_links_and_errors(store: MemoryStore) -> None:
    a, b, c = (store.add(t) for t in ("alpha fact", "beta fact", "gamma fact"))
    assert [m.id for m in store.get_many([c, 999, a])] == [c, a]
    store.link(a, c, LinkType.EVOLVE_TO)
    assert store.get(c).links[0].to_json() == {"from": a, "to": c, "type": "evolve_to"}
    assert store.unlink(a, c, "evolve_to") and not store.get(c).links
    with pytest.raises(ValueError):
        store.link(a, a, LinkType.RELATED)
    with pytest.raises(NotFound):
        store.link(a, 999, LinkType.RELATED)
    with pytest.raises(NotFound):
        store.get(999)
    with pytest.raises(NotFound):
        store.edit(999, "x")
    assert b


def test_each_thread_has_its_own_connection(store: MemoryStore) -> None:
    conns, errors = [], []

    def work(i: int) -> None:
        try:
            conns.append(id(store.conn))
            for j in range(20):
                store.add(f"thread {i} memory {j}")
        except Exception as exc:  # pragma: no cover - the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(conns)) == 4 and id(store.conn) not in conns
    assert store.count() == 80


def test_export_import_roundtrip_is_idempotent(store: MemoryStore, tmp_path: Path) -> None:
    s = store.create_session("trip planning")
    msg = store.add_message(s.id, "user", "I went to Paris last week", observed_at=dt(2023, 5, 22))
    paris = store.add("Went to Paris in the week of 2023-05-15", source=Source(s.id, msg.id, observed_at=msg.observed_at),
                      valid_at=dt(2023, 5, 15), entities=["Paris"])  # fmt: skip
    store.edit(paris, "Visited Paris in the week of 2023-05-15")
    old = store.add("Lived in Berlin", valid_at=dt(2019, 1, 1), invalid_at=dt(2020, 1, 1))
    summary = store.add("Travels to European capitals", kind=Kind.EXPERIENCE, trust=Trust.ASSISTANT_INFERRED)
    store.link(paris, summary, LinkType.EVOLVE_TO)
    out = tmp_path / "export.json"
    data = store.export_json(out)
    assert (out.stat().st_mode & 0o777) == 0o600
    assert data["format"] == "keepsake.memories" and len(data["memories"]) == 3 and len(data["sessions"]) == 1
    assert data["memories"][0]["versions"][0]["text"] == "Went to Paris in the week of 2023-05-15"

    picked = store.export_json(tmp_path / "picked.json", ids=[paris, 999_999], include_sessions=False)  # 999999: unknown, skipped
    assert [m["id"] for m in picked["memories"]] == [paris] and "sessions" not in picked
    assert picked["memories"][0] == data["memories"][0]  # the same object as in the full export, versions included
    assert ((tmp_path / "picked.json").stat().st_mode & 0o777) == 0o600

    other = MemoryStore(tmp_path / "other.db", key="cd" * 32, embed=fake_hash_embedder)
    r1 = other.import_json(out)
    assert (r1.memories_added, r1.sessions_added, r1.messages_added, r1.links_added, r1.errors) == (3, 1, 1, 1, [])
    r2 = other.import_json(out)
    assert (r2.memories_added, r2.memories_merged, r2.sessions_added, r2.messages_added) == (0, 3, 0, 0)
    imported = {m.text: m for m in other.list(include_all=True)}
    p = imported["Visited Paris in the week of 2023-05-15"]
    assert p.trust == Trust.IMPORTED and p.valid_at == dt(2023, 5, 15) and p.entities == ("Paris",)
    assert [v.text for v in other.history(p.id)] == ["Went to Paris in the week of 2023-05-15", "Visited Paris in the week of 2023-05-15"]
    assert p.sources[0].observed_at == dt(2023, 5, 22)
    new_msg = other.get_message(p.sources[0].message_id)
    assert new_msg.content == "I went to Paris last week" and new_msg.observed_at == dt(2023, 5, 22)
    assert imported["Lived in Berlin"].invalid_at == dt(2020, 1, 1)
    assert imported["Travels to European capitals"].trust == Trust.IMPORTED
    assert other.missing_vectors() == []
    assert MemoryStore(tmp_path / "third.db", key="ef" * 32).import_json(out, keep_trust=True).memories_added == 3
    # the same store importing its own export adds nothing
    r3 = store.import_json(out)
    assert (r3.memories_added, r3.sessions_added, r3.messages_added) == (0, 0, 0)
    assert old


def test_import_reports_bad_entries_and_keeps_the_rest(store: MemoryStore) -> None:
    data = {"format": "keepsake.memories", "version": 1, "memories": [
        {"id": 1, "text": "Good memory", "kind": "fact"},
        {"id": 2, "text": "Bad kind", "kind": "nonsense"},
        {"id": 3, "text": "Bad date", "valid_at": "yesterday-ish"},
        {"id": 4, "text": 42},
    ]}  # fmt: skip
    r = store.import_json(data)
    assert r.memories_added == 1 and len(r.errors) == 3
    with pytest.raises(ValueError):
        store.import_json({"format": "something else"})


def test_add_many_batches_embeddings_and_dedups(store: MemoryStore) -> None:
    from assistant.memory.records import NewMemory

    calls: list[int] = []

    def counting_fake_embedder(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return fake_hash_embedder(texts)

    s = MemoryStore(paths().database, embed=counting_fake_embedder)
    existing = s.add("Plays the cello")
    calls.clear()
    results = s.add_many(
        [NewMemory("Plays the cello."), NewMemory("Speaks Portuguese", kind="fact", trust="imported"),
         NewMemory("speaks portuguese"), NewMemory("Has two kids", entities=("kids",))],
        actor=Actor.IMPORT,
    )  # fmt: skip
    assert [(r.id == existing, r.created) for r in results] == [(True, False), (False, True), (False, False), (False, True)]
    assert results[1].id == results[2].id
    assert calls == [2]  # one embedder call for the two new texts
    assert s.get(results[1].id).trust == Trust.IMPORTED and s.missing_vectors() == []
    with pytest.raises(ValueError):
        s.add_many([NewMemory("fine"), NewMemory("  ")])
    assert s.find_duplicate("fine") is None  # validation happens before anything is written


def test_soft_delete_is_refused_and_bad_paths_are_clear(store: MemoryStore, tmp_path: Path) -> None:
    from assistant.memory.errors import StoreError

    mid = store.add("Keeps bees")
    with pytest.raises(ValueError, match="delete"):
        store.update(mid, status=Status.DELETED)
    (tmp_path / "adir.db").mkdir()
    with pytest.raises(StoreError, match="cannot open"):
        MemoryStore(tmp_path / "adir.db", key="12" * 32)
