"""Dedup tiers (hash -> normalized -> fuzzy+cosine -> optional LLM): paraphrases of one
preference merge, two different facts about one entity never do. Real MiniLM vectors."""

from __future__ import annotations

import pytest

from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator
from assistant.memory.store.tidying.changes import Merge
from assistant.memory.language.text import hard_guard, same_fact_guard
from assistant.memory.records import Kind, LinkType, Status, Trust, UpdateType
from consolidate_support import Speaker, clock, dt, minilm, store  # noqa: F401 - fixtures

ONLY_DEDUP = ConsolidationConfig(stages=("dedup",))


def merges(report) -> list[Merge]:
    return [c for c in report.changes if isinstance(c, Merge)]


@pytest.mark.parametrize(
    "a, b",
    [
        ("The user prefers oat milk in coffee.", "User prefers oat milk in their coffee"),
        ("I drink oat milk with my coffee every morning", "Every morning I drink oat milk with my coffee"),
    ],
)
def test_paraphrases_of_one_preference_merge(store, a, b):
    sp = Speaker(store)
    first = sp.fact(a, dt(2024, 5, 1), trust=Trust.USER_STATED)
    second = sp.fact(b, dt(2024, 9, 1), trust=Trust.USER_STATED)
    before = store.count(include_all=True)
    report = Consolidator(store, config=ONLY_DEDUP).run()
    [merge] = merges(report)
    assert merge.tier == "fuzzy" and "cosine" in merge.reasons[0]
    survivor, gone = merge.survivor, merge.merged[0]
    assert {survivor, gone} == {first, second}
    # nothing deleted; the merged record is archived + expired, as a new version typed "duplicate"
    assert store.count(include_all=True) == before
    old = store.get(gone)
    assert old.status is Status.ARCHIVED and old.expired_at is not None
    assert store.history(gone)[-1].update_type is UpdateType.DUPLICATE
    # evolve_to older -> survivor, sources united, default reads show one record
    assert any(l.src_id == gone and l.dst_id == survivor and l.type is LinkType.EVOLVE_TO for l in store.get(survivor).links)
    assert {s.message_id for s in store.get(survivor).sources} >= {s.message_id for s in old.sources}
    assert len(store.get(survivor).sources) == 2
    assert [m.id for m in store.list()] == [survivor]
    audit = store.audit(run_id=report.run_id)
    assert {e.update_type for e in audit if e.action != "link"} == {UpdateType.DUPLICATE}


DIFFERENT_FACTS = [
    ("User likes oat milk.", "User is allergic to oat milk."),
    ("I like oat milk in my coffee", "I am allergic to oat milk in my coffee"),
    ("My sister Mei lives in Boston", "My sister Lin lives in Boston"),
    ("My sister is Mei", "My sister is Lin"),
    ("I was born on 1990-05-01", "I was born on 1991-05-01"),
    ("I have two cats at home", "I have three cats at home"),
    ("My brother is a doctor in Boston", "My sister is a doctor in Boston"),
    ("I have a dentist appointment on Monday at 9", "I have a dentist appointment on Tuesday at 9"),
    ("I don't like oat milk in my coffee", "I like oat milk in my coffee"),
]


@pytest.mark.parametrize("a, b", DIFFERENT_FACTS)
def test_two_different_facts_about_one_entity_never_merge(store, a, b):
    sp = Speaker(store)
    ids = [sp.fact(a, dt(2024, 5, 1), entities=["oat milk"]), sp.fact(b, dt(2024, 9, 1), entities=["oat milk"])]
    assert not same_fact_guard(a, b).ok
    report = Consolidator(store, config=ONLY_DEDUP).run()
    assert merges(report) == []
    assert all(store.get(i).status is Status.ACTIVE and store.get(i).expired_at is None for i in ids)


def test_guard_rejections_are_reported_as_candidates(store):
    sp = Speaker(store)
    sp.fact("I was born on 1990-05-01", dt(2024, 5, 1))
    sp.fact("I was born on 1991-05-01", dt(2024, 9, 1))
    report = Consolidator(store, config=ONLY_DEDUP).run(dry_run=True)
    [cand] = [c for c in report.candidates if c.kind == "duplicate"]
    assert "different numbers" in cand.reason


def test_hash_and_normalized_tiers(store):
    sp = Speaker(store)
    # the hot path dedups identical text, so an exact twin only appears through a race; build one:
    c = sp.fact("User likes green-tea!!", dt(2023, 12, 1))
    a = sp.fact("User likes green tea.", dt(2024, 1, 1), invalid_at=dt(2030, 1, 1))
    b = sp.fact("user likes green tea", dt(2024, 2, 1))
    store.update(a, invalid_at=None)
    report = Consolidator(store, config=ONLY_DEDUP).run()
    [merge] = merges(report)
    assert {merge.survivor, *merge.merged} == {a, b, c}
    assert merge.survivor == a  # equal trust and detail: the tidiest text survives
    tiers = dict(zip(merge.merged, merge.reasons))
    assert tiers[b].startswith("hash") and tiers[c].startswith("normalized")
    assert len(store.list()) == 1


def test_survivor_is_the_most_trusted_and_keeps_its_trust(store):
    sp = Speaker(store)
    low = sp.fact("The user prefers oat milk in coffee", dt(2024, 5, 1), trust=Trust.IMPORTED, confidence=0.95)
    high = sp.fact("User prefers oat milk in their coffee", dt(2024, 6, 1), trust=Trust.USER_STATED, confidence=0.7)
    report = Consolidator(store, config=ONLY_DEDUP).run()
    [merge] = merges(report)
    assert merge.survivor == high and merge.merged == (low,)
    kept = store.get(high)
    assert kept.trust is Trust.USER_STATED and kept.confidence == pytest.approx(0.95)


def test_profile_slot_records_with_the_same_value_merge(store):
    sp = Speaker(store)
    a = sp.fact("User lives in Beijing.", dt(2024, 1, 10), kind=Kind.PROFILE, slot="home_city")
    b = sp.fact("User's home city is Beijing.", dt(2024, 6, 1), kind=Kind.PROFILE, slot="home_city")
    c = sp.fact("User lives in Shanghai.", dt(2024, 7, 1), kind=Kind.PROFILE, slot="home_city")
    report = Consolidator(store, config=ONLY_DEDUP).run(dry_run=True)
    [merge] = merges(report)
    assert merge.tier == "slot_value" and {merge.survivor, *merge.merged} == {a, b} and c not in merge.merged


def test_episodes_are_never_merged(store):
    sp = Speaker(store)
    sp.fact("I like oat milk in my coffee.", dt(2024, 5, 1), kind=Kind.EPISODE)
    sp.fact("I really like oat milk in my coffee", dt(2024, 6, 1), kind=Kind.EPISODE)
    assert merges(Consolidator(store, config=ONLY_DEDUP).run(dry_run=True)) == []


class FakeJudgeModel:
    """FAKE chat model: answers every constrained-JSON question with a fixed object, and records
    the prompts (it has no judgement at all; the code must check what it says)."""

    def __init__(self, answer):
        self.answer = answer
        self.prompts = []

    def complete_json(self, messages, schema, *, max_tokens=256):
        self.prompts.append((messages[-1].content, schema))
        return self.answer(schema) if callable(self.answer) else self.answer


def _all_ids(schema):
    key = next(iter(schema["properties"]))
    return {key: list(schema["properties"][key]["items"]["enum"]) + [99, -1, "x", True]}


def test_llm_tier_confirms_paraphrases_but_cannot_override_the_guard(store):
    sp = Speaker(store)
    a = sp.fact("I prefer oat milk", dt(2024, 5, 1))
    b = sp.fact("I like oat milk", dt(2024, 6, 1))  # cosine ~0.96, ratio 0.75: rules cannot decide
    sp.fact("I was born on 1990-05-01", dt(2024, 5, 1))
    sp.fact("I was born on 1991-05-01", dt(2024, 6, 1))  # cosine ~0.96 but different numbers
    model = FakeJudgeModel(_all_ids)  # says "yes" to everything, plus out-of-range junk
    report = Consolidator(store, chat_model=model, config=ConsolidationConfig(stages=("dedup",), use_llm=True)).run()
    [merge] = merges(report)
    assert merge.tier == "llm" and {merge.survivor, *merge.merged} == {a, b}
    assert len(model.prompts) == 1
    prompt, schema = model.prompts[0]
    assert "1990" not in prompt  # the guard-failing pair was never even shown
    assert schema["properties"]["same"]["items"]["enum"] == [0]  # integer ids 0..n-1 only
    assert not hard_guard("I was born on 1990-05-01", "I was born on 1991-05-01").ok


def test_llm_garbage_is_ignored(store):
    sp = Speaker(store)
    sp.fact("I prefer oat milk", dt(2024, 5, 1))
    sp.fact("I like oat milk", dt(2024, 6, 1))
    for answer in ({"same": "all"}, ["0"], None, {"same": [5, -1]}):
        model = FakeJudgeModel(answer)
        report = Consolidator(store, chat_model=model, config=ConsolidationConfig(stages=("dedup",), use_llm=True)).run(dry_run=True)
        assert merges(report) == []


def test_dry_run_changes_nothing(store):
    sp = Speaker(store)
    ids = [sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1)), sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1))]
    versions = [store.get(i).version for i in ids]
    audit_before = len(store.audit())
    report = Consolidator(store, config=ONLY_DEDUP).run(dry_run=True)
    assert len(merges(report)) == 1 and report.proposed == {"duplicate": 1} and report.applied == {}
    assert [store.get(i).version for i in ids] == versions
    assert len(store.audit()) == audit_before
