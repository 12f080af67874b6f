"""Date grounding (assistant.memory.language.dates): relative dates against the observation date only."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.memory.language.dates import find_spans, ground, nth_day

PARIS = timezone(timedelta(hours=2))
OBS = datetime(2023, 5, 22, 15, 30, tzinfo=PARIS)  # a Monday
D = date


# (text, grounded text, valid_at) -- all observed on Monday 2023-05-22
CASES = [
    ("I went to Paris last week", "I went to Paris the week of 2023-05-15", D(2023, 5, 15)),
    ("I saw Ana yesterday.", "I saw Ana on 2023-05-21.", D(2023, 5, 21)),
    ("Yesterday I saw Ana.", "On 2023-05-21 I saw Ana.", D(2023, 5, 21)),
    ("the day before yesterday", "on 2023-05-20", D(2023, 5, 20)),
    ("Today was long", "2023-05-22 was long", D(2023, 5, 22)),  # a subject takes no "on"
    ("I fly tomorrow", "I fly on 2023-05-23", D(2023, 5, 23)),
    ("see you next Friday", "see you on 2023-05-26", D(2023, 5, 26)),
    ("it broke last Friday", "it broke on 2023-05-19", D(2023, 5, 19)),
    ("this Friday works", "on 2023-05-26 works", D(2023, 5, 26)),
    ("I met Bo on Friday", "I met Bo on 2023-05-19", D(2023, 5, 19)),  # past by default
    ("I'll meet Bo on Friday", "I'll meet Bo on 2023-05-26", D(2023, 5, 26)),  # future context
    ("the parcel comes in 3 days", "the parcel comes on 2023-05-25", D(2023, 5, 25)),
    ("I quit three days ago", "I quit on 2023-05-19", D(2023, 5, 19)),
    ("3 weeks ago I quit", "the week of 2023-05-01 I quit", D(2023, 5, 1)),  # 05-01 is a Monday
    ("the exam is in 2 weeks", "the exam is the week of 2023-06-05", D(2023, 6, 5)),
    ("a week ago", "the week of 2023-05-15", D(2023, 5, 15)),
    ("next week is busy", "the week of 2023-05-29 is busy", D(2023, 5, 29)),
    ("I started a new job last month", "I started a new job in April 2023", D(2023, 4, 1)),
    ("2 months ago we moved", "in March 2023 we moved", D(2023, 3, 1)),
    ("we married last year", "we married in 2022", D(2022, 1, 1)),
    ("since yesterday it rains", "since 2023-05-21 it rains", D(2023, 5, 21)),
    ("until next Friday", "until 2023-05-26", D(2023, 5, 26)),
    ("since last month", "since April 2023", D(2023, 4, 1)),
    ("the 10th of next month", "the 10th of June 2023", D(2023, 6, 1)),  # "of" is its own preposition: no "of in June"
    # "on the 5th": the most recent 5th on/before the observation date, unless future
    ("We met on the 5th.", "We met on 2023-05-05.", D(2023, 5, 5)),
    ("I will pay on the 5th.", "I will pay on 2023-06-05.", D(2023, 6, 5)),
    # month + day without a year: the nearer one unless the sentence has a tense cue
    ("on the 5th of June", "on 2023-06-05", D(2023, 6, 5)),  # 14 days ahead vs 351 back
    ("I fly on June 5", "I fly on 2023-06-05", D(2023, 6, 5)),
    ("I will fly on June 5", "I will fly on 2023-06-05", D(2023, 6, 5)),
    ("I flew on June 5", "I flew on 2022-06-05", D(2022, 6, 5)),  # past: June 2023 has not come
    ("my exam is on May 30", "my exam is on 2023-05-30", D(2023, 5, 30)),  # 8 days ahead
    ("my exam is on November 30", "my exam is on 2023-11-30", D(2023, 11, 30)),  # what "is on" a day is planned: the next one (173 back, 192 ahead)
    # absolute dates stay as written but set valid_at
    ("I lived in Berlin in 2019", "I lived in Berlin in 2019", D(2019, 1, 1)),
    ("June 5, 2019 was great", "June 5, 2019 was great", D(2019, 6, 5)),
    # Chinese
    ("昨天我去了北京", "2023年5月21日我去了北京", D(2023, 5, 21)),
    ("前天下雨", "2023年5月20日下雨", D(2023, 5, 20)),
    ("明天开会", "2023年5月23日开会", D(2023, 5, 23)),
    ("我上周去了上海", "我2023年5月15日那周去了上海", D(2023, 5, 15)),
    ("下周出差", "2023年5月29日那周出差", D(2023, 5, 29)),
    ("上个星期很忙", "2023年5月15日那周很忙", D(2023, 5, 15)),
    ("我上周五见了她", "我2023年5月19日见了她", D(2023, 5, 19)),
    ("上个月换了工作", "2023年4月换了工作", D(2023, 4, 1)),
    ("去年搬家", "2022年搬家", D(2022, 1, 1)),
    ("前年我在杭州", "2021年我在杭州", D(2021, 1, 1)),
    ("我3天前买了车", "我2023年5月19日买了车", D(2023, 5, 19)),
    ("我三天前买了车", "我2023年5月19日买了车", D(2023, 5, 19)),
    ("两周后出发", "2023年6月5日那周出发", D(2023, 6, 5)),
    ("三个月前", "2023年2月", D(2023, 2, 1)),
    ("他6月5日来过", "他2022年6月5日来过", D(2022, 6, 5)),
    ("我们5号见过", "我们2023年5月5日见过", D(2023, 5, 5)),
    ("2019年5月5日", "2019年5月5日", D(2019, 5, 5)),
]


@pytest.mark.parametrize("text, grounded, valid_at", CASES, ids=[c[0] for c in CASES])
def test_grounding_table(text, grounded, valid_at):
    g = ground(text, OBS)
    assert g.text == grounded
    assert g.valid_at == valid_at


@pytest.mark.parametrize(
    "text",
    [
        "on the 5th floor",  # an ordinal that is not a date
        "the 5th time",
        "Friday is my favourite day",  # a bare weekday with no preposition is not grounded
        "May I help you?",
        "10号楼",
        "日本周边很美",  # 本周 inside 日本周边
        "看一下周报",  # 下周 inside 一下周报
        "基本月薪",
        "本周末",
        "February 30 is not a day",
        "nothing to see here",
        "",
    ],
)
def test_not_dates_stay_untouched(text):
    g = ground(text, OBS)
    assert g.text == text and g.valid_at is None and g.spans == ()


def test_issue_examples():
    # Issue 6: "I went to Paris last week" said on 2023-05-22 is dated May 2023.
    g = ground("I went to Paris last week", datetime(2023, 5, 22, 9, tzinfo=timezone.utc))
    assert g.valid_at == D(2023, 5, 15) and g.text.endswith("the week of 2023-05-15")
    # Issue 7: "I moved to Shanghai last week" said Thursday 2025-03-20 -> week of 2025-03-10.
    g = ground("I moved to Shanghai last week", datetime(2025, 3, 20, tzinfo=timezone.utc))
    assert g.valid_at == D(2025, 3, 10)


def test_spans_carry_offsets_periods_and_granularity():
    text = "Yesterday I booked Rome for next week."
    g = ground(text, OBS)
    first, second = g.spans
    assert text[first.start : first.end] == first.original == "Yesterday"
    assert (first.period_start, first.period_end, first.granularity) == (
        D(2023, 5, 21), D(2023, 5, 22), "day")  # fmt: skip
    assert second.original == "next week" and second.granularity == "week"
    assert (second.period_start, second.period_end) == (D(2023, 5, 29), D(2023, 6, 5))
    assert g.valid_at == first.period_start  # the first span wins
    assert g.text == "On 2023-05-21 I booked Rome for the week of 2023-05-29."
    month = find_spans("in 2 months", OBS)[0]  # July 2023: period end is exclusive
    assert (month.period_start, month.period_end) == (D(2023, 7, 1), D(2023, 8, 1))


def test_the_observers_own_calendar_day_is_used():
    # 23:30 on Sunday 21 May in California is already Monday 22 May in UTC.
    late = datetime(2023, 5, 21, 23, 30, tzinfo=timezone(timedelta(hours=-7)))
    assert ground("yesterday", late).valid_at == D(2023, 5, 20)
    assert ground("yesterday", late.astimezone(timezone.utc)).valid_at == D(2023, 5, 21)


def test_now_is_never_used():
    old = datetime(2001, 9, 3, 12, tzinfo=timezone.utc)  # a Monday, long ago
    assert ground("last week", old).valid_at == D(2001, 8, 27)
    assert ground("on the 5th", old).valid_at == D(2001, 8, 5)
    assert ground("去年", old).valid_at == D(2000, 1, 1)


def test_naive_observation_time_is_refused():
    with pytest.raises(ValueError):
        ground("yesterday", datetime(2023, 5, 22))


@pytest.mark.parametrize(
    "day, observed, future, expected",
    [
        (5, D(2023, 5, 22), False, D(2023, 5, 5)),
        (22, D(2023, 5, 22), False, D(2023, 5, 22)),  # on the day itself
        (25, D(2023, 5, 22), False, D(2023, 4, 25)),
        (31, D(2023, 5, 22), False, D(2023, 3, 31)),  # April has no 31st
        (5, D(2023, 1, 3), False, D(2022, 12, 5)),  # across the year
        (5, D(2023, 5, 22), True, D(2023, 6, 5)),
        (31, D(2023, 11, 2), True, D(2023, 12, 31)),
        (30, D(2024, 1, 31), True, D(2024, 3, 30)),  # February has no 30th
    ],
)
def test_nth_day(day, observed, future, expected):
    assert nth_day(day, observed, future) == expected


def test_dateparser_is_imported_lazily():
    code = "import sys, assistant.memory.language.dates; print('dateparser' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- never raises -----------------------------------------------------------------------------

FRAGMENTS = st.sampled_from([
    "yesterday", "last week", "next Friday", "in 3 days", "on the 5th", "昨天", "上周", "3 weeks ago",
    "in 999 years", "99999 days ago", "on the 31st", "Feb 29", "February 30, 2019", "the 0th",
    "in 2019", "5号", "十二天前", "上周日", "本周7", " ", ".", "。", "\n", "on", "the", "Sunday",
    "\x00", "🙂", "May", "31st", "年", "月", "日",
])  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), st.lists(FRAGMENTS | st.text(max_size=5)).map("".join)),
       st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1),
                    timezones=st.sampled_from([timezone.utc, PARIS])))  # fmt: skip
def test_any_text_never_raises(text, observed):
    g = ground(text, observed)
    assert isinstance(g.text, str)
    ends = [0]
    for s in g.spans:  # sorted, non-overlapping, pointing at the original text
        assert s.start >= ends[-1] and text[s.start : s.end] == s.original
        assert s.period_start < s.period_end
        ends.append(s.end)
    if not g.spans:
        assert g.text == text and g.valid_at is None


def test_a_plan_said_in_the_present_tense_is_the_coming_date():
    # "My surgery is on February 24" said on 2025-02-07: 2025-02-24 is 17 days ahead,
    # 2024-02-24 is 349 days back; the nearer one is meant (it was stored as 2024-02-24)
    said = datetime(2025, 2, 7, 10, tzinfo=PARIS)
    assert ground("My surgery is on February 24.", said).valid_at == D(2025, 2, 24)
    assert ground("I had surgery on February 3.", said).valid_at == D(2025, 2, 3)
    assert ground("My party was on December 20.", said).valid_at == D(2024, 12, 20)


# Plans by tense and cue (issue 23), all said on Thursday 2026-12-03: "is on Friday" is the next
# day (2026-12-04), "last Friday" / "on Friday I went" the one before (2026-11-27).
THU = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)
PLANS = [
    ("Remember that my dentist appointment is on Friday at 10.", D(2026, 12, 4)),
    ("See you Friday!", D(2026, 12, 4)),
    ("see you on Friday", D(2026, 12, 4)),
    ("the party is this Friday", D(2026, 12, 4)),
    ("I saw her last Friday.", D(2026, 11, 27)),
    ("On Friday I went to the dentist.", D(2026, 11, 27)),
    ("It was on Friday.", D(2026, 11, 27)),
    ("my rent is due on the 14th", D(2026, 12, 14)),  # a present-tense plan: the coming 14th
    ("We met on the 14th.", D(2026, 11, 14)),  # past: the last 14th
    ("the exam is in two weeks", D(2026, 12, 14)),  # the week of Monday 2026-12-14
    ("next month I start", D(2027, 1, 1)),
    ("the dentist is tomorrow", D(2026, 12, 4)),
    ("I moved to Accra in March.", D(2026, 3, 1)),  # past: the last March
    ("My exam is in March.", D(2027, 3, 1)),  # a plan: the coming March
    # a contracted present is a present too: "we're driving", "I'm running" state plans
    ("We're driving to the south of France in March.", D(2027, 3, 1)),
    ("I'm running the Bath Half in March.", D(2027, 3, 1)),
    ("I'm vegetarian since March.", D(2026, 3, 1)),  # "since": the state began in the last March
    # "last" of a day's place in a series is no past: the last day at work is ahead (an eighth set had 2025-05-29)
    ("I handed in my notice — last day there is May 29", D(2027, 5, 29)),
]


@pytest.mark.parametrize("text, day", PLANS, ids=[p[0] for p in PLANS])
def test_plan_dates_by_tense_and_cue(text, day):
    assert ground(text, THU).valid_at == day


def test_see_you_friday_keeps_the_sentence_case():
    assert ground("See you Friday!", THU).text == "See you on 2026-12-04!"


def test_a_plan_whose_date_passed_reads_as_past():
    from assistant.memory.language.tense import tensed

    text = "User's dentist appointment is on 2026-12-04 at 10."
    said = THU  # Thursday 2026-12-03: the appointment is the next day
    assert tensed(text, said, datetime(2026, 12, 4, 8, tzinfo=timezone.utc)) == text  # that day: still upcoming
    assert tensed(text, said, datetime(2026, 12, 5, 8, tzinfo=timezone.utc)) == "User's dentist appointment was on 2026-12-04 at 10."
    # a date that is not after the day it was said is not a plan: unchanged
    assert tensed("User's birthday party is on 2026-12-01.", said, datetime(2027, 1, 1, tzinfo=timezone.utc)).endswith("is on 2026-12-01.")


@pytest.mark.parametrize("text, day", [
    ("I am vegetarian now, I switched in March.", D(2026, 3, 1)),  # a regular past verb: the last March
    ("I am excited about the party on Friday.", D(2026, 12, 4)),  # "am excited" is not a past tense
])
def test_a_regular_past_verb_sets_the_tense(text, day):
    assert ground(text, THU).valid_at == day


# Past relative dates in es/fr/de/pt, observed Monday 2023-05-22: valid_at grounded, the words kept.
INTL = [
    ("La semana pasada nos mudamos a Valencia.", D(2023, 5, 15)),  # Monday of the week 7 days back
    ("Ayer vi a mi hermana.", D(2023, 5, 21)),
    ("Anteayer fuimos al cine.", D(2023, 5, 20)),
    ("El mes pasado empecé un trabajo nuevo.", D(2023, 4, 1)),
    ("Hier, j'ai vu ma sœur à Lyon.", D(2023, 5, 21)),
    ("La semaine dernière nous avons déménagé à Nantes.", D(2023, 5, 15)),
    ("L'année dernière j'ai commencé le piano.", D(2022, 1, 1)),
    ("Letzte Woche sind wir nach Leipzig gezogen.", D(2023, 5, 15)),
    ("Gestern habe ich meine Schwester besucht.", D(2023, 5, 21)),
    ("Na semana passada mudámo-nos para o Porto.", D(2023, 5, 15)),
    ("Ontem comprei uma bicicleta nova.", D(2023, 5, 21)),
    ("No ano passado comecei a estudar alemão.", D(2022, 1, 1)),
]


@pytest.mark.parametrize("text, valid_at", INTL, ids=[c[0] for c in INTL])
def test_past_relative_dates_in_other_languages_ground_and_keep_the_words(text, valid_at):
    g = ground(text, OBS)
    assert g.valid_at == valid_at
    assert g.text == text  # no English date is written into their sentence


@pytest.mark.parametrize(
    "text",
    [
        "Ich wohne hier seit langem in dieser Stadt.",  # German "hier" is "here"
        "I said hier to the French class.",  # not a French sentence
        "Mañana tengo una reunión con mi jefe.",  # future/"morning": left alone
    ],
)
def test_other_language_date_words_outside_their_language_are_not_dates(text):
    g = ground(text, OBS)
    assert g.valid_at is None and g.text == text


@pytest.mark.parametrize("said_on, text, grounded", [
    # a clause has its own tense: "sailed" is past, the return ahead (2025-02-20 had been taken)
    ("2026-01-06", "Teo sailed on Saturday and won't be back until the 20th of February.",
     "Teo sailed on 2026-01-03 and won't be back until 2026-02-20."),
    # a month and day in a clause without a tense of its own: the nearer (a booked flight, 117 days ahead, not 248 back)
    ("2026-05-30", "Booked the flights yesterday — out on the 24th of September via Istanbul.",
     "Booked the flights on 2026-05-29 — out on 2026-09-24 via Istanbul."),
    # a range: the first day takes the month said after the second, the second gets no "on"
    ("2026-06-24", "They're coming for a long weekend from the 14th to the 17th of August.",
     "They're coming for a long weekend from 2026-08-14 to 2026-08-17."),
    # "I've got" is no past: the 19th of this month is ahead
    ("2026-03-08", "I've got an interview there on the 19th, which is a Thursday.",
     "I've got an interview there on 2026-03-19, which is a Thursday."),
    ("2025-06-01", "I met her on March 3rd and it was lovely.", "I met her on 2025-03-03 and it was lovely."),
])  # fmt: skip
def test_a_dates_own_clause_tells_its_tense(said_on, text, grounded):
    assert ground(text, datetime.fromisoformat(said_on + "T12:00:00+00:00")).text == grounded


def test_since_a_weekday_is_behind():
    # said on a Monday: "since Tuesday I'm a bee health inspector" began six days before, not tomorrow
    monday = datetime(2026, 12, 7, 9, tzinfo=timezone.utc)
    assert ground("since Tuesday I'm a bee health inspector", monday).text == "since 2026-12-01 I'm a bee health inspector"
    assert ground("see you on Tuesday", monday).text == "see you on 2026-12-08"
