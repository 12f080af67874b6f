"""Which statements say a state changed without naming the old one (issue 23): tense and aspect
cues in the six capture languages. Pure functions, no model."""

from __future__ import annotations

import pytest

from assistant.memory.language.shifts import keeps_earlier, shift_kind, without_cues


@pytest.mark.parametrize("text", [
    "I drink green tea in the mornings these days.",
    "I'm working from home now.",
    "I don't eat meat any more.",
    "I got a new car, a Kia.",
    "Ahora vivo en Valencia.",
    "Ich fahre jetzt mit dem Rad zur Arbeit.",
    "Maintenant je travaille à Lyon.",
    "Agora trabalho num hospital.",
    "我现在住在北京。",
])  # fmt: skip
def test_a_present_state_said_as_a_change_is_a_now_shift(text):
    assert shift_kind(text) == "now"


@pytest.mark.parametrize("text", ["I started climbing on Tuesdays.", "Empecé a trabajar en Iberia.", "我开始学钢琴了。"])
def test_a_beginning_is_a_weaker_begin_shift(text):
    assert shift_kind(text) == "begin"


@pytest.mark.parametrize("text", [
    "I also play the violin now.",  # addition: ends nothing
    "We got another cat, a new kitten.",  # addition wins over "new"
    "I'm going to move to Berlin next year.",  # plan
    "I may switch jobs soon.",  # plan ("may", the verb)
    "Back in 2019 I lived in Lagos.",  # explicitly past
    "Früher habe ich in Köln gewohnt.",
    "Je vais déménager bientôt.",
    "我打算明年搬家。",
])  # fmt: skip
def test_additions_plans_and_past_states_end_nothing(text):
    assert keeps_earlier(text)
    assert shift_kind(text) is None


@pytest.mark.parametrize("text", ["I live in Ghent.", "My partner is Joost.", "New York is big."])
def test_plain_statements_and_a_capitalised_place_name_are_not_shifts(text):
    # "New" as part of a name is not the adjective "new" (the cue is case-sensitive)
    assert shift_kind(text) is None


def test_without_cues_keeps_what_the_state_is_about():
    assert without_cues("I drink green tea in the mornings these days.") == "I drink green tea in the mornings."


@pytest.mark.parametrize("text", ["I've started having a glass of red with dinner now and then.",
                                  "I've taken up running on top of the swimming."])  # fmt: skip
def test_an_occasional_habit_or_an_addition_is_not_a_change(text):
    # "now and then" tells frequency, not a change; "on top of" adds
    assert shift_kind(text) != "now"
    assert shift_kind(text) is None or "now and then" in text


def test_language_identification_moved_below_consolidation_still_answers_the_same():
    from assistant.memory.language.langid import detect
    from assistant.memory.retrieval.language import detect as retrieval_detect

    assert retrieval_detect is detect
    assert [detect(t) for t in ("Ya no vivo en Barcelona.", "Ich bin Lehrerin.", "我现在在家办公了。", "I live in Ghent.")] == [
        "es", "de", "zh", "en"]  # fmt: skip
