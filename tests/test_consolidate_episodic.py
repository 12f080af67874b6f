"""Episodic -> semantic: repeated statements across messages become one fact, with evolve_to
pointers and the lowest trust of its sources; nothing is invented."""

from __future__ import annotations

from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator
from assistant.memory.store.tidying.changes import Consolidate
from assistant.memory.language.text import grounded_in
from assistant.memory.records import Kind, LinkType, Status, Trust, UpdateType
from consolidate_support import Speaker, clock, dt, minilm, store  # noqa: F401 - fixtures

ONLY = ConsolidationConfig(stages=("episodic",))


def consolidations(report) -> list[Consolidate]:
    return [c for c in report.changes if isinstance(c, Consolidate)]


def test_repeated_episodes_become_one_fact(store):
    sp = Speaker(store)
    eps = [
        sp.fact("I go rock climbing at Brooklyn Boulders every Saturday", dt(2024, 3, 2), kind=Kind.EPISODE, trust=Trust.USER_STATED),
        sp.fact("I go rock climbing at Brooklyn Boulders every Saturday morning", dt(2024, 6, 8), kind=Kind.EPISODE, trust=Trust.IMPORTED),
        sp.fact("Every Saturday I go rock climbing at Brooklyn Boulders", dt(2024, 9, 7), kind=Kind.EPISODE, trust=Trust.USER_CONFIRMED),
    ]
    sp.fact("I had pasta for dinner", dt(2024, 9, 7), kind=Kind.EPISODE)
    report = Consolidator(store, config=ONLY).run()
    [ch] = consolidations(report)
    assert set(ch.episodes) == set(eps)
    [fact] = [m for m in store.list(kind=Kind.FACT)]
    assert fact.trust is Trust.IMPORTED  # the lowest of its sources
    assert grounded_in(fact.text, [store.get(e).text for e in eps]).ok
    assert "Brooklyn Boulders" in fact.text
    assert {s.message_id for s in fact.sources} == {s.message_id for e in eps for s in store.get(e).sources}
    for e in eps:  # episodes stay, pointing at the fact
        ep = store.get(e)
        assert ep.status is Status.ACTIVE
        assert any(l.src_id == e and l.dst_id == fact.id and l.type is LinkType.EVOLVE_TO for l in ep.links)
    assert [e.update_type for e in store.audit(run_id=report.run_id) if e.action == "add"] == [UpdateType.CONSOLIDATE]
    # consolidated episodes are not consolidated again
    assert consolidations(Consolidator(store, config=ONLY).run()) == []


def test_one_episode_said_in_two_messages_is_repeated(store):
    sp = Speaker(store)
    first = sp.fact("I play the cello in the Riverside Orchestra", dt(2024, 3, 2), kind=Kind.EPISODE)
    again = sp.fact("I play the cello in the Riverside Orchestra!", dt(2024, 5, 2), kind=Kind.EPISODE)
    assert again == first and len(store.get(first).sources) == 2  # the hot path merged the twin
    [ch] = consolidations(Consolidator(store, config=ONLY).run())
    assert ch.episodes == (first,)
    [fact] = store.list(kind=Kind.FACT)
    assert len(fact.sources) == 2


def test_a_single_message_or_an_existing_fact_is_not_consolidated(store):
    sp = Speaker(store)
    sp.fact("I play the cello in the Riverside Orchestra", dt(2024, 3, 2), kind=Kind.EPISODE)
    assert consolidations(Consolidator(store, config=ONLY).run(dry_run=True)) == []
    sp.fact("I play the cello in the Riverside Orchestra every week", dt(2024, 5, 2), kind=Kind.EPISODE)
    sp.fact("I play the cello in the Riverside Orchestra", dt(2024, 5, 2), kind=Kind.FACT)
    report = Consolidator(store, config=ONLY).run(dry_run=True)
    assert consolidations(report) == []
    assert any(c.kind == "consolidate" and "already stated" in c.reason for c in report.candidates)


def test_relative_dates_are_grounded_per_message(store):
    sp = Speaker(store)
    sp.fact("I went to the dentist yesterday", dt(2024, 3, 2), kind=Kind.EPISODE)
    sp.fact("I went to the dentist yesterday", dt(2024, 6, 8), kind=Kind.EPISODE, created=dt(2024, 6, 8))
    # two different days: not one repeated fact
    assert consolidations(Consolidator(store, config=ONLY).run(dry_run=True)) == []


class RewritingModel:
    """FAKE chat model: answers the rewrite question with a fixed sentence."""

    def __init__(self, fact):
        self.fact = fact

    def complete_json(self, messages, schema, *, max_tokens=256):
        key = next(iter(schema["properties"]))
        return {"fact": self.fact} if key == "fact" else {key: []}


def _two_episodes(sp):
    sp.fact("I go rock climbing at Brooklyn Boulders every Saturday", dt(2024, 3, 2), kind=Kind.EPISODE)
    sp.fact("Every Saturday I go rock climbing at Brooklyn Boulders", dt(2024, 9, 7), kind=Kind.EPISODE)


def test_an_invented_rewrite_is_rejected(store):
    sp = Speaker(store)
    _two_episodes(sp)
    model = RewritingModel("User goes rock climbing in Yosemite with Alex every Saturday.")
    report = Consolidator(store, chat_model=model, config=ConsolidationConfig(stages=("episodic",), use_llm=True)).run()
    [ch] = consolidations(report)
    assert "Yosemite" not in ch.text and "Alex" not in ch.text and "rejected" in ch.reason
    assert report.stats["episodic"]["rewrites_rejected"] == 1


def test_a_faithful_rewrite_is_used_and_embedded(store):
    sp = Speaker(store)
    _two_episodes(sp)
    model = RewritingModel("User climbs at Brooklyn Boulders every Saturday.")
    report = Consolidator(store, chat_model=model, config=ConsolidationConfig(stages=("episodic",), use_llm=True)).run()
    [ch] = consolidations(report)
    assert ch.text == "User climbs at Brooklyn Boulders every Saturday."
    [fact] = store.list(kind=Kind.FACT)
    assert fact.text == ch.text
    assert store.missing_vectors() == []  # embedded outside the write transaction
