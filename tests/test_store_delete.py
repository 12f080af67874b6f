"""Deleting really deletes: a unique marker in a memory and its source message occurs 0 times
afterwards in every table of the decrypted database (FTS5 and vec0 shadow tables included), in
the FTS vocabulary, in the -wal file and in every file the app keeps; with encryption off, also
0 times in the raw bytes of the database files."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from store_fakes import fake_hash_embedder

from assistant.config import paths
from assistant.memory.errors import NotFound
from assistant.memory.records import InjectionItem, Kind, LinkType, Source, Status
from assistant.memory.store import MemoryStore


def _marker() -> str:
    return "Qx" + uuid.uuid4().hex[:12].upper() + "Zq"


def _count_in_db(store: MemoryStore, marker: str) -> dict[str, int]:
    """Occurrences of ``marker`` (case-insensitive) per table, reading every table and shadow
    table of the decrypted database, plus the FTS vocabularies."""
    c = store.conn
    needle = marker.lower()
    hits: dict[str, int] = {}
    tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    assert {"memory_fts_data", "memory_fts_idx", "message_fts_data", "memory_vec_vector_chunks00"} <= set(tables)
    for t in tables:
        n = 0
        for row in c.execute(f'SELECT * FROM "{t}"'):
            for v in row:
                if isinstance(v, str):
                    n += v.lower().count(needle)
                elif isinstance(v, (bytes, bytearray, memoryview)):
                    n += bytes(v).lower().count(needle.encode())
        if n:
            hits[t] = n
    for fts in ("memory_fts", "message_fts"):
        c.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{fts}_vocab USING fts5vocab(main, '{fts}', 'row')")
        n = sum(1 for (term,) in c.execute(f"SELECT term FROM temp.{fts}_vocab") if needle in term)
        c.execute(f"DROP TABLE temp.{fts}_vocab")
        if n:
            hits[f"{fts} vocabulary"] = n
    return hits


def _count_in_files(root: Path, marker: str) -> dict[str, int]:
    needle = marker.lower().encode()
    hits = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            n = p.read_bytes().lower().count(needle)
            if n:
                hits[str(p)] = n
    return hits


def _scenario(store: MemoryStore, marker: str) -> dict[str, int]:
    """A memory holding the marker with every kind of copy the app makes of it."""
    p = paths().ensure()
    for i in range(300):  # enough rows for several pages and FTS segments
        store.add(f"filler memory number {i} about gardening and tea", kind=Kind.FACT)
    other_session = store.create_session("unrelated")
    keep_msg = store.add_message(other_session.id, "user", "I water the tomatoes every morning")
    keep = store.add("Waters the tomatoes every morning", source=Source(other_session.id, keep_msg.id), entities=["gym"])

    s = store.create_session("locker talk")
    store.add_message(s.id, "user", "hello there")
    msg = store.add_message(s.id, "user", f"My gym locker code is {marker}, please remember it")
    src = Source(s.id, msg.id, speaker="user", extractor="rules", observed_at=msg.observed_at)
    mid = store.add(f"The gym locker code is {marker}", source=src, entities=[f"locker {marker}", "gym"])
    store.edit(mid, f"The gym locker code is {marker} (blue door)")
    store.invalidate(mid)  # one more version
    episode = store.add(msg.content, kind=Kind.EPISODE, source=src)
    summary = store.add(f"Summary: gym locker uses code {marker}", kind=Kind.EXPERIENCE)
    store.link(mid, summary, LinkType.EVOLVE_TO)
    store.record_injection("turn-1", [InjectionItem(mid, 0.9, signals={"semantic": 0.9}, source_message_ids=(msg.id,))], session_id=s.id)
    store.record_injection("turn-1", [InjectionItem(keep, 0.5)], session_id=other_session.id)
    # files the app keeps: an offloaded copy registered for the message, a compaction archive
    # holding the transcript, and an export in the exports folder
    offload = p.archive / "offload-1.txt"
    offload.write_text(msg.content, encoding="utf-8")
    store.register_file(offload, message_id=msg.id)
    transcript = p.archive / "session-transcript.json"
    transcript.write_text(json.dumps({"messages": [{"role": "user", "content": msg.content}, {"role": "user", "content": "keep me"}]}), encoding="utf-8")
    store.export_json(p.exports / "auto-export.json")
    (p.data / "context").mkdir(exist_ok=True)  # compaction state of another session quoting the message
    (p.data / "context" / "99.json").write_text(json.dumps({"summary": "ok", "quote": msg.content}), encoding="utf-8")
    return {"memory": mid, "episode": episode, "summary": summary, "keep": keep, "message": msg.id, "session": s.id}


@pytest.mark.parametrize("encrypted", [True, False], ids=["encrypted", "plain"])
def test_delete_leaves_no_trace(encrypted: bool, keepsake_home: Path) -> None:
    marker = _marker()
    store = MemoryStore(encrypted=encrypted, embed=fake_hash_embedder)
    ids = _scenario(store, marker)
    before = _count_in_db(store, marker)
    assert {"memories", "memory_versions", "messages", "memory_fts_data", "message_fts_data", "entities", "audit_log"} <= set(before), before
    assert _count_in_files(paths().archive, marker) and _count_in_files(paths().exports, marker)
    assert store.checkpoint()
    raw = store.path.read_bytes().lower()
    # sanity: unencrypted, the marker is in the file bytes before the delete; encrypted, never
    assert (marker.lower().encode() in raw) is (not encrypted)

    preview = store.delete_preview(ids["memory"])
    assert set(preview.memory_ids) == {ids["memory"], ids["episode"], ids["summary"]}
    assert preview.redacted_message_ids == (ids["message"],)
    assert preview.counts["memory_versions"] == 2 and preview.counts["memory_vec"] == 3
    assert preview.counts["injection_log"] == 1 and preview.counts["entities"] == 1  # "gym" is shared
    assert len(preview.files_deleted) == 1 and len(preview.files_redacted) == 3
    assert _count_in_db(store, marker) == before  # a preview changes nothing

    report = store.delete(ids["memory"])
    assert report.executed and report.counts == preview.counts and report.wal_truncated is True

    assert _count_in_db(store, marker) == {}
    assert _count_in_files(keepsake_home, marker) == {}  # archive, exports, key file, -wal, everything
    wal = Path(str(store.path) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    store.close()
    if not encrypted:
        for suffix in ("", "-wal", "-shm"):
            f = Path(str(store.path) + suffix)
            if f.exists():
                assert marker.lower().encode() not in f.read_bytes().lower(), suffix

    # what had to stay, stayed
    store = MemoryStore(encrypted=encrypted, embed=fake_hash_embedder)
    assert store.get(ids["keep"]).text == "Waters the tomatoes every morning"
    assert store.count(include_all=True) == 301
    redacted = store.get_message(ids["message"])
    assert redacted.redacted and redacted.content == ""
    assert [m.content for m in store.messages(ids["session"])][0] == "hello there"
    assert "keep me" in (paths().archive / "session-transcript.json").read_text()
    trail = store.audit(ids["memory"])
    assert [a.action for a in trail] == ["add", "edit", "invalidate", "link", "delete"]
    assert all(a.details.get("redacted") for a in trail)
    for gone in (ids["memory"], ids["episode"], ids["summary"]):
        with pytest.raises(NotFound):
            store.get(gone)
    assert store.integrity_check() == "ok"
    store.close()


def test_derived_summary_with_other_sources_is_kept_for_regeneration() -> None:
    store = MemoryStore(embed=fake_hash_embedder)
    s = store.create_session()
    m1 = store.add_message(s.id, "user", "I like green tea")
    m2 = store.add_message(s.id, "user", "Green tea is my favourite drink")
    a = store.add("Likes green tea", source=Source(s.id, m1.id))
    b = store.add("Favourite drink is green tea", source=Source(s.id, m2.id))
    merged = store.add("Loves green tea", sources=[Source(s.id, m1.id), Source(s.id, m2.id)], kind=Kind.FACT)
    store.link(a, merged, LinkType.EVOLVE_TO)
    store.link(b, merged, LinkType.EVOLVE_TO)
    only_a = store.add("Drinks tea daily (from a)")
    store.link(only_a, a, LinkType.DERIVED_FROM)

    report = store.delete(a)
    assert set(report.memory_ids) == {a, only_a}
    assert report.regenerate_ids == (merged,)
    kept = store.get(merged)
    assert kept.status == Status.RESOLVING
    assert all(link.src_id != a for link in kept.links)
    assert store.get(b).status == Status.ACTIVE


def test_delete_session_keeps_memories_with_other_sources() -> None:
    store = MemoryStore(embed=fake_hash_embedder)
    s1, s2 = store.create_session("one"), store.create_session("two")
    a1 = store.add_message(s1.id, "user", "My sister is called Ana")
    b1 = store.add_message(s2.id, "user", "Ana is my sister")
    only_s1 = store.add("Has a cat named Miso", source=Source(s1.id, a1.id))
    shared = store.add("Sister is called Ana", source=Source(s1.id, a1.id))
    store.add("sister is called ana", source=Source(s2.id, b1.id))  # dedup: second source
    manual = store.add("Prefers metric units")

    preview = store.delete_session_preview(s1.id)
    assert preview.memory_ids == (only_s1,) and preview.detached_ids == (shared,)
    assert preview.counts["messages_deleted"] == 1 and preview.counts["sessions"] == 1
    report = store.delete_session(s1.id)
    assert report.counts == preview.counts

    with pytest.raises(NotFound):
        store.get_session(s1.id)
    with pytest.raises(NotFound):
        store.get(only_s1)
    kept = store.get(shared)
    assert [(src.session_id, src.message_id) for src in kept.sources] == [(s2.id, b1.id)]
    assert store.get(manual).text == "Prefers metric units"
    assert store.conn.execute("SELECT count(*) FROM message_fts WHERE message_fts MATCH 'sister'").fetchone()[0] == 1
    assert store.list_sessions()[0].id == s2.id


def test_unknown_ids_are_refused_before_anything_is_deleted() -> None:
    store = MemoryStore(embed=fake_hash_embedder)
    a = store.add("Something to keep")
    with pytest.raises(NotFound):
        store.delete([a, 999])
    assert store.get(a).text == "Something to keep"


def test_delete_listener_and_ttl_purge(keepsake_home: Path) -> None:
    from datetime import timedelta

    from store_fakes import FakeClock, dt

    clock = FakeClock(dt(2025, 1, 1))
    store = MemoryStore(embed=fake_hash_embedder, clock=clock)
    seen = []
    store.on_delete(seen.append)
    tmp = store.add("Parking spot is level 3 row F", ttl=timedelta(days=1))
    keep = store.add("Car is a blue Corolla")
    clock.advance(days=2)
    assert [m.id for m in store.list()] == [keep]
    report = store.purge_expired()
    assert report.memory_ids == (tmp,) and seen and seen[0].memory_ids == (tmp,)
    assert store.count(include_all=True) == 1


def test_delete_session_removes_its_files_only() -> None:
    p = paths().ensure()
    store = MemoryStore(embed=fake_hash_embedder)
    s1, s2 = store.create_session("a"), store.create_session("b")
    store.add_message(s1.id, "user", "a long message that was offloaded to the archive folder")
    for sid in (s1.id, s2.id):
        d = p.archive / f"session-{sid}"
        d.mkdir(parents=True)
        (d / "output-1.txt").write_text(f"offloaded output of session {sid}")
        (p.data / "context").mkdir(exist_ok=True)
        (p.data / "context" / f"{sid}.json").write_text(json.dumps({"summary": f"summary {sid}"}))
    preview = store.delete_session_preview(s1.id)
    assert sorted(Path(f).name for f in preview.files_deleted) == [f"{s1.id}.json", "output-1.txt"]
    store.delete_session(s1.id)
    assert not (p.archive / f"session-{s1.id}").exists() and not (p.data / "context" / f"{s1.id}.json").exists()
    assert (p.archive / f"session-{s2.id}" / "output-1.txt").exists() and (p.data / "context" / f"{s2.id}.json").exists()
