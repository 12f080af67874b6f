"""Answer classes found on the thirteenth answers set (tests/data/answers_dev13.json, written by a
helper before any rule): what was true before a change, a headline sentence whose details follow,
the person's own count."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from assistant.memory.retrieval.earlier import asks_earlier, pick
from assistant.memory.retrieval.held import asked_part
from assistant.memory.retrieval.questions import computes


def _hit(text: str, day: int, ended: bool = False) -> SimpleNamespace:
    return SimpleNamespace(memory=SimpleNamespace(text=text, invalid_at=datetime(2026, 6, 1, tzinfo=timezone.utc) if ended else None),
                           day=datetime(2026, 3, day, tzinfo=timezone.utc))  # fmt: skip


def _said(h: SimpleNamespace) -> datetime:
    return h.day


def test_the_earlier_state_is_asked_in_ordinary_words():
    for q in ("What day were my charango lessons before they changed?", "What was the original date of my crown appointment?",
              "wat colour was the old hilux", "Who was my boyfriend at the start of the year?", "Where did I live previously?",
              "What date did I first give for the marathon?"):  # fmt: skip
        assert asks_earlier(q), q
    for q in ("What colour is my car?", "When is my crown appointment?", "Who is my oldest friend?", "How old is my dad?",
              "Where did I meet an old friend last week?"):  # fmt: skip
        assert not asks_earlier(q), q


def test_pick_without_a_model_takes_what_was_said_before_the_change_when_the_earlier_state_is_asked():
    # ranks as choose() gives them: the change words the question best (0.98), the booking 0.81
    moved = _hit("Dr. Paredes' office just called, they moved my crown appointment to March 19.", day=20)
    booked = _hit("Booked the dentist, Dr. Paredes, for March 12 at 10:30.", day=2)
    other = _hit("User: Finally getting that crown done.", day=2)
    ranked = [(0.98, moved), (0.81, booked), (0.65, other)]
    assert pick("When is my crown appointment?", ranked, _said) is moved  # the current state: the best
    assert pick("What was the original date of my crown appointment?", ranked, _said) is booked
    # 0.98 - 0.81 = 0.17 <= EARLIER_WINDOW (0.3); a memory 0.5 below the best is another topic
    assert pick("What was the original date of my crown appointment?", [(0.98, moved), (0.48, booked)], _said) is moved
    # nothing said before the change: the best stays
    assert pick("What was the original date?", [(0.98, moved), (0.9, _hit("Crown fitted, March 25.", day=25))], _said) is moved


def test_pick_without_a_model_prefers_an_ended_memory_for_the_earlier_state():
    now = _hit("User's rotation is 7 nights on, 7 off.", day=20)
    old = _hit("User's rotation is 8 nights up on the mountain, then 6 days off.", day=2, ended=True)
    assert pick("How many nights was my old rotation?", [(0.9, now), (0.8, old)], _said) is old
    assert pick("How many nights is my rotation?", [(0.9, now), (0.8, old)], _said) is now
    assert pick("anything", [], _said) is None


def test_a_headline_sentence_keeps_the_details_that_follow_it():
    # "Started charango lessons!" words the question; its day and time are in the next sentence
    text = "Started charango lessons! My teacher is an old guy everyone calls Don Aurelio, Tuesdays at 6pm on my off weeks."
    assert "Tuesdays at 6pm" in asked_part(text, "What day were my charango lessons before they changed?")
    # a value in a sentence about something else stays out when no short headline leads to it
    text = "I sold the Fabia, the green one, last month to a neighbour. For Wroclaw I bought a cargo bike, an Urban Arrow."
    assert "green" not in asked_part(text, "what colour is the urban arrow")


def test_the_persons_own_count_is_no_unit_conversion():
    assert not computes("How many nights in a row did I work on my old rotation?")
    assert computes("How many grams are in a kilo?")
    assert computes("How many ounces in a pound?")


def test_the_original_date_is_answered_from_the_booking_not_the_change(tmp_path, converted_embedder_path):
    from said_support import answer, said_retriever  # tests/ is on sys.path (rootdir conftest)

    said = [("book", "Booked the dentist, Dr. Paredes, for March 12 at 10:30. Finally getting that crown done.", "2026-02-20"),
            ("move", "Dr. Paredes' office just called, they moved my crown appointment to March 19. Same time though.", "2026-03-05")]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        a = answer(r, "What was the original date of my crown appointment?")
        assert a is not None and "March 12" in a.text, a
        a = answer(r, "When is my crown appointment now?")
        assert a is not None and "March 19" in a.text, a


def test_a_birthday_asked_with_what_asks_a_day_and_needs_a_birthday_said():
    from assistant.memory.retrieval.held import holds
    from assistant.memory.retrieval.questions import answer_type

    assert answer_type("What's Fernanda's birthday?") == "when"
    assert answer_type("What is my sister's birthday again?") == "when"
    assert answer_type("What did I get Lucía for her birthday?") is None  # a thing, not a day
    q = "When is my mom's birthday?"
    assert not holds("when", "Mom's surgery got pushed to November 12 because the surgeon is sick.", q)  # a day, not her birthday
    assert holds("when", "Mom's birthday is on the 3rd of June.", q)
    assert holds("when", "Mi papá cumple 65 el 2 de abril.", "When is my dad's birthday?")
    assert holds("when", "My mum was born on 4 May 1961.", q)
    assert not holds("when", "Matías and Fernanda had the baby!! A girl, Emilia Rose, born July 8.", "What's Fernanda's birthday?")  # the baby's


def test_a_surname_is_not_the_rest_of_the_name_asked():
    from assistant.memory.retrieval.held import holds

    q = "What's Don Aurelio's last name?"
    assert not holds("surname", "User's teacher is an old guy everyone calls Don Aurelio.", q)
    assert holds("surname", "My charango teacher is Don Aurelio Quispe.", q)
    assert holds("surname", "Dinner with Claudine Martin tonight.", "What's Claudine's last name?")


def test_a_why_question_is_answered_with_the_whole_message_that_holds_the_reason(tmp_path, converted_embedder_path):
    # "Diego and User broke up last weekend." is the clause; the reason is in the rest of the message
    from said_support import answer, said_retriever  # tests/ is on sys.path (rootdir conftest)

    said = ["Diego and I broke up last weekend. It was mutual, the distance just got too hard. I'm ok-ish.",
            "My sister Aiko lives in Osaka."]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        a = answer(r, "why did diego and I break up again?")
        assert a is not None and "distance" in a.text, a
