"""Date grounding: relative date references become absolute, against the message's observation date.

``ground(text, observed_at)`` finds candidate spans with the regexes below (English and Chinese),
hands each span to ``dateparser.parse`` with ``RELATIVE_BASE`` = the observation time (naive,
wall clock in the observer's own timezone), snaps the result to the span's granularity and
rewrites it:

    granularity  English                                  Chinese
    day          "yesterday"  -> "on 2023-05-21"           昨天   -> 2023年5月21日
    week         "last week"  -> "the week of 2023-05-15"  上周   -> 2023年5月15日那周  (Monday)
    month        "last month" -> "in April 2023"           上个月 -> 2023年4月
    year         "last year"  -> "in 2022"                 去年   -> 2022年

A leading preposition replaces "on"/"in" ("since yesterday" -> "since 2023-05-21").
Spans that are already absolute ("in 2019", "June 5, 2019", 2019年5月5日) stay as written but
still count. "on the 5th" / 5号 is computed here (dateparser returns the base day): the most
recent 5th on or before the observation date, or the next one on/after it when the sentence
speaks of the future (will, 'll, going to, plan to, next, 明天, 打算, ...); "on Friday" follows
the same preference. Month + day without a year ("June 5", 6月5日) is the future one when the
sentence speaks of the future, the past one when it speaks of the past (was, had, met, ago, ...),
else the nearer of the two: "My surgery is on February 24" said on 2025-02-07 is 2025-02-24
(17 days ahead), not 2024-02-24 (349 days back). The tense is the date's clause's when it has
one ("Teo sailed on Saturday and won't be back until the 20th of February": ahead), and a month
and day whose clause has none is the nearer ("Booked the flights yesterday -- out on the 24th of
September").

``Grounded.valid_at`` is the start of the first span's period (None when the text has no date).
The current time is never read. Unparseable spans stay as written; no text makes this raise.
dateparser is imported lazily (its first parse is slow: call :func:`preload` off the UI thread).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Callable

from assistant.memory.language.cues import WEEKDAY, WEEKDAY_BEFORE_DATE
from assistant.memory.language.day_after import after_day
from assistant.memory.language.dates_intl import RULES as INTL_RULES
from assistant.memory.language.tense import FUTURE, PAST, clause_of, moved_to, scope, tense

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
# a full name keeps the full stop after it ("until the 20th of February."), an abbreviation takes its own ("Feb.")
_MON = r"(?P<mon>January|February|March|April|May|June|July|August|September|October|November|December|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?)"
_DAY = r"(?P<day>3[01]|[12]\d|0?[1-9])"
_YEAR = r"(?:,?\s+(?P<year>(?:1[89]|20)\d\d)\b)?"
_WEEKDAY = r"(?P<wd>" + WEEKDAY + r")"
_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}  # fmt: skip
_N = r"(?P<n>\d{1,3}|" + "|".join(_EN_NUM) + r")"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_PREPS = "since|until|till|by|before|after|from|during"
_PREP = r"(?:\b(?P<prep>on|" + _PREPS + r")\s+)?"
_PREP_DAY = r"(?:\b(?P<prep>on|for|" + _PREPS + r")\s+)?"  # "booked the dentist for april 6"
# What may follow "on the 5th", so that "on the 5th floor" is not a date (a line break ends it, as the text's end does).
_AFTER_ORDINAL = re.compile(r"[ \t]*\n|\s*(?:$|[^\w\s]|(?:i|we|you|he|she|they|it|my|our|and|or|at|in|but|so|when|because|was|were|is|will|to|for|with|the|a|of)\b)", re.I)
_SUBJECT = re.compile(r"\s+(?:is|was|were|has|had|will|seems|seemed)\b", re.I)
_RANGE_END = re.compile(r"(?:\bof|\bto|\buntil|\btill|\bthrough|\band|\bas\s+of|\bby|\bbefore|\bafter|[-–])(?:\s+" + WEEKDAY_BEFORE_DATE + r",?)?\s*$", re.I)  # "as of today": a preposition of its own; "to thursday 26 february"
_ZH_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_ZH_N = r"(?<![0-9])(?P<n>[0-9]{1,3}|[一二两三四五六七八九十]{1,3})"
# 上/下/这/本 + 周/月, not inside words like 马上, 晚上, 一下, 日本, 基本, 成本 (heuristic).
_ZH_REL = r"(?<![马晚早一日基根资成版])(?P<rel>[上下这本])"
_ZH_WEEK = {"上": "上周", "下": "下周", "这": "本周", "本": "本周"}


@dataclass(frozen=True)
class DateSpan:
    """One grounded reference: offsets in the original text, its rewrite and its period."""

    start: int
    end: int
    original: str
    replacement: str
    period_start: date
    period_end: date  # exclusive
    granularity: str  # "day" | "week" | "month" | "year"


@dataclass(frozen=True)
class Grounded:
    text: str  # the text with absolute dates
    valid_at: date | None  # start of the first span's period
    spans: tuple[DateSpan, ...]


@dataclass(frozen=True)
class _Ask:  # a phrase to hand to dateparser
    phrase: str
    lang: str
    granularity: str
    offset_days: int = 0
    nearest: bool = False  # no tense in the sentence: the nearer of the past and the future date
    prefer: str | None = None  # "past" | "future": decided by the rule (else by the sentence's tense)


@dataclass(frozen=True)
class _Hit:  # a date already known
    day: date
    granularity: str
    absolute: bool = False


@functools.cache
def _dateparser():
    import dateparser  # deferred: a heavy import (~0.1 s with its data), for dates the rules do not know

    return dateparser


@functools.lru_cache(maxsize=2048)
def _parse(phrase: str, lang: str, base: datetime, prefer: str) -> date | None:
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer}
    try:
        result = _dateparser().parse(phrase, languages=[lang], settings=settings)
    except Exception:  # e.g. OverflowError for "in 999 years": the span stays as written
        return None
    return result.date() if result is not None else None


def preload() -> None:
    """Import dateparser and parse once, so the first real grounding is fast."""
    _parse("yesterday", "en", datetime(2000, 1, 1), "past")


def nth_day(day: int, observed: date, future: bool = False) -> date | None:
    """The most recent ``day``-th of a month on/before ``observed`` (next on/after it if future)."""
    y, m = observed.year, observed.month
    for _ in range(13):
        try:
            d = date(y, m, day)
            if (d >= observed) if future else (d <= observed):
                return d
        except ValueError:  # no 31st in this month: keep going
            pass
        y, m = divmod(y * 12 + m - 1 + (1 if future else -1), 12)
        m += 1
    return None


def _zh_int(s: str) -> int:
    if s.isdigit():
        return int(s)
    tens, ten, ones = s.partition("十")
    return (_ZH_DIGIT.get(tens, 1) * 10 + _ZH_DIGIT.get(ones, 0)) if ten else _ZH_DIGIT[s]


def _month_day(m: re.Match, obs: date, future: bool) -> _Ask | _Hit | None:
    month = int(m["mon"]) if m["mon"].isdigit() else 1 + [n[:3] for n in MONTHS].index(m["mon"][:3].title())
    if m.groupdict().get("year"):
        return _Hit(date(int(m["year"]), month, int(m["day"])), "day", absolute=True)
    return _Ask(f"{MONTHS[month - 1]} {int(m['day'])}", "en", "day", nearest=True)


def _weekday(m: re.Match, obs: date, future: bool) -> _Ask | None:
    """"on Friday", "see you Friday": the past one only when the sentence speaks of the past
    ("on Friday I went", "it was on Friday"), else the coming one ("is on Friday" said on a
    Thursday is the next day); "since Tuesday" is always behind (a state that began then); "on
    Sunday mornings" is every week, no date."""
    if _HABIT.match(m.string, m.end()):
        return None  # "visit mam on Sunday afternoons": every week, no one day
    behind = (m.groupdict().get("prep") or "").lower() == "since" or tense(m.string, m.start(), m.end()) == "past"
    return _Ask(m["wd"], "en", "day", prefer="past" if behind else "future")


_HABIT = re.compile(r"\s+(?:mornings|afternoons|evenings|nights|lunchtimes)\b", re.I)


def _month(m: re.Match, obs: date, future: bool) -> _Hit:
    """"in March": the most recent March (this one if it is March) unless the sentence speaks of
    the future or states a plan in the present ("my exam is in March": the coming one), or tells
    no tense at all and the coming one is nearer (less than six months ahead); "since March" is
    always the most recent one."""
    month = 1 + [n[:3] for n in MONTHS].index(m["mon"][:3].title())
    # "since May" is always behind: the state began then ("I'm 34 since May", "we've lived here since May")
    told = tense(m.string, m.start(), m.end())
    since = (m.groupdict().get("prep") or "").lower() == "since"
    ahead = (future or told == "present") and not since
    year = obs.year + (1 if ahead and month < obs.month else 0) - (1 if not ahead and month > obs.month else 0)
    if told is None and not since and not ahead and month > obs.month and month - obs.month < 6:  # no tense told: the nearer one
        year = obs.year  # "salary goes up to £40,000 from November" said in October
    return _Hit(date(year, month, 1), "month")


def _ordinal(m: re.Match, obs: date, future: bool) -> _Hit | None:
    """5号, or "on/since/... the 5th" followed by a clause boundary or a function word; the
    next one when the sentence speaks of the future or states a plan in the present ("is due on
    the 14th"), else the most recent one."""
    if "prep" in m.re.groupindex and not (m["prep"] and _AFTER_ORDINAL.match(m.string, m.end())):
        return None
    d = nth_day(int(m["day"]), obs, future or tense(m.string, m.start(), m.end()) == "present")
    return _Hit(d, "day") if d else None


def _zh_absolute(m: re.Match, obs: date, future: bool) -> _Hit:
    gran = "day" if m["d"] else "month" if m["mo"] else "year"
    return _Hit(date(int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1)), gran, absolute=True)


def _day_word(m: re.Match, obs: date, future: bool) -> _Ask:
    w = m["w"].lower()
    w = "yesterday" if w == "last night" else "today" if w == "tonight" or w[:5] == "this " else w
    return _Ask(w, "en", "day")


def _en_relative(m: re.Match, obs: date, future: bool) -> _Ask:
    """last/next/this week|month|year, or last/next/this <weekday>."""
    rel = {"previous": "last", "coming": "next"}.get(m["rel"].lower(), m["rel"].lower())
    if m.groupdict().get("wd"):
        return _Ask(f"{rel} {m['wd']}", "en", "day")
    return _Ask(f"{rel} {m['unit']}", "en", m["unit"].lower())


def _en_count(m: re.Match, obs: date, future: bool) -> _Ask:
    """in N units / N units ago."""
    n, unit = m["n"].lower(), m["unit"].lower()
    amount = f"{_EN_NUM[n] if n in _EN_NUM else int(n)} {unit}s"
    phrase = f"{amount} ago" if m.group(0).lower().endswith("ago") else f"in {amount}"
    return _Ask(phrase, "en", unit)


def _zh_count(m: re.Match, obs: date, future: bool) -> _Ask:
    """N天前 / N周后 / N个月前 / N年后 (Chinese numerals too)."""
    unit = {"天": "天", "日": "天", "年": "年", "个月": "个月"}.get(m["unit"], "周")
    gran = {"天": "day", "年": "year", "个月": "month"}.get(unit, "week")
    return _Ask(f"{_zh_int(m['n'])}{unit}{m['dir']}", "zh", gran)


def _zh_weekday(m: re.Match, obs: date, future: bool) -> _Ask:
    """上周五 = Monday of 上周 + 4 days."""
    wd = m["wd"].replace("天", "日")
    offset = int(wd) - 1 if wd.isdigit() else "一二三四五六日".index(wd)
    return _Ask(_ZH_WEEK[m["rel"]], "zh", "day", offset)


def _zh_word(m: re.Match, obs: date, future: bool) -> _Ask:
    w = m["w"]
    if w in _ZH_WORDS:
        return _Ask(_ZH_WORDS[w][0], "zh", _ZH_WORDS[w][1])
    gran = "month" if w.endswith("月") else "week"
    if gran == "week":
        return _Ask(_ZH_WEEK[m["rel"]], "zh", gran)
    return _Ask({"上": "上个月", "下": "下个月"}.get(m["rel"], "本月"), "zh", gran)


# Chinese words -> (a phrase dateparser's zh parser knows, granularity)
_ZH_WORDS = {w: (w, "day") for w in ("大前天", "前天", "昨天", "今天", "明天", "后天", "大后天")} | {
    "昨晚": ("昨天", "day"), "今晚": ("今天", "day"), "前年": ("2年前", "year"), "去年": ("去年", "year"),
    "今年": ("今年", "year"), "明年": ("明年", "year"), "后年": ("2年后", "year"),
}  # fmt: skip
_Rule = Callable[[re.Match, date, bool], "_Ask | _Hit | None"]
_ORD = r"(?:st|nd|rd|th)"
# a month's name in any case, whole ("octobre" is no "oct"), but "may"/"march" only capitalised ("I may 2 ...")
_MON_CASED = r"(?:(?=(?-i:May|March)\b)|(?!(?:may|march)\b))" + _MON + r"(?![a-zà-ÿ])"
_EN_RULES: list[tuple[str, _Rule]] = [
    (_PREP + r"\b(?P<w>the day before yesterday|the day after tomorrow|yesterday|today|tonight|"
     r"tomorrow|last night|this (?:morning|afternoon|evening))\b", _day_word),
    (_PREP + r"\b(?P<rel>last|next|this|previous|coming)\s+(?P<unit>week|month|year)\b",
     _en_relative),
    (_PREP + r"\b(?P<rel>last|next|this)\s+" + _WEEKDAY + r"\b", _en_relative),
    (r"\b(?P<prep>on|since|until|till|by|before|after|from)\s+" + _WEEKDAY + r"\b", _weekday),
    (r"(?<=see you )" + _WEEKDAY + r"\b", _weekday),
    (_PREP + r"\bin\s+" + _N + r"\s+" + _UNIT + r"\b", _en_count),
    (_PREP + r"\b" + _N + r"\s+" + _UNIT + r"\s+ago\b", _en_count),
    (r"\b(?P<prep>in|since|during|until|by|before|after|from)\s+"
     r"(?P<year>1[89]\d\d|20\d\d)\b(?![-/.]\d)",
     lambda m, obs, future: _Hit(date(int(m["year"]), 1, 1), "year", absolute=True)),
    (r"\b(?P<prep>in|since|during|until|by|before|after|from)\s+(?-i:" + _MON + r")\b(?!\s*\d)", _month),
    # "from the 14th to the 17th of August": the first day takes the month said after the second
    (r"\b(?P<prep>from|between)\s+the\s+" + _DAY + _ORD + r"?(?=\s+(?:to|and|until|till|through|[-–])\s+(?:the\s+)?\d{1,2}"
     + _ORD + r"?\s+(?:of\s+)?(?-i:" + _MON + r")\b)", _month_day),
    # a month's name next to a day is the month in lower case too ("april 6", "on the 10th of march"): the day says so,
    # but "may"/"march" before a number are words ("I may 2 ...") unless capitalised
    (_PREP_DAY + r"\b" + _MON_CASED + r"\s+" + _DAY + _ORD + r"?\b" + _YEAR, _month_day),
    (_PREP_DAY + r"\b(?:the\s+)?" + _DAY + _ORD + r"\s+(?:of\s+)?" + _MON + r"(?![a-zà-ÿ])" + _YEAR, _month_day),
    (_PREP_DAY + r"\b(?:the\s+)?" + _DAY + r"\s+(?:of\s+)?" + _MON_CASED + _YEAR, _month_day),
    (_PREP + r"\bthe\s+" + _DAY + _ORD + r"\b", _ordinal),
]
_ZH_RULES: list[tuple[str, _Rule]] = [
    (r"(?P<w>" + "|".join(sorted(_ZH_WORDS, key=len, reverse=True)) + ")", _zh_word),
    (_ZH_REL + r"个?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7])", _zh_weekday),
    (r"(?P<w>" + _ZH_REL + r"个?(?:周|星期|礼拜))(?![末报刊边围年期])", _zh_word),
    (r"(?P<w>" + _ZH_REL + r"个?月)(?![饼球份薪光亮])", _zh_word),
    (_ZH_N + r"(?P<unit>天|日|周|个?星期|个?礼拜|个月|年)[以之]?(?P<dir>前|后)", _zh_count),
    (r"(?<![0-9])(?P<y>\d{4})年(?:(?P<mo>1[0-2]|0?[1-9])月(?:(?P<d>3[01]|[12]\d|0?[1-9])[日号])?)?",
     _zh_absolute),
    (r"(?<![0-9])(?P<mon>1[0-2]|0?[1-9])月" + _DAY + r"[日号]", _month_day),
    (r"(?<![0-9月])" + _DAY + r"[号日](?![楼线室房门口位车床前后])", _ordinal),
]
_RULES = [(re.compile(p, re.I), r, False) for p, r in _EN_RULES] + [(re.compile(p), r, True) for p, r in _ZH_RULES] + [
    (re.compile(p, re.I), lambda m, obs, fut, f=f: (hit := f(m, obs, fut)) and _Hit(*hit, absolute=True), False) for p, f in INTL_RULES
]  # es/fr/de/pt past dates: grounded, the words kept (dates_intl)


def _period(day: date, granularity: str) -> tuple[date, date]:
    if granularity == "week":
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    if granularity == "month":
        start = day.replace(day=1)
        return start, (start + timedelta(days=32)).replace(day=1)
    if granularity == "year":
        return date(day.year, 1, 1), date(day.year + 1, 1, 1)
    return day, day + timedelta(days=1)


def _render(start: date, granularity: str, prep: str | None, zh: bool, subject: bool) -> str:
    """English: "on 2023-05-21" / "the week of ..." / "in April 2023" / "in 2022" ("since ..." keeps
    its preposition; a sentence subject, as in "Today was fine", gets none). Chinese: 2023年5月21日."""
    y, mo, d = start.year, start.month, start.day
    if zh:
        return {"day": f"{y}年{mo}月{d}日", "week": f"{y}年{mo}月{d}日那周",
                "month": f"{y}年{mo}月", "year": f"{y}年"}[granularity]  # fmt: skip
    body = {"day": start.isoformat(), "week": f"the week of {start.isoformat()}",
            "month": f"{MONTHS[mo - 1]} {y}", "year": str(y)}[granularity]  # fmt: skip
    default = "" if subject or granularity == "week" else "on" if granularity == "day" else "in"
    lead = prep or default
    return f"{lead} {body}" if lead else body


_IS_ON = re.compile(r"\b(?:is|are|['’]s)\s+(?:(?:on|for)\s+)?$", re.I)


def _spanned(m: re.Match, rule: _Rule, zh: bool, base: datetime) -> DateSpan | None:
    said_from = m.end("prep") + 1 if m.groupdict().get("prep") else m.start()  # after "from" in "moved it from the 12th"
    future = bool(FUTURE.search(scope(m.string, m.start(), m.end()))) or moved_to(m.string, said_from)
    if future and (m.groupdict().get("prep") or "").casefold() == "from":  # a day moved from: the nearest, ahead or just gone
        hits = [h for h in (_span(m, rule, zh, base, ahead) for ahead in (True, False)) if h is not None]  # "from 3 dec" on 7 Dec
        return min(hits, key=lambda h: abs((h.period_start - base.date()).days), default=None)
    return _span(m, rule, zh, base, future)


def _span(m: re.Match, rule: _Rule, zh: bool, base: datetime, future: bool) -> DateSpan | None:
    found = rule(m, base.date(), future)
    if isinstance(found, _Ask):
        day = _parse(found.phrase, found.lang, base, found.prefer or ("future" if future else "past"))
        # a month and day the clause around does not put in the past is the nearer of the two, also when the
        # sentence does ("Booked the flights yesterday -- out on the 24th of September")
        if found.nearest and day is not None and not future and not PAST.search(clause_of(m.string, m.start(), m.end())):
            ahead = _parse(found.phrase, found.lang, base, "future")
            # "my recital is on june 12" said in December: what "is on" a day is planned, so the next one
            planned = _IS_ON.search(m.string, max(0, m.start() - 16), m.start()) is not None  # the words right before it
            if ahead is not None and (planned or (ahead - base.date()) < (base.date() - day)):
                day = ahead
        found = _Hit(day + timedelta(days=found.offset_days), found.granularity) if day else None
    if found is None:
        return None
    start, end = _period(found.day, found.granularity)
    original = m.group(0)
    if found.absolute:
        replacement = original
    else:
        # "the subject of was/is", or the end of a range ("from 2026-08-14 to the 17th of August": no "on")
        subject = bool(_SUBJECT.match(m.string, m.end()) or _RANGE_END.search(m.string, 0, m.start()))
        replacement = _render(start, found.granularity, m.groupdict().get("prep"), zh, subject)
        before = m.string[: m.start()].rstrip()
        if original[:1].isupper() and (not before or before[-1] in ".!?。！？"):  # a sentence's start
            replacement = replacement[:1].upper() + replacement[1:]
    return DateSpan(m.start(), m.end(), original, replacement, start, end, found.granularity)


def find_spans(text: str, observed_at: datetime) -> tuple[DateSpan, ...]:
    """All grounded, non-overlapping date spans in ``text`` (earliest, then longest, wins)."""
    if observed_at.tzinfo is None or observed_at.utcoffset() is None:
        raise ValueError("observed_at must be timezone-aware")
    base = observed_at.replace(tzinfo=None)  # the speaker's wall clock
    found: list[DateSpan] = []
    for pattern, rule, zh in _RULES:
        for m in pattern.finditer(text):
            try:
                span = _spanned(m, rule, zh, base)
            except Exception:  # an odd span (Feb 30, year 99999...) stays as written
                span = None
            if span is not None:
                found.append(span)
    found.sort(key=lambda s: (s.start, s.start - s.end))
    chosen: list[DateSpan] = []
    for s in found:
        if chosen and s.start < chosen[-1].end:
            continue
        if chosen and _WEEKDAY_ONLY.match(chosen[-1].original) and s.granularity == "day" and not text[chosen[-1].end:s.start].strip(" ,"):
            chosen[-1] = s  # "on Tuesday 14 May": one day, said by its date (the weekday's words stay)
        else:
            chosen.append(after_day(chosen[-1], s, text) if chosen else s)
    return tuple(chosen)


_WEEKDAY_ONLY = re.compile(r"^(?:on\s+|this\s+|next\s+)?" + _WEEKDAY + "$", re.I)


def ground(text: str, observed_at: datetime) -> Grounded:
    """Rewrite relative dates in ``text`` as absolute ones, relative to ``observed_at``."""
    spans = find_spans(text, observed_at)
    parts, pos = [], 0
    for s in spans:
        parts += [text[pos : s.start], s.replacement]
        pos = s.end
    parts.append(text[pos:])
    return Grounded("".join(parts), spans[0].period_start if spans else None, spans)
