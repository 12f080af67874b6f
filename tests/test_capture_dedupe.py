"""A fact stored twice is stored once (issue 24): capture keeps one memory per statement of a
message, the more specific one, by meaning keys and (with the REAL MiniLM) by cosine with equal
anchors (proper nouns, numbers, negation)."""

from __future__ import annotations

from datetime import datetime, timezone

from assistant.config import Settings
from assistant.memory.capture.capturer import Capturer
from assistant.memory.capture.dedupe import SAME_COSINE, cosine, key, one_each, same
from assistant.memory.capture.rules import Candidate
from assistant.memory.records import Kind
from assistant.memory.store.facade import MemoryStore
from consolidate_support import minilm  # noqa: F401 - the session's real MiniLM

OBS = datetime(2024, 3, 18, 10, 0, tzinfo=timezone.utc)


def _capture(store, text: str):
    sid = store.create_session("t").id
    msg = store.add_message(sid, "user", text, observed_at=OBS)
    result = Capturer(store, settings=Settings(), use_llm=False, tz=timezone.utc).capture_message(msg.id)
    return result, store.get_many(result.memory_ids)


def test_the_cat_pepper_is_stored_once_as_the_pet_slot(tmp_path, minilm):  # noqa: F811
    store = MemoryStore(tmp_path / "m.db", embed=minilm.embed, encrypted=False)
    try:
        result, kept = _capture(store, "My partner Joost is a carpenter, and we have a cat called Pepper.")
        pepper = [m for m in kept if "Pepper" in m.text]
        assert [(m.text, m.kind, m.slot) for m in pepper] == [("User has a cat named Pepper.", Kind.PROFILE, "pet")]
        # the clause's own wording was the same statement: rejected with the one kept named
        assert any("Joost have a cat called Pepper" in t and "stored once" in why for t, why in result.rejected)
        # the other clauses stay: partner=Joost, Joost is a carpenter
        assert {"User's partner is Joost.", "Joost is a carpenter."} <= {m.text for m in kept}
    finally:
        store.close()


def test_meaning_keys_read_the_household_as_the_person_and_keep_negation():
    # {user, cat, name, pepp} both: "User and Joost" is the person's household, called = named
    assert key("User has a cat named Pepper.") == key("User and Joost have a cat called Pepper.")
    assert key("User doesn't eat meat.") != key("User eats meat.")  # "not" is part of the key
    assert not same("User lives in Ghent.", "User works in Ghent.")  # live vs work: two statements


def test_cosine_merges_only_the_same_statement_with_the_same_anchors(minilm):  # noqa: F811
    def cos(a: str, b: str) -> float:
        va, vb = minilm.embed([a, b])
        return cosine(va, vb)

    # calibrated on dev: 0.942 here (a filler word), 0.890 for "a vegan runner" (a new fact)
    assert same("User is vegan.", "User is vegan btw.", cos("User is vegan.", "User is vegan btw."))
    c = cos("User is a vegan.", "User is a vegan runner.")
    assert c < SAME_COSINE and not same("User is a vegan.", "User is a vegan runner.", c)
    # however close the vectors, other places, numbers or a negation are other statements
    assert not same("User lives in Ghent.", "User lives in Antwerp.", 0.99)
    assert not same("Lily is 7.", "Lily is 8.", 0.99)
    assert not same("User eats meat.", "User never eats meat.", 0.99)


def test_the_more_specific_statement_is_kept_in_place():
    """Logic only (no model): a slot beats a plain fact; of two facts, the one with more content
    words (its key a superset) stays."""
    fact = Candidate("User and Joost have a cat called Pepper.", Kind.FACT)
    slot = Candidate("User has a cat named Pepper.", Kind.PROFILE, "pet")
    other = Candidate("Joost is a carpenter.", Kind.FACT)
    kept, dropped = one_each([fact, other, slot])
    assert kept == [other, slot] and dropped == [(fact, slot)]
    short = Candidate("User is vegan.", Kind.FACT)
    longer = Candidate("User is vegan btw.", Kind.FACT)
    kept, dropped = one_each([short, longer], embed=lambda texts: [[1.0, 0.0]] * len(texts))  # cosine 1.0
    assert kept == [longer] and dropped == [(short, longer)]
