"""Deleting really deletes, and touches nothing else: a unique marker in a memory and its source
message occurs 0 times afterwards in every table of the decrypted database (FTS5 and vec0
shadow tables included), in the FTS vocabulary, in every decrypted page of the file (free pages)
and WAL, and in every file under KEEPSAKE_HOME - except the export the person made earlier,
which is byte-identical (Keepsake never touches it; the preview names it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from forget_support import count_in_db, count_in_files, count_in_pages, db_key, marker
from store_fakes import fake_hash_embedder

from assistant.config import paths
from assistant.memory.errors import NotFound
from assistant.memory.entries import InjectionItem
from assistant.memory.records import Kind, LinkType, Source, Status
from assistant.memory.store.facade import MemoryStore


def _scenario(store: MemoryStore, mark: str) -> dict[str, int]:
    """A memory holding the marker with every kind of copy the store makes of it."""
    for i in range(300):  # enough rows for several pages and FTS segments
        store.add(f"filler memory number {i} about gardening and tea", kind=Kind.FACT)
    other_session = store.create_session("unrelated")
    keep_msg = store.add_message(other_session.id, "user", "I water the tomatoes every morning")
    keep = store.add("Waters the tomatoes every morning", source=Source(other_session.id, keep_msg.id), entities=["gym"])

    s = store.create_session("locker talk")
    store.add_message(s.id, "user", "hello there")
    msg = store.add_message(s.id, "user", f"I go to the gym on Mondays. My gym locker code is {mark}, please remember it")
    reply = store.add_message(s.id, "assistant", f"Got it: your locker code is {mark}. Enjoy the gym!")
    src = Source(s.id, msg.id, speaker="user", extractor="rules", observed_at=msg.observed_at)
    # an entity the edited text still names (an edit drops the links its new text no longer names)
    mid = store.add(f"The gym locker code is {mark}", source=src, entities=[mark, "gym"])
    store.edit(mid, f"The gym locker code is {mark} (blue door)")
    store.invalidate(mid)  # one more version
    episode = store.add(msg.content, kind=Kind.EPISODE, source=src)
    summary = store.add(f"Summary: gym locker uses code {mark}", kind=Kind.EXPERIENCE)
    store.link(mid, summary, LinkType.EVOLVE_TO)
    store.record_injection("turn-1", [InjectionItem(mid, 0.9, signals={"semantic": 0.9}, source_message_ids=(msg.id,))], session_id=s.id)
    store.record_injection("turn-1", [InjectionItem(keep, 0.5)], session_id=other_session.id)
    return {"memory": mid, "episode": episode, "summary": summary, "keep": keep, "message": msg.id, "reply": reply.id, "session": s.id}


@pytest.mark.parametrize("encrypted", [True, False], ids=["encrypted", "plain"])
def test_delete_leaves_no_trace_and_touches_no_file(encrypted: bool, keepsake_home: Path) -> None:
    mark = marker()
    store = MemoryStore(paths().database, encrypted=encrypted, embed=fake_hash_embedder)
    ids = _scenario(store, mark)
    p = paths().ensure()
    export = p.exports / "my-backup.json"
    store.export_json(export)  # the person's backup, in the default exports folder
    unrelated = p.data / "my-notes.txt"
    unrelated.write_text(f"my own file that mentions {mark}", encoding="utf-8")
    export_bytes, unrelated_bytes = export.read_bytes(), unrelated.read_bytes()
    before = count_in_db(store, mark)
    assert {"memories", "memory_versions", "messages", "memory_fts_data", "message_fts_data", "entities", "audit_log"} <= set(before), before
    assert store.checkpoint()
    raw = store.path.read_bytes().lower()
    assert (mark.lower().encode() in raw) is (not encrypted)  # sanity: plain files show it, encrypted never
    if encrypted:
        assert count_in_pages(store.path, db_key(store), mark)  # the decrypting scan sees it before

    preview = store.delete_preview(ids["memory"])
    assert set(preview.memory_ids) == {ids["memory"], ids["summary"]}  # the summary only existed through it
    assert preview.redacted_message_ids == (ids["message"], ids["reply"])
    assert [c.kept for c in preview.message_edits] == ["I go to the gym on Mondays.", "Enjoy the gym!"]
    # the episode (a verbatim copy of the message) keeps what the message keeps
    assert [(c.id, c.kept) for c in preview.memory_edits] == [(ids["episode"], "I go to the gym on Mondays.")]
    assert preview.counts["memory_versions"] == 2 and preview.counts["memory_vec"] == 2
    assert preview.counts["injection_log"] == 1 and preview.counts["entities"] == 1  # "gym" is shared
    assert preview.exports == (str(export.resolve()),)  # named, never opened
    assert count_in_db(store, mark) == before  # a preview changes nothing

    report = store.delete(ids["memory"])
    assert report.ok and report.executed and report.wal_truncated is True
    assert report.counts["memories"] == preview.counts["memories"] and report.counts["messages_redacted"] == 1

    assert count_in_db(store, mark) == {}
    assert count_in_files(keepsake_home, mark, skip=(export, unrelated)) == {}  # db, -wal, -shm, key file, all
    assert export.read_bytes() == export_bytes and unrelated.read_bytes() == unrelated_bytes
    wal = Path(str(store.path) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    if encrypted:
        assert count_in_pages(store.path, db_key(store), mark) == {}  # free pages and WAL included
    store.close()

    # what had to stay, stayed
    store = MemoryStore(paths().database, encrypted=encrypted, embed=fake_hash_embedder)
    assert store.get(ids["keep"]).text == "Waters the tomatoes every morning"
    assert store.count(include_all=True) == 302
    msg = store.get_message(ids["message"])
    assert msg.content == "I go to the gym on Mondays." and msg.partly_redacted and not msg.redacted
    assert [m.content for m in store.messages(ids["session"])][0] == "hello there"
    trail = store.audit(ids["memory"])
    assert [a.action for a in trail] == ["add", "edit", "invalidate", "link", "delete"]
    assert all(a.details.get("redacted") for a in trail)
    for gone in (ids["memory"], ids["summary"]):
        with pytest.raises(NotFound):
            store.get(gone)
    assert [v.text for v in store.history(ids["episode"])] == ["I go to the gym on Mondays."]  # the old version went
    assert store.integrity_check() == "ok"
    store.close()


def test_a_kept_derived_memory_is_rebuilt_at_once_never_left_resolving() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    s = store.create_session()
    m1 = store.add_message(s.id, "user", "I like green tea")
    m2 = store.add_message(s.id, "user", "Green tea is my favourite drink. I buy it at Kato's shop.")
    a = store.add("Likes green tea", source=Source(s.id, m1.id))
    b = store.add("Favourite drink is green tea", source=Source(s.id, m2.id))
    c_ = store.add("Buys tea at Kato's shop", source=Source(s.id, m2.id))
    merged = store.add("Loves green tea. Buys it at Kato's shop.", kind=Kind.FACT)
    for x in (a, b, c_):
        store.link(x, merged, LinkType.EVOLVE_TO)
    only_a = store.add("Drinks tea daily (from a)")
    store.link(only_a, a, LinkType.DERIVED_FROM)

    report = store.delete([a, c_])
    assert set(report.memory_ids) == {a, c_, only_a}
    # the summary keeps what its remaining input (b) supports, loses the sentence only c_ held
    assert report.regenerate_ids == (merged,)
    kept = store.get(merged)
    assert kept.text == "Loves green tea." and kept.status == Status.ACTIVE
    assert all(link.src_id not in (a, c_) for link in kept.links)
    assert all("Kato" not in v.text for v in store.history(merged))
    assert store.get(b).status == Status.ACTIVE
    assert store.conn.execute("SELECT count(*) FROM memories WHERE status = 'resolving'").fetchone()[0] == 0


def test_delete_session_keeps_memories_with_other_sources() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    s1, s2 = store.create_session("one"), store.create_session("two")
    a1 = store.add_message(s1.id, "user", "My sister is called Ana")
    b1 = store.add_message(s2.id, "user", "Ana is my sister")
    only_s1 = store.add("Has a cat named Miso", source=Source(s1.id, a1.id))
    shared = store.add("Sister is called Ana", source=Source(s1.id, a1.id))
    store.add("sister is called ana", source=Source(s2.id, b1.id))  # dedup: second source
    manual = store.add("Prefers metric units")
    store.context_archive.save_state(str(s1.id), {"session_id": str(s1.id), "summary": "Names: Ana"})
    store.context_archive.save_state(str(s2.id), {"session_id": str(s2.id), "summary": "Names: Ana"})

    preview = store.delete_session_preview(s1.id)
    assert preview.memory_ids == (only_s1,) and preview.detached_ids == (shared,)
    assert preview.counts["messages_deleted"] == 1 and preview.counts["sessions"] == 1 and preview.counts["summaries"] == 1
    report = store.delete_session(s1.id)
    assert report.ok and report.counts == preview.counts

    with pytest.raises(NotFound):
        store.get_session(s1.id)
    with pytest.raises(NotFound):
        store.get(only_s1)
    kept = store.get(shared)
    assert [(src.session_id, src.message_id) for src in kept.sources] == [(s2.id, b1.id)]
    assert store.get(manual).text == "Prefers metric units"
    assert store.conn.execute("SELECT count(*) FROM message_fts WHERE message_fts MATCH 'sister'").fetchone()[0] == 1
    assert store.list_sessions()[0].id == s2.id
    assert store.context_archive.state(str(s1.id)) is None and store.context_archive.state(str(s2.id)) is not None


def test_unknown_ids_are_refused_before_anything_is_deleted() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    a = store.add("Something to keep")
    with pytest.raises(NotFound):
        store.delete([a, 999])
    assert store.get(a).text == "Something to keep"


def test_delete_listener_and_ttl_purge(keepsake_home: Path) -> None:
    from store_fakes import FakeClock, dt

    from datetime import timedelta

    clock = FakeClock(dt(2025, 1, 1))
    store = MemoryStore(paths().database, embed=fake_hash_embedder, clock=clock)
    seen = []
    store.on_delete(seen.append)
    tmp = store.add("Parking spot is level 3 row F", ttl=timedelta(days=1))
    keep = store.add("Car is a blue Corolla")
    clock.advance(days=2)
    assert [m.id for m in store.list()] == [keep]
    report = store.purge_expired()
    assert report.memory_ids == (tmp,) and seen and seen[0].memory_ids == (tmp,)
    assert store.count(include_all=True) == 1


def test_a_listener_that_raises_is_an_error_in_the_report_and_the_others_still_run() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    ran = []

    def broken(report):
        raise RuntimeError("cache reset failed")

    store.on_delete(broken, name="prompt cache")
    store.on_delete(ran.append)
    mid = store.add("Locker code is 4417")
    report = store.delete(mid)
    assert report.executed and not report.ok
    assert report.errors == ("prompt cache failed after the delete: RuntimeError: cache reset failed",)
    assert [h.error for h in report.holders if h.name == "prompt cache"] == ["RuntimeError: cache reset failed"]
    assert ran and ran[0].memory_ids == (mid,)  # the next listener still ran
    with pytest.raises(NotFound):
        store.get(mid)  # the delete itself stands
    assert store.forget_generation() == 1  # what open sessions check before their next turn


def test_a_database_holder_that_fails_rolls_everything_back_and_says_which() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)

    class Broken:
        name = "broken holder"

        def count(self, c, scope):
            return {}

        def apply(self, c, scope, ctx):
            raise OSError("disk full")

    store.forgetter.register(Broken())
    s = store.create_session()
    msg = store.add_message(s.id, "user", "My locker code is 4417.")
    mid = store.add("Locker code is 4417", source=Source(s.id, msg.id))
    report = store.delete(mid)
    assert not report.executed and not report.ok
    assert report.errors == ("broken holder failed, so nothing was deleted: disk full",)
    assert store.get(mid).text == "Locker code is 4417"  # nothing half-done
    assert store.get_message(msg.id).content == "My locker code is 4417."


def test_matching_ignores_case_and_whitespace_and_works_for_short_texts() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    s = store.create_session()
    msg = store.add_message(s.id, "user", "Where to?  Berlin.\nMaybe  later.")
    mid = store.add("berlin", kind=Kind.EPISODE, source=Source(s.id, msg.id))
    copy = store.add("Next trip:\n  BERLIN.  ", kind=Kind.FACT)
    preview = store.delete_preview(mid)  # a copy found by its text only: proposed, not taken
    assert [(p.memory_id, p.reason) for p in preview.proposed] == [(copy, f"holds a sentence of the text of #{mid}")]
    report = store.delete(mid, copies=[copy])  # the person confirmed it
    assert report.ok and report.proposed == ()
    assert store.get_message(msg.id).content == "Where to?\nMaybe  later."
    assert store.get(copy).text == "Next trip:"  # the copy (found after case/whitespace normalisation) loses it
    assert json.dumps([m.to_json() for m in store.list(include_all=True)]).lower().count("berlin") == 0


def test_deleting_a_shorter_duplicate_keeps_the_sentence_a_kept_memory_came_from(keepsake_home: Path) -> None:
    """New-user trial: "undo" on "User works as a nurse." (beside "User works as a nurse at the
    children's hospital.", both from one sentence) cut that sentence out of the message, and the
    kept memory's source then read "Hi! My name is Dana Kowalski." A memory whose every word a
    kept memory of the same message holds is deleted alone; one that says more cuts as before.
    The embedder is a fake hash: which sentences are cut does not depend on the model."""
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    s = store.create_session("intro")
    msg = store.add_message(s.id, "user", "Hi! My name is Dana Kowalski. I work as a nurse at the children's hospital.")
    src = Source(s.id, msg.id, speaker="user", extractor="rules", observed_at=msg.observed_at)
    short = store.add("User works as a nurse.", source=src)
    long_ = store.add("User works as a nurse at the children's hospital.", source=src)
    name = store.add("User's name is Dana Kowalski.", source=src, kind=Kind.PROFILE)
    store.add(msg.content, kind=Kind.EPISODE, source=src)
    assert store.delete([short]).ok
    assert store.get_message(msg.id).content == msg.content  # the kept memory's sentence stays
    assert store.get(long_).text == "User works as a nurse at the children's hospital."
    # the kept one has words no other memory holds: its sentence goes with it
    assert store.delete([long_]).ok
    assert "nurse" not in store.get_message(msg.id).content and "Dana Kowalski" in store.get_message(msg.id).content
    assert store.get(name).text == "User's name is Dana Kowalski."
    store.close()
