"""The tense of a date's words, read by :mod:`assistant.memory.language.dates`. Pure.

An ambiguous date ("on the 5th", "June 5", "on Friday") points back or ahead by the tense of the
words around it: its clause's when the clause has a tense cue of its own ("Teo sailed on
Saturday and won't be back until the 20th of February": the 20th is ahead), else its sentence's.

    tense(text, start, end)   # "past" | "future" | "present" | None

The other way round, :func:`tensed` puts a plan whose day has passed into the past tense for
display ("... is on 2026-12-04" -> "... was on 2026-12-04").
"""

from __future__ import annotations

import re
from datetime import date, datetime

from assistant.memory.language.cues import EMOJI, WEEKDAY_BEFORE_DATE

# Words that make an ambiguous date ("on the 5th", "June 5", "on Friday") point forward.
FUTURE = re.compile(r"\b(?:will|won['’]t|shall|going to|gonna|plan(?:s|ned|ning)? to|upcoming|next|tomorrow"
                    r"|soon)\b|'ll\b|将|(?<![开聚晚例约])会|要|打算|计划|准备|明天|下周|下个月|明年|以后", re.I)
_LAST = (r"last\s+(?:week|month|year|night|time|weekend|summer|winter|spring|autumn|fall|christmas|easter|monday|tuesday|wednesday"
         r"|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)")
# "last week", "last Friday"; not "last day there is May 29" (the final one, ahead)
PAST = re.compile(r"\b(?:was|were|had|did|ago|" + _LAST + r"|yesterday|went|met|(?<!['’]ve )(?<!have )(?<!has )got|moved|started|finished|left|came|took|bought"
                  r"|sold|married|visited|flew|arrived|happened|quit|ended|began|graduated|used to|lost|won|broke|found|made|gave|told|saw"
                  r"|ran|fell|sent|spent|paid|built|wrote|ate|drove|became|grew|kept|caught|brought|taught|heard|felt|thought)\b|了|过|去年|上个?月", re.I)
PAST_VERB = re.compile(r"\b(?:I|we|he|she|they)\s+(?:\w+ly\s+|just\s+|finally\s+|already\s+|also\s+)?\w+ed\b", re.I)  # "I switched", "we finally moved"
PRESENT = re.compile(r"\b(?:is|are|am|due)\b|['’](?:s|re|m)\b", re.I)


#: An emoji between words ends a sentence as a full stop would ("GOT IT 🎉🎉 I start on 1 June": "GOT" tells
#: nothing of "start"; "passed my probation 🥳 salary goes up to £40,000 from November").
_EMOJI_STOP = re.compile(EMOJI + r"+[\ufe0f\u200d]*(?=\s)")


def _bounds(text: str, start: int, end: int) -> tuple[int, int]:
    left = max(text.rfind(c, 0, start) for c in ".!?。！？\n") + 1
    rights = [i for i in (text.find(c, end) for c in ".!?。！？\n") if i >= 0]
    right = min(rights) if rights else len(text)
    stops = list(_EMOJI_STOP.finditer(text, left, right))
    left = max((m.end() for m in stops if m.end() <= start), default=left)
    return left, min((m.start() for m in stops if m.start() >= end), default=right)


def sentence_of(text: str, start: int, end: int) -> str:
    """The sentence around ``text[start:end]``."""
    left, right = _bounds(text, start, end)
    return text[left:right]


#: Where a clause of a sentence ends: its tense is its own ("Teo sailed on Saturday and won't be
#: back until the 20th of February": the 20th is ahead).
CLAUSE_CUT = re.compile(r"[,;:()—–]|\s-\s|\b(?:and|but|so|which|because|while|whereas)\b", re.I)


def cued(text: str) -> bool:
    return bool(PAST.search(text) or PAST_VERB.search(text) or FUTURE.search(text) or PRESENT.search(text))


def clause_of(text: str, start: int, end: int) -> str:
    """The clause of the sentence around ``text[start:end]`` (cut at :data:`CLAUSE_CUT`)."""
    left, right = _bounds(text, start, end)
    cuts = list(CLAUSE_CUT.finditer(text, left, right))
    lo = max((c.end() for c in cuts if c.end() <= start), default=left)
    hi = min((c.start() for c in cuts if c.start() >= end), default=right)
    return text[lo:hi]


def scope(text: str, start: int, end: int) -> str:
    """What tells the tense of a date: its clause when a tense cue is in it, else its sentence."""
    clause = clause_of(text, start, end)
    return clause if cued(clause) else sentence_of(text, start, end)


# a date something was moved to is when it now happens, whatever tense the moving was told in
# ("the notary moved our closing to june 29", "the dentist postponed it until the 3rd"); the one it was
# moved from was planned too ("they've moved my appointment from the 12th to thursday 26 february")
_MOVED_TO = re.compile(r"\b(?:moved|postponed|pushed(?:\s+back)?|rescheduled|delayed|changed|brought\s+forward|put\s+off|bumped)\b"
                       r"[^.!?,;]{0,40}?\b(?:to|until|till|for|from)\s+(?:the\s+|on\s+)?(?:" + WEEKDAY_BEFORE_DATE + r",?\s+(?:the\s+)?)?$", re.I)  # "to Thursday 16 May"


def moved_to(text: str, start: int) -> bool:
    """The date at ``start`` is one something was moved to ("moved our closing to june 29")."""
    return _MOVED_TO.search(text, max(0, start - 60), start) is not None


def tense(text: str, start: int, end: int) -> str | None:
    """The tense of the words around ``text[start:end]`` (:func:`scope`): "past" (was, went, ago,
    last ...), "future" (will, going to, next ...; a date something was moved to), "present" (is,
    are, 's, due: a plan as a present fact), else None."""
    if moved_to(text, start):
        return "future"
    words = scope(text, start, end)
    if PAST.search(words) or PAST_VERB.search(words):
        return "past"
    if FUTURE.search(words):
        return "future"
    return "present" if PRESENT.search(words) else None


_PLAN = re.compile(r"\b(?P<verb>is|are|will be)\b(?P<rest>[^.;!?]*?\bon\s+(?P<d>\d{4}-\d{2}-\d{2}))")
_WAS = {"is": "was", "are": "were", "will be": "was"}


def tensed(text: str, said_at: datetime | None, now: datetime) -> str:
    """A plan's text as of ``now``: "User's dentist appointment is on 2026-12-04 at 10." said on
    2026-12-03 reads "... was on 2026-12-04 at 10." once 2026-12-04 is over. Only a date after
    the day it was said (a plan) and before ``now``'s day changes tense; anything else is returned
    unchanged. Pure: ``now`` is passed in."""
    if said_at is None:
        return text

    def past(m: re.Match) -> str:
        d = date.fromisoformat(m["d"])
        if said_at.date() < d < now.date():
            verb = _WAS[m["verb"].lower()]
            return (verb.capitalize() if m["verb"][:1].isupper() else verb) + m["rest"]
        return m.group(0)

    return _PLAN.sub(past, text)
