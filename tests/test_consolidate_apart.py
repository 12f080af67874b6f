"""Background runs plan in a child process (:mod:`assistant.memory.consolidation.plan_apart`):
the child opens the same (encrypted) database and sends back the same plan the process itself
would make; when no child can be started the process plans itself. Real MiniLM vectors."""

from __future__ import annotations

import os

from assistant.memory.consolidation import plan_apart as apart_mod
from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator
from assistant.memory.records import Kind
from assistant.memory.store.tidying.changes import Archive
from consolidate_support import Speaker, clock, days, dt, minilm, store  # noqa: F401 - fixtures

NOW = dt(2025, 3, 25, 12)


def _say(store) -> dict[str, int]:
    sp = Speaker(store)
    return {
        "old": sp.fact("User tried a kombucha stand at the Brooklyn Flea", NOW - days(450), confidence=0.8),
        "dup1": sp.fact("User's sister Ana lives in Berlin", NOW - days(30)),
        "dup2": sp.fact("User's sister Ana lives in Berlin.", NOW - days(20)),
        "lisbon": sp.fact("User lives in Lisbon.", NOW - days(300), kind=Kind.PROFILE, slot="home_city"),
        "braga": sp.fact("User lives in Braga.", NOW - days(10), kind=Kind.PROFILE, slot="home_city"),
    }


def _shape(plan) -> list[tuple[str, tuple[int, ...]]]:
    return sorted((type(ch).__name__, tuple(sorted(ch.ids()))) for ch in plan.changes)


def test_the_child_makes_the_same_plan_as_the_process(store):
    ids = _say(store)
    here = Consolidator(store).plan()
    made = apart_mod.plan_apart(store, store.now(), ConsolidationConfig())
    assert made is not None, "the child process could not plan"
    assert _shape(made) == _shape(here) and made.counts() == here.counts() and made.now == here.now
    assert {ch.memory_id for ch in made.changes if isinstance(ch, Archive)} == {ids["old"]}
    assert apart_mod._pool is not None and os.getpid() not in {p.pid for p in apart_mod._pool._processes.values()}


def test_a_run_planned_apart_applies_here_like_one_planned_here(store):
    ids = _say(store)
    report = Consolidator(store, config=ConsolidationConfig(apart=True)).run(trigger="manual")
    assert report.applied.get("decay") == 1 and not report.errors
    assert store.get(ids["old"]).status.value == "archived"
    assert [a.run_id for a in store.audit(run_id=report.run_id)]  # audited with the run id, in this process


def test_when_no_child_can_start_the_process_plans_itself(store, monkeypatch):
    ids = _say(store)

    def no_child():
        raise OSError("cannot start a process")

    monkeypatch.setattr(apart_mod, "_executor", no_child)
    assert apart_mod.plan_apart(store, store.now(), ConsolidationConfig()) is None
    plan = Consolidator(store, config=ConsolidationConfig(apart=True)).plan()
    assert {ch.memory_id for ch in plan.changes if isinstance(ch, Archive)} == {ids["old"]}
