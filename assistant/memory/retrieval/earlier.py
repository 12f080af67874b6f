"""Which of the memories that answer a question is meant when it asks what was true *before* a
change: "What day were my charango lessons before they changed?", "What was the original date of
my crown appointment?", "wat colour was the old hilux". The memory that tells the change ("they
moved my crown appointment to March 19") words the question best, so it wins on closeness alone;
the earlier state is a memory that has ended, or one said before the change was told
(:func:`pick`). An earlier state dated by an event ("What was my job before the museum?") is one
said before the event was first told (:func:`anchor`). A question about the change itself ("What
date did my dentist appointment get moved to?") answered by a memory that has ended takes the
memory that ended it (:func:`successor`); one asking what happened in the end is not answered by a
plan (:func:`plan_for_outcome`). Any other question takes the best ranked.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Callable, Sequence

from assistant.memory.language.cues import EMOJI
from assistant.memory.language.shifts import planned, shift_kind, without_cues
from assistant.memory.retrieval.questions import asks_before
from assistant.memory.retrieval.terms import _covered, content_words, words
from assistant.memory.retrieval.vocabulary import LIGHT_VERBS, MODIFIERS

#: How far below the best rank a memory said earlier may be and still be the earlier state
#: meant (code-only dev13 0.605 -> 0.610 at 0.3, no other set changed; the shift cues keep a
#: memory telling the change out, so a wide window is safe).
EARLIER_WINDOW = 0.3

#: The earlier state in words :func:`~.questions.asks_before` does not read: "the original date",
#: "at first", "the old hilux" (not "an old friend"), "at the start of the year", "did I first".
_EARLIER = re.compile(
    r"\b(?:original(?:ly)?|at\s+first|in\s+the\s+beginning|at\s+the\s+(?:start|beginning)\s+of)\b"
    r"|\b(?:my|our|the|that)\s+old\s+(?!friend|school|man|lady|guy|woman|boy|girl)\w+"
    r"|\b(?:did|was|were)\s+(?:I|we)\s+first\b",
    re.I,
)


def asks_earlier(question: str) -> bool:
    """The (English) question asks what was true before something changed: "before they changed",
    "my previous job" (:func:`~.questions.asks_before`), "the original date", "my old flat", "at the
    start of the year", "What date did I first give"."""
    return asks_before(question) or _EARLIER.search(question) is not None


#: "before <event>": the event a question dates the earlier state by ("before the Llullaillaco job",
#: "before I moved to Edinburgh"); words of a time or of a job in general say no event of their own.
_BEFORE_EVENT = re.compile(r"\bbefore\s+(?P<e>[^?!.,;]+)", re.I)
_NO_EVENT = frozenset("job work current new now this that then they it changed change moved".split())


def anchor(question: str, hits: Sequence[Any], said: Callable[[Any], datetime | None]) -> datetime | None:
    """When the event a question dates the earlier state by ("before the museum") was first told:
    the earliest said of the memories among ``hits`` that word all its content words (None when it
    names none, or no memory words it)."""
    m = _BEFORE_EVENT.search(question)
    event = [w for w in content_words(m["e"]) if w not in _NO_EVENT] if m else []
    told = [w for h in hits if event and all(_covered(e, words(h.memory.text)) for e in event) if (w := said(h)) is not None]
    return min(told, default=None)


#: What happened in the end ("What did I end up giving Noor?"): a plan for it is no answer.
_OUTCOME = re.compile(r"\bend(?:ed)?\s+up\b", re.I)


def plan_for_outcome(question: str, text: str) -> bool:
    """The question asks what happened in the end and ``text`` only tells a plan or a wish
    ("What did I end up giving Noor for her birthday?" / "... thinking of getting her a Polaroid
    camera") or a booking: it does not answer."""
    return _OUTCOME.search(question) is not None and (planned(text) or (_BOOKED.search(text) is not None and not _WHEN.search(question)))


# a booking tells what is to happen, not what happened ("What did the dentist end up doing?" / "dentist booked for 12/03")
_WHEN = re.compile(r"\b(?:when|date|day|time)\b", re.I)  # "what date the dentist ended up being": the booking says it
_BOOKED = re.compile(r"\b(?:booked|booking|appointment|appt|scheduled|rescheduled)\b", re.I)


#: How close to a memory's end the message that ended it was said (consolidation ends it at that time).
_ENDED_BY = timedelta(days=1)


def successor(question: str, best: Any, hits: Sequence[Any], said: Callable[[Any], datetime | None]) -> Any | None:
    """A question about a change (a "now" cue: :func:`~assistant.memory.language.shifts.shift_kind`)
    answered by a memory that has ended takes the memory that ended it:
    the first of ``hits`` (retrieval's order, gated out or not) still true, said when the other
    ended, that words a content word of the question ("What date did my dentist appointment get
    moved to?" / "booked the dentist for the 10th ..." ended by "Riverside Dental called, my
    appointment got moved to Tuesday the 17th"). None when the best has not ended."""
    end = best.memory.invalid_at
    if end is None or shift_kind(question) != "now":
        return None
    asked = content_words(without_cues(question))  # "moved" says a change, not what changed
    return next((h for h in hits if h is not best and h.memory.invalid_at is None and (w := said(h)) is not None
                 and abs(w - end) <= _ENDED_BY and not h.memory.text.rstrip().endswith("?")
                 and any(_covered(a, words(h.memory.text)) for a in asked)), None)  # fmt: skip


#: A question told in the past tense asks of its own time ("How many miles did the Berlingo have?"), not of now.
_PAST_ASKED = re.compile(r"\b(?:did|was|were|had|used\s+to)\b", re.I)
_SENTENCE = re.compile(r"[.!?]+\s+|\s*" + EMOJI + r"+\ufe0f?\s*")
#: How far below the best rank a later memory telling a change may be and still be what is true now.
LATER_WINDOW = 0.3


#: Words no state is about: light verbs, modifiers, "every" ("I go bouldering every tuesday" / "I go on fridays now").
_NO_THING = LIGHT_VERBS | MODIFIERS | frozenset("user every each take takes took taking".split())


def _things(text: str) -> list[str]:
    """The content words a state is about, but names (a capitalised word: "Noor moved in" is not
    about the same as "User's partner is Noor."), change cues, numbers and :data:`_NO_THING`."""
    named = {w.casefold() for w in re.findall(r"\b[A-Z][\w'’-]*", text)}
    return [w for w in content_words(without_cues(text)) if w not in named and w not in _NO_THING and not any(c.isdigit() for c in w)]


def changed_since(question: str, best: Any, ranked: Sequence[tuple[float, Any]], top: float, said: Callable[[Any], datetime | None]) -> Any | None:
    """A question about what is true (not the earlier state) whose best answer was said before a
    memory that answers too, tells a change (a "now" cue: "GP upped my levothyroxine to 100
    micrograms" after "I take levothyroxine 75 micrograms") in a sentence that words a thing the
    best is about that the question asks of (:func:`_things`: "levothyroxine"; "now I work at Butter & Rye" is no
    change of "Our apartment is on East 10th Avenue"): the latest such memory, within ``LATER_WINDOW`` of the best. None
    when there is none."""
    when = said(best)
    if when is None:
        return None
    about = [t for t in _things(best.memory.text) if _covered(t, words(question))]

    def tells_change(text: str) -> bool:  # in a sentence that words the thing ("... now 🥁 sorry neighbours": not the neighbours)
        return any(shift_kind(p) == "now" and any(_covered(t, _things(p)) for t in about) for p in _SENTENCE.split(text))

    later = [(w, h) for r, h in ranked if h is not best and r >= top - LATER_WINDOW and h.memory.invalid_at is None
             and (w := said(h)) is not None and w > when and tells_change(h.memory.text)]
    return max(later, key=lambda wh: wh[0])[1] if later else None


def said_at(hit: Any) -> datetime | None:
    """When the hit's memory was said (:attr:`~assistant.memory.records.Memory.said_at`)."""
    return hit.memory.said_at


def pick(question: str, ranked: Sequence[tuple[float, Any]], said: Callable[[Any], datetime | None] = said_at,
         hits: Sequence[Any] = ()) -> Any | None:
    """The memory meant among ``ranked`` ((rank, hit) pairs of the memories that answer): the best
    ranked -- unless the question asks the earlier state (:func:`asks_earlier`) and, within
    ``EARLIER_WINDOW`` of the best, a memory has ended (the best has not: the best ended one), or
    the best tells a change (:func:`~assistant.memory.language.shifts.shift_kind` "now": "they moved
    my crown appointment to March 19") and a memory said before it does not (the best such one). A
    question that dates the earlier state by an event ("before the museum": :func:`anchor`) takes
    the best of those said before the event was first told, when the best was said after."""
    if not ranked:
        return None
    top, best = max(ranked, key=lambda rh: rh[0])
    if not asks_earlier(question):
        return successor(question, best, hits, said) or (None if _PAST_ASKED.search(question) else changed_since(question, best, ranked, top, said)) or best
    near = [(r, h) for r, h in ranked if r >= top - EARLIER_WINDOW and h is not best]
    if (at := anchor(question, hits, said)) is not None and (w := said(best)) is not None and w >= at:
        told = [(r, h) for r, h in ranked if (w := said(h)) is not None and w < at]
        if told:  # "What was my job before the museum?": said before the museum was first told of
            return max(told, key=lambda rh: rh[0])[1]
    ended = [(r, h) for r, h in near if h.memory.invalid_at is not None]
    if ended and best.memory.invalid_at is None:
        return max(ended, key=lambda rh: rh[0])[1]
    if shift_kind(best.memory.text) == "now" and (when := said(best)) is not None:
        before = [(r, h) for r, h in near if (w := said(h)) is not None and w < when and shift_kind(h.memory.text) != "now"]
        if before:
            return max(before, key=lambda rh: rh[0])[1]
    return best
