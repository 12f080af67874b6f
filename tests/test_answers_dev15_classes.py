"""Answer classes found on the fifteenth answers set (tests/data/answers_dev15.json, written by a
helper before any rule): what is true now when a later memory tells the change of the thing asked."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from assistant.memory.retrieval.earlier import changed_since, pick


def _hit(text: str, day: int) -> SimpleNamespace:
    return SimpleNamespace(memory=SimpleNamespace(text=text, invalid_at=None), day=datetime(2026, 1, 1, tzinfo=timezone.utc).replace(day=day))


def _said(h: SimpleNamespace) -> datetime:
    return h.day


def test_pick_without_a_model_takes_the_later_change_of_the_thing_asked():
    dose75 = _hit("I take levothyroxine 75 micrograms every morning before coffee", day=2)
    dose100 = _hit("GP upped my levothyroxine to 100 micrograms, blood test again in 8 weeks", day=20)
    # ranks as choose() gives them: the first telling words "take" (0.71), the change 0.55: 0.71 - 0.55 = 0.16 <= LATER_WINDOW (0.3)
    ranked = [(0.71, dose75), (0.55, dose100)]
    assert pick("What dose of levothyroxine am I on?", ranked, _said) is dose100
    # the earlier state asked, or a question in the past tense: not the change
    assert pick("What was my levothyroxine dose at the start of the year?", ranked, _said) is dose75
    assert pick("What dose of levothyroxine did I take in January?", ranked, _said) is dose75
    # too far below the best: 0.71 - 0.35 = 0.36 > 0.3
    assert pick("What dose of levothyroxine am I on?", [(0.71, dose75), (0.35, dose100)], _said) is dose75


def test_a_change_of_something_else_is_no_change_of_the_thing_asked():
    flat = _hit("Our apartment is on East 10th Avenue, a two-bedroom on the top floor", day=2)
    job = _hit("I left the Fairmont Hotel in January and now I work at Butter & Rye, a small bakery on Main Street.", day=20)
    assert changed_since("What street do we live on?", flat, [(0.6, flat), (0.5, job)], 0.6, _said) is None
    # a thing worded only beside the change, after an emoji: "sorry neighbours" is no change of the neighbour
    neighbour = _hit("User's downstairs neighbour Mrs Adeyemi brought User jollof rice.", day=2)
    moved_in = _hit("Noor moved in this weekend!! the spare room is her drum kit room now 🥁 sorry neighbours", day=20)
    assert changed_since("who's the neighbour downstairs again", neighbour, [(0.6, neighbour), (0.5, moved_in)], 0.6, _said) is None
    # a name both word is who it is about, not what changed ("User's partner is Noor." / "Noor moved in")
    partner = _hit("User's partner is Noor.", day=2)
    assert changed_since("Who is Noor?", partner, [(0.6, partner), (0.55, _hit("Noor moved in now.", day=20))], 0.6, _said) is None


def test_a_breed_said_as_a_cat_kind_and_where_someone_works_by_their_job():
    from assistant.memory.retrieval.held import valued
    from assistant.memory.retrieval.job_said import asks_job_of

    # "british shorthair" had been no breed, so "What breed was Pepper?" got no answer
    assert valued("breed", "Pepper is a grey british shorthair, 12 years old.", "What breed was Pepper?")
    assert valued("breed", "our dog Bruno is a german shepherd", "What breed is Bruno?")
    assert not valued("breed", "Pepper hid under the bed for 4 hours.", "What breed was Pepper?")
    # "Where does Noor work?" is answered by her job ("Noor is a marine biologist at Deep Sea World")
    assert asks_job_of("Where does Noor work?") and asks_job_of("Remind me what Noor does.")
    assert not asks_job_of("Where does Noor live?") and not asks_job_of("Remind me what Noor does on Sundays.")


def test_a_state_or_a_date_is_no_job_and_an_age_is_no_year():
    from assistant.memory.retrieval.held import holds
    from assistant.memory.retrieval.job_said import says_job_of

    # "What does Mira do for a living?" had been answered by "Mira is coming too"; Aisha's job by her birthday
    assert not says_job_of("mira", "Daniel's sister Mira is coming too.")
    assert not says_job_of("aisha", "aisha's birthday is the 13th of march any ideas?")
    assert says_job_of("beatriz", "Beatriz, the wife of Rafael, is architect.")  # a gloss of a Romance job stays one
    assert says_job_of("madina", "Madina (best friend, pharmacist, still in Astana) is coming down in two weeks")
    assert not says_job_of("tom", "Tom (my older brother) is visiting")
    # "How old is Noor?" had been answered by "Noor's moving in with me in January (January 2027)": a year is no age
    assert not holds("number", "User: Noor's moving in with me in January (January 2027).", "How old is Noor?")
    assert holds("number", "Noor turned 31 last week.", "How old is Noor?")


def test_a_named_ones_role_that_is_the_one_asked_is_no_other_person():
    from assistant.memory.retrieval.held import only_owner

    # "Biscuit's first vet checkup ... at Leith Walk Vets" answers "Which vet does Biscuit go to?": the vet is asked
    assert not only_owner("Biscuit", "Biscuit's first vet checkup is on 22 september at Leith Walk Vets", "Which vet does Biscuit go to?")
    # "Camille's little boy Noé turned 6" is still about Noé for "How old is Camille?"
    assert only_owner("Camille", "Camille's little boy Noé turned 6 on Thursday.", "How old is Camille?")
