"""Answer classes found on the sixteenth answers set (tests/data/answers_dev16.json, written by a
helper before any rule): never-said questions answered with a value of another kind -- an amount
for an age, an ordinal for a cost, a booking for what happened, an amount for an identifier. Pure
functions, no model."""

from __future__ import annotations

from assistant.memory.retrieval.earlier import plan_for_outcome
from assistant.memory.retrieval.held import holds
from assistant.memory.retrieval.questions import answer_type


def test_a_decimal_is_no_age():
    # "How old is my boss Fiona?" had been answered by "Fiona bumped my salary to £40,000 from the 38.5"
    q = "How old is my boss Fiona?"
    assert not holds("number", "passed probation!! Fiona bumped my salary to £40,000 from the 38.5 🎉", q)
    assert holds("number", "Fiona is 45 and runs the hatchery.", q)


def test_an_ordinal_is_no_amount():
    # "How much did the Iceland trip cost?" had been answered by "... on our 2nd night near Þingvellir"
    q = "How much did the Iceland trip cost in total?"
    assert not holds("number", "back from iceland 😍 saw the northern lights on our 2nd night near Þingvellir", q)
    assert holds("number", "the Iceland trip cost £2,140 all in", q)


def test_a_booking_is_no_outcome():
    q = "What did the dentist end up doing to my cracked molar?"
    assert plan_for_outcome(q, "dentist booked for 12/03 at 9.40, Dr Baird at Oban Dental. cracked a molar on a toffee")
    assert not plan_for_outcome(q, "dentist put a crown on the cracked molar, £420 ouch")
    assert not plan_for_outcome("When is my dentist appointment?", "dentist booked for 12/03 at 9.40")  # not asked how it ended


def test_an_identifier_is_letters_and_digits_not_an_amount():
    assert answer_type("What was our flight number to Reykjavík?") == "code"
    assert answer_type("What's the registration number of my Subaru?") == "code"
    assert answer_type("How many flights did I take?") == "number"
    q = "What's the registration number of my Subaru?"
    assert not holds("code", "actually it's £9,400 for the subaru, not 9,800", q)  # had been the answer: an amount
    assert not holds("code", "bought a 2017 Subaru Forester, 61k miles, need a 4x4", q)  # a year, a mileage, a 4x4
    assert holds("code", "the Subaru's reg is SV17 KXR", q) and holds("code", "flight FR1234 leaves at 6am", q)


def test_a_booking_still_answers_the_day_it_ended_up_on():
    assert not plan_for_outcome("remind me what date the dentist ended up being", "dentist rang, my appointment moved to the 17th")
