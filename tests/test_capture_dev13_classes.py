"""Capture classes found on the thirteenth answers set (tests/data/answers_dev13.json, written by a
helper before any rule). Pure rules, no model."""

from __future__ import annotations

from datetime import datetime, timezone

from assistant.memory.language.rules import extract
from assistant.memory.language.statements import classify

OBS = datetime(2026, 7, 20, 12, tzinfo=timezone.utc)


def facts(text: str) -> list[str]:
    return [c.text for c in extract(" ".join(u.text for u in classify(text).statements), OBS)]


def test_a_new_job_said_with_its_title_before_job_gives_title_and_employer():
    got = facts("BIG news: I got the night operations lead job at the Llullaillaco Array! Start date is September 1.")
    assert "User works as night operations lead." in got
    assert "User works at the Llullaillaco Array." in got
    got = facts("I landed a new sous-chef job at Tasca do Cais.")
    assert "User works as sous-chef." in got and "User works at Tasca do Cais." in got
    assert not any(f.startswith("User works as new") for f in facts("I got a new job at Shell."))  # no title said


def test_a_partner_said_by_what_the_two_are_is_the_partner_and_the_one_he_stands_for():
    got = facts("Diego and I have been together almost three years now. He's a sound engineer in Santiago so we do the long-distance thing.")
    assert "User's partner is Diego." in got
    assert "Diego is a sound engineer in Santiago." in got  # "He's" had been left a pronoun and rejected
    assert "User's partner is Camille." in facts("Camille and I are officially a couple!")
    assert not any("partner" in f for f in facts("Jonas and I talked half the night."))  # together is no couple
    assert not any("partner" in f for f in facts("Today and I are together."))  # a word, no one's name


def test_a_couple_said_of_the_two_is_a_partner_claim_and_their_break_up_ends_it():
    from assistant.memory.language.claims import claims

    (c,) = claims("Diego and I have been together almost three years now.")
    assert (c.relation, c.value, c.ended) == ("partner", frozenset({"diego"}), False)
    (c,) = claims("Diego and User broke up last weekend.")  # as the third-person rewrite stores it
    assert (c.relation, c.value, c.ended) == ("partner", frozenset({"diego"}), True)
    assert not [c for c in claims("Jonas and I talked half the night.") if c.relation == "partner"]


def test_a_move_said_without_its_subject_and_a_rented_flat_on_a_street_are_the_persons():
    got = facts("Moving to San Pedro de Atacama on August 22 for the new job.")
    assert got and got[0].startswith("User is moving to San Pedro de Atacama"), got  # had been quoted: "User: Moving to ..."
    got = facts("I rent a flat on Avenida Grecia in Antofagasta, 9th floor, and you can see the whole port from the balcony.")
    assert "User lives in Antofagasta." in got
    assert not any(f.startswith("User lives in") for f in facts("We rented a cottage on Achill Island in Mayo for the summer."))


def test_it_after_a_thing_of_ones_own_or_a_definite_thing_is_that_thing():
    # a new-user trial: the start date of "a big job" and its postponement had both been lost
    got = facts("got a big job coming up: restoring the organ at Oliwa Cathedral, it starts next Tuesday")
    assert any(f.startswith("User's big job starts next Tuesday") for f in got), got
    got = facts("the Oliwa job got pushed back, it now starts next Thursday instead")
    assert any("the Oliwa job now starts next Thursday" in f for f in got), got  # had stored nothing
    assert facts("the house is chaos, it needs work") == []  # a comment, no date: still nothing
    got = facts("My favourite dish is my grandmother's arroz al horno, and I still make it most Sundays.")
    assert "User still makes User's favourite dish most Sundays." in got
    assert not any("the been aching" in f for f in facts("my wrist has been aching and the doctor called it tendinitis"))
