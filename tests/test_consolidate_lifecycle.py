"""Decay (archive, never delete), TTL purge, the runs record, and undo of a whole run."""

from __future__ import annotations

import pytest

from assistant.memory.consolidation.consolidator import Consolidator, list_runs, undo
from assistant.memory.store.tidying.changes import Archive
from assistant.memory.store.tidying.undo import AlreadyUndone
from assistant.memory.errors import NotFound, StoreError
from assistant.memory.records import Kind, LinkType, Status, Trust, UpdateType
from consolidate_support import Speaker, clock, days, dt, minilm, store  # noqa: F401 - fixtures

NOW = dt(2025, 3, 25, 12)


def test_decay_archives_old_unused_memories_and_spares_pinned_profile_and_used(store):
    sp = Speaker(store)
    old = sp.fact("User tried a kombucha stand at the Brooklyn Flea", NOW - days(450), confidence=0.8)
    pinned = sp.fact("User's passport number ends in 4471", NOW - days(900), confidence=0.8, pinned=True)
    profile = sp.fact("User's name is Alice.", NOW - days(900), kind=Kind.PROFILE, slot="name", confidence=0.8)
    used = sp.fact("User keeps the spare key under the blue flowerpot", NOW - days(450), confidence=0.8)
    store.record_use([used], at=NOW - days(20))
    young = sp.fact("User bought a yellow umbrella", NOW - days(10), confidence=0.01)
    report = Consolidator(store).run()
    archived = {c.memory_id for c in report.changes if isinstance(c, Archive)}
    assert archived == {old}
    m = store.get(old)
    assert m.status is Status.ARCHIVED and store.history(old)[-1].update_type is UpdateType.DECAY
    assert "below floor" in store.history(old)[-1].reason
    assert old in [x.id for x in store.list(include_archived=True)] and old not in [x.id for x in store.list()]
    for mid in (pinned, profile, used, young):
        assert store.get(mid).status is Status.ACTIVE
    store.restore(old)  # restorable
    assert store.get(old).status is Status.ACTIVE


def test_a_use_after_planning_stops_the_archive(store):
    sp = Speaker(store)
    old = sp.fact("User tried a kombucha stand at the Brooklyn Flea", NOW - days(450), confidence=0.8)
    c = Consolidator(store)
    plan = c.plan()
    store.record_use([old])  # no new version, but a decay input changed
    from assistant.memory.store.tidying.apply import apply_changes

    res = apply_changes(store, plan.changes, "t", retry_wait=0)
    assert res.conflicts == 1 and len(res.skipped) == 1
    assert store.get(old).status is Status.ACTIVE


def test_ttl_expired_memories_are_purged_and_audited(store, clock):
    sp = Speaker(store)
    temp = sp.fact("User's hotel room code is 5521", NOW - days(2), ttl=days(1))
    keep = sp.fact("User's favourite tea is sencha", NOW - days(2))
    assert Consolidator(store).run(dry_run=True).proposed == {}
    clock.advance(days=2)
    assert store.list(text="hotel") == []  # hidden at read time already
    report = Consolidator(store).run()
    assert report.applied.get("ttl") == 1
    with pytest.raises(NotFound):
        store.get(temp)
    assert store.get(keep).status is Status.ACTIVE
    [entry] = [e for e in store.audit(run_id=report.run_id) if e.action == "purge_ttl"]
    assert entry.memory_id == temp and entry.update_type is UpdateType.TTL
    u = undo(store, report.run_id)
    assert u.not_undoable == 1 and any("cannot be undone" in s.why for s in u.skipped)


def _state(store):
    out = {}
    for m in store.list(include_all=True):
        out[m.id] = (m.text, m.status, m.invalid_at, m.expired_at, m.trust, m.confidence,
                     sorted((l.src_id, l.dst_id, l.type) for l in m.links), sorted(s.message_id for s in m.sources),
                     sorted(m.entities))  # fmt: skip
    return out


def test_undo_restores_a_whole_run(store):
    sp = Speaker(store)
    # duplicates, a slot conflict with its episode, repeated episodes, an old memory
    sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1), entities=["oat milk"])
    sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1), entities=["coffee"], confidence=0.9)
    bj = sp.fact("User lives in Beijing.", dt(2024, 1, 10), kind=Kind.PROFILE, slot="home_city", message="I live in Beijing")
    ep_msg = store.get(bj).sources[0]
    from assistant.memory.records import Source

    store.add("I live in Beijing", kind=Kind.EPISODE, source=Source(session_id=ep_msg.session_id, message_id=ep_msg.message_id,
              observed_at=ep_msg.observed_at), valid_at=dt(2024, 1, 10))  # fmt: skip
    sp.fact("User lives in Shanghai.", dt(2025, 3, 20), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2025, 3, 10))
    sp.fact("I go rock climbing at Brooklyn Boulders every Saturday", dt(2024, 3, 2), kind=Kind.EPISODE)
    sp.fact("Every Saturday I go rock climbing at Brooklyn Boulders", dt(2024, 9, 7), kind=Kind.EPISODE, trust=Trust.IMPORTED)
    sp.fact("User tried a kombucha stand at the Brooklyn Flea", NOW - days(450), confidence=0.8)
    before = _state(store)
    report = Consolidator(store).run()
    assert set(report.applied) == {"duplicate", "conflict", "consolidate", "decay"}
    assert _state(store) != before
    u = undo(store, report.run_id)
    assert u.facts_removed == 1 and u.unlinked >= 4 and u.sources_removed == 1 and u.entities_removed == 1
    assert not u.skipped
    assert _state(store) == before
    run = [r for r in list_runs(store) if r.run_id == report.run_id][0]
    assert run.undone and run.undone_at is not None
    undo_audit = store.audit(run_id=f"undo:{report.run_id}")
    assert undo_audit and all(e.run_id == f"undo:{report.run_id}" for e in undo_audit)
    with pytest.raises(AlreadyUndone):
        undo(store, report.run_id)
    # the next run proposes the same changes again
    again = Consolidator(store).run(dry_run=True)
    assert again.proposed == report.proposed


def test_undo_never_overwrites_a_later_edit(store):
    sp = Speaker(store)
    a = sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1))
    b = sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1))
    report = Consolidator(store).run()
    merged = a if store.get(a).status is Status.ARCHIVED else b
    # later, someone edits the text (a field the run did not touch) and the expiry (one it did)
    store.edit(merged, "User prefers oat milk in their flat white")
    store.update(merged, expired_at=dt(2025, 4, 1))
    u = undo(store, report.run_id)
    m = store.get(merged)
    assert m.text == "User prefers oat milk in their flat white"  # kept
    assert m.expired_at == dt(2025, 4, 1)  # kept, and reported
    assert any(s.memory_id == merged and "expired_at" in s.why for s in u.skipped)
    assert m.status is Status.ACTIVE  # what the run changed and nobody touched since is taken back
    assert store.history(merged)[-1].reason.startswith("undo of consolidation run")


def test_runs_record_dry_run_and_counts(store, clock):
    sp = Speaker(store)
    sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1))
    sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1))
    dry = Consolidator(store).run(dry_run=True, trigger="cli")
    clock.advance(minutes=1)
    real = Consolidator(store).run(trigger="idle")
    rows = list_runs(store)
    assert [r.run_id for r in rows] == [real.run_id, dry.run_id]  # newest first, by sequence
    assert rows[1].dry_run and rows[1].counts == {"duplicate": 1} and rows[1].trigger == "cli"
    assert not rows[0].dry_run and rows[0].counts == {"duplicate": 1} and rows[0].status == "finished"
    assert rows[0].started_at == dt(2025, 3, 25, 12, 1) and rows[0].finished_at is not None and not rows[0].undone
    assert "timings" in rows[0].details
    with pytest.raises(StoreError):
        undo(store, dry.run_id)
    with pytest.raises(NotFound):
        undo(store, "c-nope")


def test_a_failed_run_is_recorded(store, monkeypatch):
    import assistant.memory.consolidation.consolidator as mod

    def boom(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(mod, "plan_dedup", boom)
    with pytest.raises(RuntimeError):
        Consolidator(store).run()
    [row] = list_runs(store)
    assert row.status == "failed" and "disk on fire" in row.details["error"]


def test_links_and_entities_survive_in_the_audit_log_with_run_id(store):
    sp = Speaker(store)
    sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1))
    sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1))
    report = Consolidator(store).run()
    actions = [e.action for e in store.audit(run_id=report.run_id)]
    assert "merge_duplicate" in actions and "link" in actions and "add_source" in actions
    assert all(e.actor.value == "consolidator" for e in store.audit(run_id=report.run_id))
    _ = LinkType
