"""A value said instead of another rewrites the earlier memories that said it (issue 28, twelfth
session: "actually it's the 9th not the 6th" had left the 6th the answer on every fresh set).
The reading and the rewrite are pure (assistant.memory.language.corrections,
assistant.memory.capture.corrected.plan_corrections); the last test runs the real capture, store
and MiniLM."""

from __future__ import annotations

import pytest

from assistant.memory.capture.corrected import plan_corrections
from assistant.memory.language.corrections import corrected, said_instead
from assistant.memory.language.statements import Act, classify
from said_support import answer, said_retriever  # noqa: I001 - tests/ is on sys.path (rootdir conftest)


@pytest.mark.parametrize("text, new, old, cue", [
    ("ugh the clinic called, actually it's the 9th not the 6th. same time", "9th", "6th", True),
    ("Leonor's birthday is the 23rd of May, not the 28th; the 28th is our cousin Duarte's", "23rd of May", "28th", False),
    ("sorry, surgery is the 12th not the 14th. misread the letter", "12th", "14th", True),
    ("the meeting is on Tuesday, not Monday", "Tuesday", "Monday", False),
    ("it's not at 3pm but at 4pm", "4pm", "3pm", False),
    ("sorry, the trip is in June, not July", "June", "July", True),
])  # fmt: skip
def test_a_value_said_instead_of_another(text, new, old, cue):
    [c] = said_instead(text)
    assert (c.new, c.old, c.cue) == (new, old, cue)


@pytest.mark.parametrize("text", ["I drink tea not coffee", "we have 2 cats not 3 dogs", "I live in Porto, not Lisbon"])
def test_no_correction_without_two_values_of_one_kind(text):
    assert said_instead(text) == []  # a taste or a place said "not" is as often a contrast: left to the tidy-up


@pytest.mark.parametrize("earlier, said, want", [
    ("booked the dentist for april 6 at 10am, dr. Omarova", "actually it's the 9th not the 6th", "april 9 at 10am"),
    ("User booked the dentist for 2026-04-06 at 10am.", "actually it's the 9th not the 6th", "2026-04-09"),  # a grounded date
    ("Leonor's birthday is the 28th of May.", "her birthday is the 23rd of May, not the 28th", "the 23rd of May"),
    # a day of the month is replaced where a date is written, never in "14 km"
    ("It's on the 14th of March in Sion, 14 km away", "surgery is the 12th not the 14th", "the 12th of March in Sion, 14 km"),
    ("User has a meeting on Monday at 3.", "the meeting is on Tuesday, not Monday", "on Tuesday at 3"),
])  # fmt: skip
def test_the_earlier_text_takes_the_new_value_in_its_own_form(earlier, said, want):
    assert want in corrected(earlier, said_instead(said)[0])


def test_a_correction_with_a_cue_is_a_statement():
    assert classify("actually its the 12th not the 10th").units[0].act is Act.STATEMENT


class _Mem:  # plan_corrections reads id, text and the source message only (a pure planner; no store here)
    def __init__(self, id_, text, message_id):
        from assistant.memory.records import Source

        self.id, self.text, self.version = id_, text, 1
        self.sources = (Source(session_id=1, message_id=message_id, speaker="user", extractor="rules", extractor_version="1"),)


def test_plan_corrections_picks_the_topic_then_the_latest_message_with_fake_records():
    earlier = [_Mem(1, "User's dentist appointment is on April 6.", 10), _Mem(2, "Filip's party is on the 6th of June.", 11),
               _Mem(3, "User: lunch with Ana on the 6th of May.", 12)]
    [(m, new, reason)] = plan_corrections("sorry, the dentist is the 9th not the 6th", earlier)
    assert m.id == 1 and "April 9" in new and reason == "corrected: 9th, not 6th"  # the topic word decides
    # no topic word shared, a cue: the latest message that said the 6th
    [(m, new, _r)] = plan_corrections("actually it's the 9th not the 6th", earlier)
    assert m.id == 3 and "9th of May" in new
    assert plan_corrections("the party is the 9th not the 6th", earlier[:1]) == []  # no cue, no shared word: nothing


SAID = [
    ("booked", "booked the dentist for april 6 at 10am, dr. Omarova, the back molar is killing me"),
    ("fixed", "ugh the clinic called, actually it's the 9th not the 6th. same time"),
]  # fmt: skip


def test_the_day_a_memory_became_true_moves_with_its_corrected_day():
    from datetime import datetime, timezone

    from assistant.memory.capture.corrected import moved_valid_at

    at = datetime(2026, 6, 12, 12, tzinfo=timezone.utc)
    assert moved_valid_at(at, "recital is on 2026-06-12, playing", "recital is on 2026-06-14, playing") == at.replace(day=14)
    assert moved_valid_at(at, "the dentist at 10am", "the dentist at 11am") is None  # no day corrected
    assert moved_valid_at(None, "on 2026-06-12", "on 2026-06-14") is None


def test_a_correction_through_the_real_capture(tmp_path, converted_embedder_path):
    with said_retriever(tmp_path / "m.db", converted_embedder_path, SAID, said_on="2026-03-18") as r:
        store = r.store
        said = [m.text for m in store.list_memories(kind=("fact", "episode"))]
        assert not any("april 6" in t or "04-06" in t for t in said), said
        edited = [m for m in store.list_memories(kind="fact") if "Omarova" in m.text]
        assert edited and edited[0].version == 2 and "2026-04-09" in edited[0].text  # the old text stays in its history
        # the correcting message is a source of what it corrected: its "Saved: ..." notice lists it
        fixed_by = [s.message_id for s in edited[0].sources]
        assert len(set(fixed_by)) == 2 and edited[0] in store.kept_from(max(fixed_by))
        assert edited[0].valid_at.date().isoformat() == "2026-03-18"  # booked that day: no corrected day to follow
        a = answer(r, "remind me what date the dentist ended up being")
        assert a is not None and ("april 9" in a.text or "04-09" in a.text), a and a.text


def test_a_corrected_day_moves_when_the_memory_became_true(tmp_path, converted_embedder_path):
    # the new-user trial: v2 said the 14th but "true since 2026-06-12"; and "is on june 12" said in
    # December is next June's recital, not last June's
    said = [("recital", "my first big recital at the dom is on june 12, playing a bach arrangement i wrote myself"),
            ("moved", "we moved into the flat on Oudegracht on june 3"),
            ("fixed", "oops, actually its the 14th not the 12th"),
            ("fixed2", "sorry, we moved in on the 5th not the 3rd")]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said, said_on="2026-12-01") as r:
        facts = r.store.list_memories(kind="fact")
        recital = [m for m in facts if "recital" in m.text]
        assert recital and "2027-06-14" in recital[0].text, [m.text for m in facts]
        moved = [m for m in facts if "Oudegracht" in m.text and "2026-06-05" in m.text]
        assert moved and moved[0].valid_at.date().isoformat() == "2026-06-05", [(m.text, m.valid_at) for m in facts]


def test_a_day_something_was_moved_to_is_ahead_and_corrects_before_a_change_ends(tmp_path, converted_embedder_path):
    # dev11: "moved our closing to june 29" said in May had been dated 2025-06-29 (the moving is
    # past, the day is not); and the hot path's change had ended "closing is june 19" before the
    # correction could rewrite it, so the 19th stayed in the answer to "when did we close"
    said = [("house", "offer accepted on the Maguire place, closing is june 19."),
            ("moved", "ugh the notary moved our closing to june 29, not the 19th anymore.")]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said, said_on="2026-05-27") as r:
        facts = r.store.list_memories(kind="fact")
        assert any("closing to 2026-06-29" in m.text for m in facts), [m.text for m in facts]
        earlier = [m for m in facts if "Maguire" in m.text]
        assert earlier and "2026-06-29" in earlier[0].text and earlier[0].invalid_at is None, [(m.text, m.invalid_at) for m in facts]


def test_a_name_said_instead_of_another_corrects_only_with_a_cue_with_fake_records():
    # the trial: "the dog is called Bisto, not Biscuit" had left "User has a greyhound called Biscuit." current
    earlier = [_Mem(1, "User has a greyhound called Biscuit.", 10), _Mem(2, "User lives in Lisbon.", 11)]
    [(m, new, reason)] = plan_corrections("Sorry, I got it wrong earlier - the dog is called Bisto, not Biscuit.", earlier)
    assert m.id == 1 and new == "User has a greyhound called Bisto." and reason == "corrected: Bisto, not Biscuit"
    assert plan_corrections("I live in Porto, not Lisbon", earlier) == []  # a contrast, no correction cue


def test_an_amount_and_a_value_with_what_it_is_for_are_corrected_with_fake_records():
    # dev15: "£1,250 a month, not £1,150" (an amount with a unit between) and "I meant 13th of march for
    # Aisha's birthday, not the 3rd" (what the value is for between) had corrected nothing
    flat = _Mem(1, "User: one bedroom, top floor, rent's £1,150 a month, moving on 23 May (2026-05-23).", 10)
    bday = _Mem(2, "User: aisha's birthday is the 3rd of march.", 11)
    [(m, new, _r)] = plan_corrections("sorry, typo yesterday: the Leith rent is £1,250 a month, not £1,150. still cheaper than Stockbridge lol", [flat, bday])
    assert m.id == 1 and new == "User: one bedroom, top floor, rent's £1,250 a month, moving on 23 May (2026-05-23)."
    [(m, new, _r)] = plan_corrections("sorry, I meant 13th of march for Aisha's birthday, not the 3rd!! nearly gave her the present early", [flat, bday])
    assert m.id == 2 and new == "User: aisha's birthday is the 13th of march."
    [c] = said_instead("sorry, I meant 13th of march for Aisha's birthday, not the 3rd!!")
    assert {"aisha", "birthday"} <= c.topic  # what stands between is the topic
    # an amount written without its comma is the same amount; another amount is not touched
    assert corrected("rent 1150 a month", said_instead("sorry, it's £1,250, not £1,150")[0]) == "rent 1250 a month"
    assert corrected("a £11,500 car", said_instead("sorry, it's £1,250, not £1,150")[0]) is None
