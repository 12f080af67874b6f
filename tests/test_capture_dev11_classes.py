"""Capture classes found on the eleventh answers set (tests/data/answers_dev11.json, written by a
helper before any rule: facts said in passing inside requests to the assistant). Pure rules, no
model."""

from __future__ import annotations

from assistant.memory.language.statements import classify


def told(text: str) -> str:
    return " ".join(classify(text).told)


def test_a_request_that_names_ones_own_person_stays_in_what_was_told():
    text = ("can you help me write a short polite email to my landlord Mr Tremblay? the radiator in the bedroom "
            "of my apartment on rue Fraser in Lévis is banging all night again")
    assert "my landlord Mr Tremblay" in told(text)  # the statements alone had lost who the landlord is
    assert "my landlord" not in classify(text).statement_text  # the request itself is still no statement


def test_a_request_the_next_statement_stands_on_stays_in_what_was_told():
    # "Es la novia de mi hermano": whose girlfriend is only in the request before it
    assert told("¿Me ayudas a escribir un mensaje para Lucía? Es la novia de mi hermano Anders, es de Guadalajara.").startswith(
        "¿Me ayudas a escribir un mensaje para Lucía?")
    assert "Herrn Vogt" in told("Kannst du mir helfen, eine E-Mail an Herrn Vogt zu schreiben? Er organisiert das Festival in Travemünde.")
    assert "tendinitis" in told("What are some good stretches for wrist tendinitis? My physio says it's from the chainsaw.")


def test_a_question_nothing_stands_on_is_not_told():
    # a considered option is no fact: "Should I move to Paris for the job at Renault?" stays out
    assert told("I live in Lyon. Should I move to Paris for the job at Renault?") == "I live in Lyon."
    assert told("thanks!! I run a bakery in Ghent. Any tips for sourdough?") == "I run a bakery in Ghent."
