"""A value said instead of another: "actually it's the 9th not the 6th", "Leonor's birthday is the
23rd of May, not the 28th", "surgery is the 12th not the 14th", "Tuesday, not Monday" (issue 28,
twelfth session: every fresh answers set had one, and the earlier day stayed the answer). Pure.

    said_instead("sorry, surgery is the 12th not the 14th")   # [Instead("12th", "14th", {"surgery"}, True)]
    corrected("It's on the 14th of March at the Hôpital.", Instead("12th", "14th", ...))
    # "It's on the 12th of March at the Hôpital."

A correction is ``X, not Y`` / ``X not Y`` / ``not Y but X`` where X and Y are values of one kind:
a day of the month or a number (digits, an ordinal suffix allowed, a month before it: "june 27,
not june 20"), an amount ("£1,250 a month, not £1,150"), a time of day, a weekday or a month; a
unit or what the value is for may stand between it and its "not" ("I meant the 13th of march for
Aisha's birthday, not the 3rd"). Other words ("tea not coffee", "Porto, not Lisbon") are left to the tidy-up: a place or a
taste said "not" is as often a contrast as a correction. ``cue``: the message says it corrects
("actually", "sorry", "wrong", "correction", "I mean", "my bad", "turns out", "changed",
"moved", "rescheduled"); ``topic``: the content words of its sentence besides the values, which
an earlier memory it corrects shares unless the message says it corrects.

:func:`corrected` writes the earlier text with the new value in the old one's place, in the
earlier text's own form ("april 6" -> "april 9"; "the 28th of May" -> "the 23rd of May").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.memory.language.cues import MONTH_SHORT, WEEKDAY
from assistant.memory.language.dates import MONTHS

_MONTHS = "(?:" + "|".join(m.casefold() for m in MONTHS) + ")"
#: one value: a time of day, a number (an ordinal suffix allowed, "the" before it), a weekday, a month or a name
_AMOUNT = r"[£$€]?\d{1,3}(?:,\d{3})+|[£$€]\d+"  # "£1,250", "1,150", "$90"
_VALUE = (r"(?:the\s+)?(?:" + _AMOUNT + r"|\d{1,2}(?::\d\d)?\s*(?:am|pm)|(?:" + _MONTHS + r"\s+(?=\d))?\d{1,4}(?:st|nd|rd|th)?(?:\s+of\s+" + _MONTHS + r")?|"
          + WEEKDAY + r"s?|"
          + _MONTHS + r"|(?-i:[A-Z][\w'’-]+))")  # or a name: "the dog is called Bisto, not Biscuit"
# between the new value and its "not": a unit ("£1,250 a month, not £1,150") or what it is for ("I meant the 13th
# of march for Aisha's birthday, not the 3rd")
_BETWEEN = r"(?:\s+(?:a|an|per)\s+(?:month|week|year|day|night|hour)|\s+for\s+(?:[\w'’]+\s+){0,2}[\w'’]+)?"
_INSTEAD = re.compile(r"(?P<new>" + _VALUE + r")" + _BETWEEN + r"\s*,?\s+(?:and\s+)?not\s+(?:on\s+|at\s+)?(?P<old>" + _VALUE + r")\b"
                      r"|\bnot\s+(?:on\s+|at\s+)?(?P<old2>" + _VALUE + r")\s*,?\s+but\s+(?:on\s+|at\s+)?(?P<new2>" + _VALUE + r")\b", re.I)
_CUE = re.compile(r"\b(?:actually|sorry|wrong|correction|i\s+mean|my\s+bad|oops|turns\s+out|misread|mixed\s+(?:it|them)\s+up|changed"
                  r"|moved|rescheduled|postponed|brought\s+forward)\b", re.I)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_NOT = re.compile(r"\bnot\b", re.I)
_FILLER = frozenset("""a an the it it's its is are was were be been to of on at in for and or but not no so just that this
    i i'm me my we our you your he she his her they their same time ugh oh ok okay sorry actually wrong correction mean
    bad oops turns out called said says got letter misread""".split())  # fmt: skip


@dataclass(frozen=True)
class Instead:
    """``new`` said instead of ``old`` (as written); ``topic``: the sentence's other content
    words (folded); ``cue``: the message says it corrects something."""

    new: str
    old: str
    topic: frozenset[str]
    cue: bool


def _kind(value: str) -> str:
    v = value.casefold()
    if re.fullmatch(_AMOUNT, v):
        return "amount"
    if re.search(r"\d\s*(?:am|pm)|:\d\d", v):
        return "time"
    if re.search(r"\d", v):
        return "number"
    if re.fullmatch(WEEKDAY + "s?", v):
        return "day"
    return "month" if re.fullmatch(_MONTHS, v) else "name"


def said_instead(text: str) -> list[Instead]:
    """The corrections of ``text`` (module docstring), in order."""
    if not _NOT.search(text):  # every message is read on capture: most say no "not"
        return []
    out = []
    for sentence in re.split(r"(?<=[.!?;])\s+|\s+[—–]\s+", text):
        for m in _INSTEAD.finditer(sentence):
            new, old = (m["new"], m["old"]) if m["new"] else (m["new2"], m["old2"])
            new, old = _as_amounts(new, old)
            same = _digits(new) == _digits(old) if _kind(new) in ("number", "time", "amount") else _bare(new).casefold() == _bare(old).casefold()
            months = {mo.casefold() for mo in re.findall(_MONTHS, f"{new} {old}", re.I)}
            if _kind(new) != _kind(old) or same or (_kind(new) == "number" and len(months) > 1):  # "july 2, not june 28": two dates
                continue
            if _kind(new) == "name" and not _CUE.search(text):  # "I live in Porto, not Lisbon" contrasts; "sorry, ... Bisto, not Biscuit" corrects
                continue
            (ns, ne), (os_, oe) = sorted([m.span("new" if m["new"] else "new2"), m.span("old" if m["new"] else "old2")])
            rest = " ".join((sentence[:ns], sentence[ne:os_], sentence[oe:]))  # what stands between is topic too ("for Aisha's birthday")
            topic = frozenset(w.casefold().removesuffix("'s").removesuffix("’s") for w in _WORD.findall(rest)) - _FILLER
            out.append(Instead(_bare(new), _bare(old), frozenset(w for w in topic if len(w) > 2), bool(_CUE.search(text))))
    return out


def _as_amounts(new: str, old: str) -> tuple[str, str]:
    """An amount and a bare number of two digits or more are both amounts, in the one's currency
    ("I meant £890 not 980": £980)."""
    kinds = (_kind(new), _kind(old))
    if kinds == ("amount", "number") and re.fullmatch(r"\d{2,}", old):
        return new, new[0] + old if new[0] in "£$€" else f"{int(old):,}"
    if kinds == ("number", "amount") and re.fullmatch(r"\d{2,}", new):
        return (old[0] + new if old[0] in "£$€" else f"{int(new):,}"), old
    return new, old


def _bare(value: str) -> str:
    return re.sub(r"^the\s+", "", value.strip(), flags=re.I)


def _digits(value: str) -> str:
    return "".join(re.findall(r"\d", value))


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _old_pattern(old: str) -> re.Pattern[str]:
    """Where ``old`` may be written in an earlier text: its number as a word of its own (an ordinal
    suffix or not: "6th" finds "april 6"), or its weekday/month/time as written."""
    if _kind(old) == "amount":  # "£1,150" finds "£1,150", "1,150" and "1150"
        grouped = f"{int(_digits(old)):,}".replace(",", ",?")
        return re.compile(r"(?<![\d.,])(?P<cur>[£$€])?" + grouped + r"(?![\d]|,\d)")
    if _kind(old) == "number":
        n = re.search(r"\d+", old).group()
        return re.compile(r"(?<![\d:.,/-])" + n + r"(?P<suffix>st|nd|rd|th)?(?![\d:.,/]\d|\s*(?:am|pm|h)\b|\s*%)", re.I)
    word = re.escape(re.sub(r"\s+of\s+.*$", "", old, flags=re.I))
    return re.compile(r"\b" + word + r"\b", re.I)


_MONTH_BEFORE = re.compile(r"(?:\bthe|\b" + _MONTHS + r"|\b" + MONTH_SHORT + r")\.?\s+$", re.I)
_MONTH_AFTER = re.compile(r"\s+(?:of\s+)?" + _MONTHS + r"\b", re.I)


_SAID_NOT = re.compile(r"\bnot\s+(?:the\s+|on\s+|at\s+)?$", re.I)


def _places(text: str, old: str) -> list[re.Match[str]]:
    """The occurrences of ``old`` in ``text``; of a day of the month ("6th", "the 28th"), only
    those written as a date ("april 6", "the 14th of March", "6th"), never "14 km"."""
    found = [m for m in _old_pattern(old).finditer(text) if not _SAID_NOT.search(text, max(0, m.start() - 12), m.start())]  # "£850 not 580": the correction's own
    day = int(re.search(r"\d+", old).group()) if _kind(old) == "number" else None
    if day is None or re.fullmatch(r"\d+", old) or day > 31:
        return found
    iso = re.finditer(r"(?<=\b\d{4}-\d\d-)(?P<iso>%02d)\b" % day, text)  # "for 2026-04-06"
    dated = [m for m in found if m["suffix"] or _MONTH_BEFORE.search(text[: m.start()]) or _MONTH_AFTER.match(text, m.end())]
    return sorted([*dated, *iso], key=lambda m: m.start())


def says_old(text: str, c: Instead) -> bool:
    """``text`` writes the old value of ``c``."""
    return bool(_places(text, c.old))


def corrected(text: str, c: Instead) -> str | None:
    """``text`` with the new value of ``c`` where it wrote the old one, in its own form; None when
    it does not write the old value."""
    places = _places(text, c.old)
    if not places:
        return None
    if _kind(c.old) == "amount":
        n = int(_digits(c.new))
        new = [(m["cur"] or "") + (f"{n:,}" if "," in m.group() or n >= 10000 else str(n)) for m in places]
    elif _kind(c.old) == "number":
        n = int(re.search(r"\d+", c.new).group())
        new = ["%02d" % n if m.groupdict().get("iso") else str(n) + (_ordinal(n) if m.groupdict().get("suffix") else "") for m in places]
    else:
        word = re.sub(r"\s+of\s+.*$", "", c.new, flags=re.I)
        new = [word.capitalize() if m.group()[0].isupper() else word.casefold() for m in places]
    out, pos = [], 0
    for m, value in zip(places, new):
        out += [text[pos : m.start()], value]
        pos = m.end()
    return "".join(out) + text[pos:]
