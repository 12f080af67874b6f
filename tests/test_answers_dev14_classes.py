"""Answer classes found on the fourteenth answers set (tests/data/answers_dev14.json, written by a
helper before any rule): the earlier state dated by an event ("before the museum"), a value of
the kind asked held by the named one's memory, a job said by clause, a past "could I"."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from assistant.memory.retrieval.earlier import anchor, pick
from assistant.memory.retrieval.held import holds, valued
from assistant.memory.retrieval.job_said import says_job_of
from assistant.memory.retrieval.questions import requests


def _hit(text: str, day: int) -> SimpleNamespace:
    return SimpleNamespace(memory=SimpleNamespace(text=text, invalid_at=None), day=datetime(2026, 3, day, tzinfo=timezone.utc))


def _said(h: SimpleNamespace) -> datetime:
    return h.day


def test_anchor_without_a_model_is_when_the_event_was_first_told():
    interview = _hit("I have an interview at the National Museum of Scotland next Wednesday.", day=2)
    got = _hit("I GOT THE MUSEUM JOB!!!! leaving Kinloch after 11 years", day=20)
    kinloch = _hit("11 years at Kinloch Taxidermy in Inverness", day=1)
    hits = [got, interview, kinloch]
    # "museum" is worded by the interview (day 2) and the job (day 20): the first telling dates it
    assert anchor("What was my job before the museum?", hits, _said) == interview.day
    # "job" names no event of its own; no memory words "Llullaillaco"; no "before" at all
    assert anchor("What was my job before the new job?", hits, _said) is None
    assert anchor("Which observatory did I work at before the Llullaillaco job?", hits, _said) is None
    assert anchor("What was my job at Kinloch?", hits, _said) is None


def test_pick_without_a_model_takes_the_best_said_before_the_event():
    van = _hit("the van failed its MOT. it's a 2011 white Citroen Berlingo", day=1)
    edinburgh = _hit("I have an interview at the National Museum of Scotland in Edinburgh next Wednesday.", day=10)
    bike = _hit("sold the Berlingo and bought a secondhand Brompton, no point having a van in Edinburgh", day=25)
    hits = [bike, edinburgh, van]
    # ranks as choose() gives them: the sale words the question best (0.82), the van's own memory 0.42;
    # 0.82 - 0.42 = 0.40 > EARLIER_WINDOW (0.3), but the event dates it: day 1 < day 10 (Edinburgh first told)
    ranked = [(0.82, bike), (0.42, van)]
    assert pick("What van did I have before I moved to Edinburgh?", ranked, _said, hits) is van
    assert pick("What van do I have?", ranked, _said, hits) is bike  # no earlier state asked: the best
    # the best was itself said before the event: it stays
    assert pick("What van did I have before I moved to Edinburgh?", [(0.82, van), (0.5, bike)], _said, hits) is van


def test_a_value_of_the_kind_asked_held_by_the_memory():
    assert valued("breed", "We adopted a retired greyhound called Pilot from the shelter in Gaia!", "What breed is Pilot?")
    assert valued("year", "Runrig are my favourite band. Saw their very last gig in Stirling in 2018.", "What year was Runrig's last concert?")
    assert not valued("breed", "Pilot sleeps about 20 hours a day.", "What breed is Pilot?")
    assert not valued("name", "User has a dog named Pilot.", "What's my dog called?")  # a name is read by its own path
    assert holds("colour", "User's tortoiseshell cat is Bramble.", "What colour was Bramble?")


def test_an_age_is_read_in_the_sentence_that_names_the_one_asked():
    text = "I adopted a dog from the shelter!! 2-year-old black mutt with one floppy ear, I named her Chispa."
    assert holds("number", text, "How old was Chispa when I adopted her?")
    # "named after" names no one asked: the rest of the sentence says nothing of Leonor's age
    text = ("My big sister Leonor (she's named after our grandmother) lives in Porto with her twin boys. Her birthday is "
            "the 23rd of May, which I have managed to forget two years running.")  # fmt: skip
    assert not holds("number", text, "How old is my sister Leonor?")
    assert not holds("number", "Camille and I are going to the Azores, 12 to 19 September.", "How old is Camille?")


def test_a_job_said_by_a_clause_about_the_one_named():
    assert says_job_of("callum", "callum's away again, he's a deckhand on the Ullapool to Stornoway ferry")
    assert not says_job_of("callum", "callum's away again, he's back on Sunday.")


def test_a_past_could_asks_memory_not_for_help():
    assert not requests("What could I see from the balcony of my old flat?")
    assert not requests("What could I do back then?")
    assert requests("What could I cook tonight?")
    assert requests("what could I get my old friend for his birthday?")


def test_a_breed_said_far_from_the_question_form_is_answered(tmp_path, converted_embedder_path):
    from said_support import answer, said_retriever  # tests/ is on sys.path (rootdir conftest)

    said = [("us", "Callum and I have been together three years now.", "2026-01-10"),
            ("dog", "We adopted a retired greyhound called Pilot from the shelter in Gaia! he's 5 and sleeps about 20 hours a day", "2026-02-20"),
            ("job", "callum's away again, he's a deckhand on the Ullapool to Stornoway ferry and does 4 days on 4 days off", "2026-03-05")]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        a = answer(r, "What breed is Pilot?")
        assert a is not None and "greyhound" in a.text, a
        a = answer(r, "What did Callum do for work?")
        assert a is not None and "deckhand" in a.text, a
        assert answer(r, "What colour is Pilot?") is None  # never said


def test_a_plan_does_not_answer_what_happened_in_the_end():
    from assistant.memory.retrieval.earlier import plan_for_outcome

    plan = "Noor's birthday is 12 August, she'll be 31, thinking of getting her a Polaroid camera"
    assert plan_for_outcome("What did I end up giving Noor for her birthday?", plan)
    assert not plan_for_outcome("What did I end up giving Noor for her birthday?", "I gave Noor a Polaroid camera for her birthday.")
    assert not plan_for_outcome("What was I thinking of getting Noor?", plan)  # the plan is what is asked


def test_the_persons_own_age_is_not_someone_elses():
    assert not holds("number", "User: my mother Pilar turns 70 years the 3 of March.", "How old am I?")
    assert holds("number", "I turned 40 last week, Tomas baked a cake.", "How old am I?")  # "40 last week" is no duration
    assert holds("number", "im wiebke, 34, a nurse", "How old am I?")
    assert not holds("number", "I ran for 40 long minutes.", "How old am I?")


def test_a_question_whose_words_one_message_all_says_is_about_what_the_person_told():
    from assistant.memory.retrieval.aliases import told_all

    hits = [_hit("started fiddle lessons!! teacher is called Rory, £25 a lesson, Sunday afternoons at his house", day=2),
            _hit("Mandarin class moved from Monday nights to Saturday mornings at 10", day=5)]  # fmt: skip
    assert told_all("How much did a fiddle lesson cost?", hits)  # fiddle, lesson ("cost" names the value asked)
    assert told_all("What time is Mandarin on Saturdays?", hits)  # mandarin, saturdays
    assert not told_all("How much does a fiddle cost?", hits)  # one word is too little
    assert not told_all("What time does the Saturday market open?", hits)  # no message words "market"


def test_a_question_about_a_change_takes_the_memory_that_ended_the_answer():
    from assistant.memory.retrieval.earlier import successor

    booked = _hit("booked the dentist for the 10th of next month at 9:40, it's Dr Okafor at Riverside Dental", day=1)
    booked.memory.invalid_at = datetime(2026, 3, 4, 12, tzinfo=timezone.utc)  # ended when the move was told
    moved = _hit("ugh Riverside Dental called, my appointment got moved to Tuesday the 17th, same time", day=4)
    other = _hit("Mandarin class moved from Monday nights to Saturday mornings", day=4)
    hits = [booked, other, moved]  # retrieval's order: the move was gated out ("not about the person's dentist")
    assert successor("What date did my dentist appointment get moved to?", booked, hits, _said) is moved  # "appointment"
    assert successor("What time was my dentist appointment?", booked, hits, _said) is None  # the past asked, no change
    assert successor("What date did my dentist appointment get moved to?", moved, hits, _said) is None  # not ended
    assert pick("What date did my dentist appointment get moved to?", [(0.9, booked)], _said, hits) is moved


def test_praise_of_what_someone_makes_is_no_job():
    from assistant.memory.retrieval.named_forms import JOB, tagged_named_forms

    assert ("What does Noor do?", JOB) in tagged_named_forms("Noor drives trams on the Edinburgh line.")
    assert ("What does Noor do?", JOB) not in tagged_named_forms("Noor makes the best shakshuka User has ever had.")
    assert ("What does Kasper do?", JOB) in tagged_named_forms("Kasper repairs bicycles.")
