"""Which statements are plain-word changes (issue 23): a change cue and no cue of an addition,
a plan or the past. Pure text rules, no model."""

import pytest

from assistant.memory.consolidation.plans.shifts import is_shift, keeps_earlier


@pytest.mark.parametrize("text", [
    "I cycle to the office these days.",
    "I'm a pharmacist now.",
    "We split up.",
    "Ya no como carne.",
    "Ich arbeite jetzt bei der Post.",
    "Désormais j'habite à Lyon.",
    "Agora eu tenho um gato.",
    "我现在喝茶。",
])
def test_change_cues_make_a_shift(text):
    assert is_shift(text)
    assert not keeps_earlier(text)


@pytest.mark.parametrize("text", [
    "I now also have a rabbit.",            # addition
    "I have a new hobby as well: chess.",   # addition
    "I'm going to move to Rome now and then.",  # plan
    "I used to smoke back then, now and again.",  # past
    "Früher hatte ich einen neuen Golf.",        # past
    "I live in Rome.",                           # no cue: a present state says nothing changed
])
def test_additions_plans_past_and_plain_states_are_not_shifts(text):
    assert not is_shift(text)
