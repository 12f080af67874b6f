"""Capture classes found on the tenth answers set (tests/data/answers_dev10.json, written by a
helper before any rule): naming what was just introduced when typed casually, whom "he's"
leaves as subject, and no "him" read as a plural relation. Pure rules, no model."""

from __future__ import annotations

from datetime import datetime, timezone

from assistant.memory.language.referents import may_be, resolve_third
from assistant.memory.language.rules import extract
from assistant.memory.language.statements import classify
from assistant.memory.language.validate import validate

OBS = datetime(2026, 8, 27, 12, 0, tzinfo=timezone.utc)


def facts(text: str) -> list[str]:
    return [c.text for c in extract(" ".join(u.text for u in classify(text).statements), OBS)]


def test_a_name_given_in_lower_case_after_an_emoji_names_what_was_introduced():
    got = facts("adopted a dog!!! 🐶 her name is bolacha (means cookie), shes a 3 yr old podengo mix from the shelter in gaia.")
    assert "User has a dog named Bolacha." in got  # was "User: 🐶 her name is bolacha" (no dog, no name)
    assert any(f.startswith("User: Bolacha is a 3 yr old podengo") for f in got)  # "shes" is the dog just named


def test_her_name_is_followed_by_an_ordinary_word_names_nothing():
    got = facts("got a kitten, her name is the best part")
    assert not any("named The" in f or "called The" in f for f in got)


def test_someone_met_then_named_is_the_one_the_next_clauses_speak_of():
    got = facts("met someone at a fado night at this tiny place called tasca do cais. his name is caio, hes brazilian and plays cello in the orquestra.")
    assert "User met someone called Caio." in got
    assert any("Caio plays cello" in f for f in got)  # not "User: plays cello" (the person does not)
    assert not any(f.startswith("Tasca") for f in got)  # the place is no "he"


def test_hes_before_an_adjective_is_is_before_a_participle_has():
    # "he's brazilian and plays" -> "Caio is brazilian" (so "plays" goes on with Caio);
    # "He's bought himself" keeps 's (has); "she's 6" keeps 's (an age, "Tilly's 6 and obsessed")
    assert resolve_third("he's brazilian", "Caio") == "Caio is brazilian"
    assert resolve_third("He's bought himself a bike", "Dad") == "Dad's bought himself a bike"
    assert resolve_third("she's 6", "Tilly") == "Tilly's 6"
    assert resolve_third("he's already put me on the project", "Henrique") == "Henrique's already put me on the project"
    assert resolve_third("he's already asking for a bike", "Jonas") == "Jonas is already asking for a bike"


def test_a_plural_relation_is_never_him():
    from assistant.memory.language.referents import MALE

    assert not may_be("my parents", MALE, "we buried him in my parents garden")
    got = facts("16 years with him. we buried him under the lilac in my parents garden in markkleeberg")
    assert not any("buried User's parents" in f for f in got)  # was "User's household buried User's parents ..."


def test_a_shared_clause_after_an_age_goes_on_with_the_name():
    got = facts("WE ADOPTED A GREYHOUND 😭💕 retired racer, her name is Zefir, shes 4, came from the greyhound rescue in Toruń, "
                "kacper drove 2.5h each way to get her. she is scared of stairs")  # "Zefir's 4 | came": Zefir came
    assert any("Zefir came from the greyhound rescue" in f for f in got)  # was "User's household came from ..."
    assert any("Zefir is scared of stairs" in f for f in got)


def test_an_it_after_the_clause_that_names_the_thing_is_kept():
    msg = "got a secondhand Cube e-bike instead, its bright green and ridiculous and I love it"
    assert validate("User got a secondhand Cube e-bike instead, its bright green and ridiculous.", msg) is None
    assert validate("User loves it.", msg) == "pronoun left: it"  # nothing in the fact says what "it" is
    assert validate("User: it's officially done now, its great.", "it's officially done now, its great") is not None


def test_a_lower_case_word_no_lexicon_knows_before_a_past_verb_is_a_name():
    from assistant.memory.language.casual import written

    assert written("jonas picked me up after") == "Jonas picked me up after"
    assert written("fennas wedding was perfect. caio came and charmed my mum") == "fennas wedding was perfect. Caio came and charmed my mum"
    assert written("walked home and cooked dinner") == "walked home and cooked dinner"  # verbs the lexicon knows


def test_he_after_a_name_that_did_something_is_that_name_not_the_role_before():
    # "he" had been read as "my boss" (Gerlinde, the sentence before): "User's boss is still on night shifts"
    got = facts("gerlinde (my boss, head of the wig dept) says i knot too tight. jonas picked me up after, hes still on night shifts at the bakery.")
    assert any("Jonas is still on night shifts at the bakery" in f for f in got), got
    assert not any("boss is still on night shifts" in f for f in got)


def test_a_new_job_said_by_its_first_days_is_the_employer():
    assert "User works at Ribeira." in facts("first day at ribeira ✂️ im doing the wigs for the lead actress")
    assert "User works at Kastrup." in facts("I've just finished my first full week at Kastrup and I love it")
    assert not any("works at" in f for f in facts("Tobi's first day at Elbschule went fine"))  # his, not the person's
    assert not any("works at" in f for f in facts("first day at the gym today, ouch"))  # no name: no employer


def test_a_question_with_a_fast_typed_question_word_is_no_statement():
    from assistant.memory.language.statements import Act

    # the new-user trial's "wat does my sistr do for work" had been saved as a memory
    for text in ("wat does my sistr do for work", "wher do i live now", "hw old is mila"):
        assert [u.act for u in classify(text).units] == [Act.QUESTION], text
    assert [u.act for u in classify("were going to porto in may").units] == [Act.STATEMENT]  # an English word stays


def test_got_the_job_at_names_the_employer():
    # the new-user trial's "got the job at the dom tower in utrecht" had been no employer
    assert "User works at the Dom Tower." in facts("I got the job at the Dom Tower in Utrecht!!")
    assert "User works at Kastrup." in facts("I got the job at Kastrup")


def test_a_time_after_what_was_introduced_is_not_part_of_it():
    # a check in new words: "User's cat the week of 2026-11-30 is called Mispel." (and no pet slot)
    assert "User has a cat named Mispel." in facts("adopted a cat last week!! 🐱 her name is mispel")
    assert "User has a puppy named Bruno." in facts("got a puppy yesterday. his name is Bruno")
