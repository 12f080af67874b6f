"""Contradictions: candidates from slot rules (or the LLM, which may only propose); decided by
the interval algebra. The knowledge-update story end to end, through capture and retrieval."""

from __future__ import annotations

from datetime import timedelta

import pytest

from assistant.config import Settings
from assistant.memory.capture.capturer import Capturer
from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator
from assistant.memory.store.tidying.changes import Invalidate
from assistant.memory.records import Kind, LinkType, Role, Status, UpdateType
from assistant.memory.retrieval.retriever import Retriever
from consolidate_support import UTC, Speaker, clock, dt, minilm, store  # noqa: F401 - fixtures

ONLY_CONFLICTS = ConsolidationConfig(stages=("conflicts",))


class Person:
    """Says things in a chat session; capture (rules only) writes the memories."""

    def __init__(self, store):
        self.store = store
        self.session = store.create_session("chat").id
        self.capturer = Capturer(store, None, use_llm=False, settings=Settings(), tz=UTC)

    def says(self, text, when):
        msg = self.store.add_message(self.session, Role.USER, text, observed_at=when)
        result = self.capturer.capture_message(msg.id)
        assert result.skipped is None
        return result


def invalidations(report) -> list[Invalidate]:
    return [c for c in report.changes if isinstance(c, Invalidate)]


def test_knowledge_update_end_to_end(store, minilm, clock):
    person = Person(store)
    beijing = person.says("I live in Beijing", dt(2024, 1, 10))
    shanghai = person.says("I moved to Shanghai last week", dt(2025, 3, 20))
    clock.set(dt(2025, 3, 25, 12))
    report = Consolidator(store).run(trigger="test")
    # the move already retired Beijing on the hot path (issue 23); the run has nothing to redo
    assert shanghai.retired and report.applied.get("conflict", 0) == 0 and report.conflicts == 0

    # the Beijing profile record: invalid from the week of 2025-03-10, superseded (not deleted)
    [profile] = [store.get(i) for i in beijing.memory_ids if store.get(i).kind is Kind.PROFILE]
    assert profile.slot == "home_city" and "Beijing" in profile.text
    assert dt(2025, 3, 10) <= profile.invalid_at < dt(2025, 3, 17)
    assert profile.expired_at is not None and profile.status is Status.ACTIVE
    assert store.history(profile.id)[-1].update_type is UpdateType.CONFLICT
    assert any(l.type is LinkType.SUPERSEDES and l.dst_id == profile.id for l in profile.links)
    # ... and the verbatim episode "I live in Beijing" with it
    episode = store.get(beijing.episode_id)
    assert episode.invalid_at == profile.invalid_at

    retriever = Retriever(store, minilm)
    hits = retriever.search("where do I live", k=5)
    assert hits and "Shanghai" in hits[0].memory.text
    for h in hits:  # nothing that still presents Beijing as current
        assert "Beijing" not in h.memory.text or h.memory.invalid_at is not None
    # what it believed about 2024-06-01: Beijing
    past = retriever.search("where do I live", k=5, as_of=dt(2024, 6, 1))
    assert past and "Beijing" in past[0].memory.text
    assert all("Shanghai" not in h.memory.text for h in past)
    assert store.get(shanghai.episode_id).invalid_at is None


def test_lived_in_berlin_in_2019_never_invalidates_the_current_lisbon_address(store, clock):
    person = Person(store)
    lisbon = person.says("I live in Lisbon", dt(2024, 5, 2))
    person.says("I lived in Berlin in 2019", dt(2025, 3, 20))
    # the same statement as a home_city slot record, open-ended and with its end, both ways round
    sp = Speaker(store)
    sp.fact("User lived in Berlin in 2019.", dt(2025, 3, 21), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2019, 1, 1))
    Consolidator(store).run()
    sp.fact("User lived in Berlin from 2019 to 2020.", dt(2025, 3, 22), kind=Kind.PROFILE, slot="home_city",
            valid_at=dt(2019, 1, 1), invalid_at=dt(2020, 1, 1))  # fmt: skip
    Consolidator(store).run()
    for mid in lisbon.memory_ids + [lisbon.episode_id]:
        m = store.get(mid)
        assert m.invalid_at is None and m.expired_at is None and m.status is Status.ACTIVE, m.text
    current = [m.text for m in store.list(slot="home_city")]
    assert current == ["User lives in Lisbon."]


D = dt


@pytest.mark.parametrize(
    "old, new, rule, loser, until",
    [
        # (valid_at, invalid_at) of the old and the new slot record; observed = valid_at or 2024-06-01
        ((D(2024, 1, 10), None), (D(2025, 3, 10), None), "SUPERSEDED", "old", D(2025, 3, 10)),
        ((D(2024, 1, 10), D(2026, 1, 1)), (D(2025, 3, 10), None), "SUPERSEDED", "old", D(2025, 3, 10)),
        ((None, None), (D(2025, 3, 10), None), "SUPERSEDED", "old", D(2025, 3, 10)),  # observed 2024-06-01
        ((D(2022, 1, 1), None), (D(2019, 1, 1), None), "NEW_IS_HISTORICAL", "new", D(2022, 1, 1)),
        ((D(2022, 1, 1), None), (D(2019, 1, 1), D(2026, 1, 1)), "NEW_IS_HISTORICAL", "new", D(2022, 1, 1)),
        ((D(2020, 1, 1), D(2021, 1, 1)), (D(2021, 1, 1), None), None, None, None),  # rule 1: old had ended
        ((D(2022, 1, 1), None), (D(2019, 1, 1), D(2020, 1, 1)), None, None, None),  # rule 2: new had ended
        ((D(2024, 1, 1), None), (D(2024, 1, 1), None), None, None, None),  # same start: undecided
    ],
)  # fmt: skip
def test_every_branch_of_the_interval_table_as_applied(store, clock, old, new, rule, loser, until):
    clock.set(dt(2025, 3, 25, 12))
    sp = Speaker(store)
    ids = {}
    for name, (valid, invalid), text in (("old", old, "User works at Tesco."), ("new", new, "User works at Lidl.")):
        ids[name] = sp.fact(text, valid or dt(2024, 6, 1), kind=Kind.PROFILE, slot="employer", valid_at=valid, invalid_at=invalid,
                            created=dt(2024, 6, 1) if name == "old" else dt(2025, 3, 21))  # fmt: skip
    before = {k: store.get(v) for k, v in ids.items()}
    report = Consolidator(store, config=ONLY_CONFLICTS).run()
    changes = invalidations(report)
    if rule is None:
        assert changes == [] and all(store.get(v).version == before[k].version for k, v in ids.items())
        return
    [inv] = changes
    assert inv.rule == rule and inv.memory_id == ids[loser]
    lost = store.get(ids[loser])
    assert lost.invalid_at == until and lost.expired_at == dt(2025, 3, 25, 12)
    other = "new" if loser == "old" else "old"
    assert store.get(ids[other]).version == before[other].version  # the winner is not touched


def test_a_backfilled_older_fact_becomes_historical(store):
    sp = Speaker(store)
    lisbon = sp.fact("User lives in Lisbon.", dt(2024, 5, 2), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2022, 1, 1))
    berlin = sp.fact("User lives in Berlin.", dt(2025, 3, 20), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2019, 1, 1))
    report = Consolidator(store, config=ONLY_CONFLICTS).run()
    [inv] = invalidations(report)
    assert inv.memory_id == berlin and inv.winner == lisbon and inv.rule == "NEW_IS_HISTORICAL"
    assert store.get(berlin).invalid_at == dt(2022, 1, 1) and store.get(lisbon).invalid_at is None


def test_multi_valued_slots_and_same_values_are_not_conflicts(store):
    sp = Speaker(store)
    sp.fact("User's sister is Mei.", dt(2024, 1, 1), kind=Kind.PROFILE, slot="family.sister")
    sp.fact("User's sister is Lin.", dt(2024, 6, 1), kind=Kind.PROFILE, slot="family.sister")
    sp.fact("User lives in Beijing.", dt(2024, 1, 1), kind=Kind.PROFILE, slot="home_city")
    sp.fact("User's home city is Beijing.", dt(2024, 6, 1), kind=Kind.PROFILE, slot="home_city")
    report = Consolidator(store, config=ONLY_CONFLICTS).run(dry_run=True)
    assert invalidations(report) == []


def test_same_start_is_left_undecided(store):
    sp = Speaker(store)
    # both starts stated (said later than the start); an observed start is only a bound (issue 23)
    sp.fact("User works at Tesco.", dt(2024, 1, 5), kind=Kind.PROFILE, slot="employer", valid_at=dt(2024, 1, 1))
    sp.fact("User works at Lidl.", dt(2024, 2, 1), kind=Kind.PROFILE, slot="employer", valid_at=dt(2024, 1, 1))
    report = Consolidator(store, config=ONLY_CONFLICTS).run(dry_run=True)
    assert invalidations(report) == []
    assert any("same start" in c.reason for c in report.candidates)


def test_same_entity_pairs_are_only_candidates_without_the_llm(store):
    sp = Speaker(store)
    a = sp.fact("User likes oat milk.", dt(2024, 1, 1), entities=["oat milk"])
    b = sp.fact("User is allergic to oat milk.", dt(2024, 6, 1), entities=["oat milk"])
    report = Consolidator(store).run()
    assert invalidations(report) == []
    assert any(set(c.ids) == {a, b} and "only the LLM" in c.reason for c in report.candidates)
    assert store.get(a).invalid_at is None and store.get(b).invalid_at is None


class ProposingModel:
    """FAKE chat model: proposes pair 0 as a contradiction (and junk ids), nothing else."""

    def __init__(self):
        self.calls = 0

    def complete_json(self, messages, schema, *, max_tokens=256):
        self.calls += 1
        key = next(iter(schema["properties"]))
        return {key: [0, 7, -3]} if key == "conflicting" else {key: []}


def test_the_llm_proposes_but_the_interval_algebra_decides(store):
    sp = Speaker(store)
    # no claim rule reads "User's car is ...": only the model can propose this pair
    old = sp.fact("User's car is a Ford Focus.", dt(2023, 1, 1), entities=["car"], valid_at=dt(2023, 1, 1))
    new = sp.fact("User's car is a Tesla Model 3.", dt(2025, 1, 5), entities=["car"], valid_at=dt(2025, 1, 1))
    cfg = ConsolidationConfig(stages=("conflicts",), use_llm=True, conflicts=ONLY_CONFLICTS.conflicts.__class__(entity_cosine=0.3))
    model = ProposingModel()
    report = Consolidator(store, chat_model=model, config=cfg).run()
    [inv] = invalidations(report)
    assert model.calls == 1 and inv.via == "llm"
    assert inv.memory_id == old and inv.winner == new and store.get(old).invalid_at == dt(2025, 1, 1)


def test_an_llm_proposal_between_non_overlapping_facts_changes_nothing(store):
    sp = Speaker(store)
    sp.fact("User drove a Ford Focus until 2020.", dt(2023, 1, 1), entities=["car"], valid_at=dt(2015, 1, 1), invalid_at=dt(2020, 1, 1))
    sp.fact("User drives a Tesla Model 3.", dt(2025, 1, 5), entities=["car"], valid_at=dt(2025, 1, 1))
    cfg = ConsolidationConfig(stages=("conflicts",), use_llm=True, conflicts=ONLY_CONFLICTS.conflicts.__class__(entity_cosine=0.3))
    report = Consolidator(store, chat_model=ProposingModel(), config=cfg).run(dry_run=True)
    assert invalidations(report) == []  # rule 1: the old fact had already ended


def test_a_conflicting_concurrent_edit_is_not_overwritten(store):
    sp = Speaker(store)
    old = sp.fact("User works at Tesco.", dt(2024, 1, 1), kind=Kind.PROFILE, slot="employer")
    sp.fact("User works at Lidl.", dt(2025, 2, 1), kind=Kind.PROFILE, slot="employer", valid_at=dt(2025, 2, 1))
    consolidator = Consolidator(store, config=ONLY_CONFLICTS)
    plan = consolidator.plan()
    store.edit(old, "User works at Tesco Extra.")  # the person edits while the run is planning
    from assistant.memory.store.tidying.apply import apply_changes

    result = apply_changes(store, plan.changes, "test-run", retry_wait=0)
    assert result.conflicts == 1 and len(result.skipped) == 1 and not result.applied
    m = store.get(old)
    assert m.text == "User works at Tesco Extra." and m.invalid_at is None
    # the next run decides again, from the edited record
    Consolidator(store, config=ONLY_CONFLICTS).run()
    assert store.get(old).invalid_at == dt(2025, 2, 1) and store.get(old).text == "User works at Tesco Extra."


def test_a_version_bump_without_a_relevant_change_is_retried(store):
    sp = Speaker(store)
    old = sp.fact("User works at Tesco.", dt(2024, 1, 1), kind=Kind.PROFILE, slot="employer")
    sp.fact("User works at Lidl.", dt(2025, 2, 1), kind=Kind.PROFILE, slot="employer", valid_at=dt(2025, 2, 1))
    plan = Consolidator(store, config=ONLY_CONFLICTS).plan()
    store.pin(old)
    store.unpin(old)  # version +2, same fields
    from assistant.memory.store.tidying.apply import apply_changes

    result = apply_changes(store, plan.changes, "test-run", retry_wait=0)
    assert result.conflicts == 1 and result.retried == 1 and not result.skipped
    assert store.get(old).invalid_at == dt(2025, 2, 1)
    assert store.get(old).version == 4


def test_invalidation_window_uses_the_message_date_not_now(store, clock):
    clock.set(dt(2026, 1, 1))  # consolidated much later: nothing depends on "now" but expired_at
    person = Person(store)
    person.says("I live in Beijing", dt(2024, 1, 10))
    person.says("I moved to Shanghai last week", dt(2025, 3, 20))
    Consolidator(store).run()
    [beijing] = [m for m in store.list(include_all=True, slot="home_city") if "Beijing" in m.text]
    assert beijing.invalid_at - dt(2025, 3, 10) < timedelta(days=7)
    assert beijing.expired_at == dt(2026, 1, 1)
