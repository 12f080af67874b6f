"""Capture classes found by the fourteenth session's new-user trial (a hospital porter in Galway who
keeps bees; chat --once and memory list). Pure rules, no model."""

from __future__ import annotations

from datetime import datetime, timezone

from assistant.memory.language.dates import ground
from assistant.memory.language.rules import extract
from assistant.memory.language.statements import Act, classify

OBS = datetime(2026, 12, 7, 12, tzinfo=timezone.utc)


def facts(text: str) -> list[str]:
    return [c.text for c in extract(" ".join(u.text for u in classify(text).statements), OBS)]


def test_an_abbreviation_opens_a_name():
    got = facts("I'm Orla. I work as a porter at St. Brigid's hospital in Galway, and I keep bees.")
    assert "User works at St. Brigid's." in got  # had been "User works at St."
    assert "User lives in St. Andrews." in facts("I live in St. Andrews now.")


def test_a_weekday_before_its_date_is_one_day():
    # said on Monday 2026-12-07: "Tuesday 14 May" had become "Tuesday (2026-12-08) 14 May (2027-05-14)", two clashing days
    g = ground("I have an appointment on Tuesday 14 May at 10am.", OBS)
    assert [s.period_start.isoformat() for s in g.spans] == ["2027-05-14"]
    assert [s.period_start.isoformat() for s in ground("See you on Friday and on 9 December", OBS).spans] == ["2026-12-11", "2026-12-09"]


def test_a_day_moved_to_is_ahead_also_after_its_weekday():
    got = facts("The dentist's office rang this morning, they've moved me to Thursday 16 May instead, same time.")
    assert any("(2027-05-16)" in f for f in got), got  # had been 2026-05-16, a day already gone


def test_saying_what_one_does_not_remember_asks_and_tells_nothing():
    for said in ("I keep forgetting my sister's husband's name", "my mind went blank about which day the dentist moved me to"):
        assert [u.act for u in classify(said).units] == [Act.QUESTION], said
        assert facts(said) == []  # had been saved as "User keeps forgetting User's sister's husband's name."
    assert facts("I forgot to buy milk again.")  # an errand is still said


def test_he_after_a_name_given_to_someones_relation_is_that_one():
    got = facts("My sister Niamh teaches in Sligo. Her husband is Fergal, he fixes boats for a living.")
    assert "Fergal fixes boats for a living." in got  # "he" had been left unresolved and the clause lost
    assert "Niamh teaches in Sligo." in got


def test_a_news_headline_is_no_fact():
    got = facts("Big news, we've moved house! We're in a bungalow in Oranmore now.")
    assert not any("news" in f.casefold() for f in got), got  # had been "User: Big news."
    assert any("Oranmore" in f for f in got)
