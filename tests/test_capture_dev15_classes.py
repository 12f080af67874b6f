"""Capture and time classes found on the fifteenth answers set (tests/data/answers_dev15.json,
written by a helper before any rule): an emoji typed in place of a full stop, a value raised to a
number, the days a booking is moved from and to. Pure rules, no model."""

from __future__ import annotations

from datetime import datetime, timezone

from assistant.memory.language.dates import ground
from assistant.memory.language.rules import extract
from assistant.memory.language.shifts import shift_kind, without_cues
from assistant.memory.language.statements import classify


def at(day: str) -> datetime:
    return datetime.fromisoformat(day + "T12:00:00+00:00")


def facts(text: str, day: str = "2026-05-03") -> list[str]:
    return [c.text for c in extract(" ".join(u.text for u in classify(text).statements), at(day))]


def test_an_emoji_ends_the_sentence_a_date_takes_its_tense_from():
    # said 2026-03-20: "GOT IT" is past, but "I start on 1 June" is its own sentence: 73 days ahead, not 292 back
    g = ground("GOT IT 🎉🎉 I start on 1 June as piano technician at the uni's Reid School of Music.", at("2026-03-20"))
    assert [s.period_start.isoformat() for s in g.spans] == ["2026-06-01"]
    # "passed my probation" is past; "salary goes up ... from November" said in October tells no tense: the coming one
    g = ground("passed my probation 🥳 salary goes up to £40,000 from November", at("2026-10-18"))
    assert [s.period_start.isoformat() for s in g.spans] == ["2026-11-01"]  # had been November 2025
    # a past sentence keeps the most recent month; "since" is always behind
    assert ground("we went to Lisbon in November", at("2026-10-18")).spans[0].period_start.isoformat() == "2025-11-01"
    assert ground("I've been vegetarian since November", at("2026-10-18")).spans[0].period_start.isoformat() == "2025-11-01"


def test_the_day_a_booking_is_moved_from_is_the_planned_one():
    # said Friday 2026-02-06 about a booking on the 12th: the 12th of February (6 days ahead), not of January
    g = ground("ugh the dentist rang, they've moved my appointment from the 12th to thursday 26 february, same time", at("2026-02-06"))
    assert g.text == "ugh the dentist rang, they've moved my appointment from 2026-02-12 to thursday 2026-02-26, same time"
    assert ground("we moved here from Leeds on the 12th", at("2026-05-16")).text == "we moved here from Leeds on 2026-05-12"


def test_a_past_verb_after_an_emoji_is_its_own_clause_and_it_is_the_thing_before():
    got = facts("the Bechstein won't fit up the stairs in Leith 😭 sold it to a church in Otley for £1,800. at least I can visit it")
    assert "User sold the Bechstein to a church in Otley for £1,800." in got, got  # had been nothing: "sold it" had no thing


def test_a_value_raised_or_lowered_to_a_number_is_a_change():
    assert shift_kind("GP upped my levothyroxine to 100 micrograms, blood test again in 8 weeks") == "now"
    assert shift_kind("rent on my little terraced house just went up to £895 a month") == "now"
    assert shift_kind("I cut my hair short") is None and shift_kind("we dropped him to school") is None
    # the cue is the verb: what changed stays for comparing ("levothyroxine", the number)
    assert "levothyroxine to 100" in without_cues("GP upped my levothyroxine to 100 micrograms")


def test_an_age_said_alone_is_of_the_one_the_message_opens_with():
    from assistant.memory.language.clauses import clauses

    said = "Pepper died this morning 💔 kidney failure, the vet said there was nothing more to do. 12 years old. the flat is so quiet"
    assert [c.resolved for c in clauses(said)][1] == "Pepper is 12 years old"  # had been the person's: "User: 12 years old."
    # a message that opens with the person keeps it theirs
    assert [c.resolved for c in clauses("still eating leftover cake from my birthday on boxing day lol. 34 now.")][1] == "34 now"
    assert [c.resolved for c in clauses("I turned 40 yesterday. 40 years old!")][1] == "40 years old"


def test_a_new_job_said_by_its_start_fills_title_and_employer():
    got = [(c.slot, c.text) for c in extract("I start on 1 June as piano technician at the uni's Reid School of Music.", at("2026-03-20"))]
    assert ("job_title", "User works as piano technician.") in got and ("employer", "User works at Reid School of Music.") in got, got


def test_a_weekday_with_a_plural_part_of_day_is_a_habit_not_a_date():
    # the trial: "visit mam on Sunday afternoons" had become "on Sunday (2026-12-13) afternoons"
    monday = at("2026-12-07")
    assert ground("I visit mam on Sunday afternoons", monday).spans == ()
    assert ground("Noor talked me into sea swimming at Portobello on Sunday mornings.", monday).spans == ()
    assert ground("see you on Sunday", monday).text == "see you on 2026-12-13"  # one Sunday: dated


def test_a_change_of_the_persons_own_said_in_chinese_without_i_is_theirs():
    from assistant.memory.language.gloss import gloss
    from assistant.memory.language.statements import Act

    said = "中文课从星期四改到星期三了，时间不变，还是晚上七点。"  # "(my) Chinese class moved from Thursday to Wednesday"
    assert "moved to Wednesday" in gloss(said)  # 改到 had stayed untranslated
    assert [u.act for u in classify(said).units] == [Act.STATEMENT]  # had been "not about the person": the message was lost
    assert [u.act for u in classify("明天北京会下雨。").units] != [Act.STATEMENT]  # the weather: no one's
