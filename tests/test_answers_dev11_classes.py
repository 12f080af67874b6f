"""Answer classes found on the eleventh answers set (tests/data/answers_dev11.json, written by a
helper before any rule). Pure, no model."""

from __future__ import annotations

from assistant.memory.retrieval.held import names_role
from assistant.memory.retrieval.terms import focus


def test_a_role_named_after_a_title_typed_fast_answers_who_it_is():
    q = "I keep forgetting my physio's name, who is it?"
    required = focus(q)[0]
    assert required == ("physio",)
    assert names_role("my physio dr nadeau says my wrist is way better.", q, required)
    assert names_role("the physio, Rui Matos, says no climbing for 8 weeks", "Who is my physio?", ("physio",))
    assert not names_role("my physio says my wrist is way better.", q, required)  # no name after the role
    assert not names_role("my physio dr nadeau says my wrist is way better.", "What did my physio say about climbing?", ("physio",))
