"""Undo chains (issue 26.6): run A, then run B (two years later: it archives what A created and
merged), undo B then undo A -> the store's logical content (every memory column, version
history, links, sources, entities, vectors, full-text index) equals its state before A. Undoing A
while B is applied is refused with a message naming B, or cascades (B first) when asked.
Real MiniLM and SQLCipher store (consolidate_support)."""

from __future__ import annotations

import pytest

from assistant.bench.faults import logical_state
from assistant.memory.consolidation.consolidator import Consolidator, undo
from assistant.memory.consolidation.undo import LaterRunFirst, later_runs, touched
from assistant.memory.consolidation import runs as runs_mod
from assistant.memory.records import Kind, Source, Trust
from consolidate_support import Speaker, clock, days, dt, minilm, store  # noqa: F401 - fixtures


def _mix(store) -> None:
    sp = Speaker(store)
    sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1), entities=["oat milk"])
    sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1), entities=["coffee"], confidence=0.9)
    bj = sp.fact("User lives in Beijing.", dt(2024, 1, 10), kind=Kind.PROFILE, slot="home_city", message="I live in Beijing")
    src = store.get(bj).sources[0]
    store.add("I live in Beijing", kind=Kind.EPISODE, source=Source(session_id=src.session_id, message_id=src.message_id,
              observed_at=src.observed_at), valid_at=dt(2024, 1, 10))  # fmt: skip
    sp.fact("User lives in Shanghai.", dt(2025, 3, 20), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2025, 3, 10))
    sp.fact("I go rock climbing at Brooklyn Boulders every Saturday", dt(2024, 3, 2), kind=Kind.EPISODE)
    sp.fact("Every Saturday I go rock climbing at Brooklyn Boulders", dt(2024, 9, 7), kind=Kind.EPISODE, trust=Trust.IMPORTED)


def _two_runs(store, clock):
    a = Consolidator(store).run()
    assert {"duplicate", "conflict", "consolidate"} <= set(a.applied)
    clock.advance(days=730)  # two years unused: B archives (decay) what A merged into and created
    b = Consolidator(store).run()
    assert b.applied.get("decay", 0) >= 1
    shared = touched(store, a.run_id) & touched(store, b.run_id)
    assert shared, "B must change memories A changed, or the chain proves nothing"
    return a, b


def test_undo_b_then_a_restores_the_store_before_a_exactly(store, clock):
    _mix(store)
    before = logical_state(store.conn)
    a, b = _two_runs(store, clock)
    assert logical_state(store.conn) != before
    assert [r.run_id for r in later_runs(store, runs_mod.get_run(store, a.run_id))] == [b.run_id]
    with pytest.raises(LaterRunFirst, match=f"{b.run_id} ran after {a.run_id}.*undo it first.*--cascade"):
        undo(store, a.run_id)
    ub = undo(store, b.run_id)
    assert not ub.skipped  # nobody changed anything in between: every change is rewound exactly
    ua = undo(store, a.run_id)
    assert not ua.skipped and ua.facts_removed == 1  # the fact A created (B had archived it) goes
    assert logical_state(store.conn) == before  # versions, vectors, FTS, links: all as before A
    # and the next run proposes A's changes again
    assert Consolidator(store).run(dry_run=True).proposed == a.proposed


def test_undo_a_with_cascade_takes_back_b_first(store, clock):
    _mix(store)
    before = logical_state(store.conn)
    a, b = _two_runs(store, clock)
    report = undo(store, a.run_id, cascade=True)
    assert [r.run_id for r in report.cascaded] == [b.run_id]
    assert runs_mod.get_run(store, b.run_id).undone and runs_mod.get_run(store, a.run_id).undone
    assert logical_state(store.conn) == before


def test_a_later_edit_is_kept_and_the_rest_of_the_chain_still_undone(store, clock):
    _mix(store)
    a, b = _two_runs(store, clock)
    archived = sorted(e.memory_id for e in store.audit(run_id=b.run_id) if e.action == "archive")
    store.edit(archived[0], "User prefers oat milk in a flat white.")  # a person's edit after B
    undo(store, b.run_id)
    undo(store, a.run_id)
    assert store.get(archived[0]).text == "User prefers oat milk in a flat white."  # never overwritten


def test_the_cli_refuses_naming_the_later_run_then_cascades(store, clock, capsys):
    _mix(store)
    before = logical_state(store.conn)
    a, b = _two_runs(store, clock)
    from assistant.cli import main

    assert main(["consolidate", "undo", a.run_id]) == 2
    err = capsys.readouterr().err
    assert b.run_id in err and "--cascade" in err and len(err.strip().splitlines()) == 1
    assert main(["consolidate", "undo", a.run_id, "--cascade"]) == 0
    out = capsys.readouterr().out
    assert f"undid later run {b.run_id} first" in out and f"undid run {a.run_id}" in out
    assert logical_state(store.conn) == before
