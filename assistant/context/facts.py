"""The structured part of a compaction summary, kept by code (never by the model).

:func:`extract` finds identifiers with regular expressions - names, paths and files, URLs and
emails, numbers (with the word after them: "3 kids"), dates and times - plus the person's
decisions and open items (sentences with "decided", "let's", "need to", "remind me"...). Each
fact remembers the id of the message it came from.

:func:`salvage` keeps a previous summary's facts that are still valid: their source message is
still in the full history with the same text (a deleted or redacted message - emptied, or
overwritten with ``[deleted]`` - takes its facts with it), and an open item is dropped once a
later message of the person closes it ("done", "finished", "cancelled"... sharing two content
words with it). :func:`merge` de-duplicates, previous facts first so the structured part does
not churn between compactions.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Iterable, Protocol, Sequence

KINDS = ("name", "path", "url", "email", "date", "number", "decision", "open_item")
LABELS = {
    "name": "Names", "path": "Paths and files", "url": "Links", "email": "Emails", "date": "Dates and times",
    "number": "Numbers", "decision": "Decisions", "open_item": "Open items",
}  # fmt: skip
CAPS = {"decision": 12, "open_item": 12}
DEFAULT_CAP = 30
SENTENCE_MAX = 200
REDACTED = "[deleted]"  # what the store's delete cascade writes over deleted text in files

_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_DAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
PATTERNS: dict[str, re.Pattern] = {
    "url": re.compile(r"\bhttps?://[^\s<>\"')\]]+"),
    "email": re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"),
    "path": re.compile(
        r"(?:(?<![\w/])(?:~|\.{1,2})?/(?:[\w.-]+/)*[\w.-]+"
        r"|\b[A-Za-z]:\\(?:[^\s\\]+\\)*[^\s\\]+"
        r"|\b[\w-]+\.(?:txt|md|pdf|docx?|xlsx?|pptx?|csv|json|ya?ml|toml|py|js|ts|html?|png|jpe?g|gif|svg|zip|gguf|mp3|mp4|wav|log|sh))\b"
    ),
    "date": re.compile(
        r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2})?\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
        rf"|\b{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b|\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}(?: \d{{4}})?\b"
        rf"|\b{_MONTH} \d{{4}}\b|\b(?:(?:next|last|this|on) )?{_DAY}s?\b"
        r"|\b\d{1,2}(?::\d{2})? ?(?:am|pm)\b|\b\d{1,2}:\d{2}\b"
    ),
    "number": re.compile(r"(?<![\w.,])[$€£]? ?\d+(?:[.,]\d+)*(?: ?%| [a-zA-Z]{2,15})?"),
}
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Prof|St)\.? )?"
_NAME = re.compile(_TITLE + r"\b[A-Z][a-zA-Z'’-]+(?: (?:[A-Z][a-zA-Z'’-]+|de|van|von|da|di|le|la))*(?: [A-Z][a-zA-Z'’-]+)?")
_STOP = set(
    "I I'm I've I'll I'd Im A An The And But Or So Then Than This That These Those It It's Its We We're You You're "
    "Your Yours He She They Them Their There Here My Mine Our What When Where Why How Who Which Whom Yes No Not "
    "Ok Okay Hi Hey Hello Thanks Thank Please Sure Well Also Oh Just Let Let's Today Tonight Tomorrow Yesterday "
    "Morning Evening Afternoon Night Week Weekend Month Year Good Great Nice Sorry Maybe Anyway Actually Really "
    "Still Now Next Last After Before Since Because If Is Are Was Were Be Do Does Did Done Can Could Would Should "
    "Will Shall May Might Must Have Has Had Got Get Going Go As At By For From In Into Of On To With Without About "
    "Some Any All Every Each Both One Two Three Another Other More Most Much Many Very Too Not Don't Didn't "
    "Here's There's What's That's Keep Remember Remind Note Summary Names Numbers Dates Decisions Open Items "
    "Narrative Links Emails Paths Full User Assistant Sounds Absolutely Certainly Of Course Glad Happy".split()
)
_STOP_LOWER = {w.lower() for w in _STOP} | set("and or the a an to of in on at for with but is are was were per than from".split())
_DECISION = re.compile(r"\b(?:decided|decide to|we'll|we will|i'll|i will|let's|agreed|going to|plan to|planning to|chose|settled on|booked)\b", re.I)
_OPEN = re.compile(r"\b(?:need to|needs to|have to|has to|must|todo|to-do|remind me|don't forget|remember to|deadline|due|haven't yet|still have to|should)\b", re.I)
_CLOSED = re.compile(r"\b(?:done|finished|completed|did it|cancel(?:l)?ed|no longer|not anymore|sorted)\b", re.I)
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_ABBREV = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|vs|etc|e\.g|i\.e)\.$")
_WORD = re.compile(r"[a-zA-Z]{4,}")
_LOWER_WORD = re.compile(r"\b[a-z][a-z'’-]+\b")


class HasText(Protocol):
    id: int
    role: str

    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Fact:
    kind: str
    value: str
    message_id: int

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "Fact":
        return cls(str(d["kind"]), str(d["value"]), int(d["message_id"]))


def _role(m: HasText) -> str:
    return str(getattr(m.role, "value", m.role))


def sentences(text: str) -> list[str]:
    """Sentences, split after . ! ? followed by a space (not inside "q2.pdf" or after "Dr.")."""
    out: list[str] = []
    for part in _SPLIT.split(text):
        part = " ".join(part.split())
        if out and _ABBREV.search(out[-1]):
            out[-1] += " " + part
        elif part:
            out.append(part)
    return out


def _names(text: str) -> Iterable[tuple[str, bool]]:
    """Capitalised word runs, without common words; yields (name, at_sentence_start)."""
    for sentence in sentences(text):
        for match in _NAME.finditer(sentence):
            words = match.group(0).split(" ")
            start = match.start() == 0
            while words and words[0] in _STOP:  # "Then Dana" -> "Dana"
                words.pop(0)
                start = False
            while words and words[-1] in _STOP:
                words.pop()
            if not words or (len(words) == 1 and (len(words[0]) < 2 or re.fullmatch(rf"{_DAY}|{_MONTH}", words[0]))):
                continue
            yield " ".join(words), start and len(words) == 1


def _plain(text: str) -> str:
    for kind in ("url", "email", "path"):
        text = PATTERNS[kind].sub(" ", text)
    return text


def _number(value: str) -> str:
    """Keep the word after a number only when it says what is counted ("3 kids", not "3 and")."""
    head, _, word = value.rpartition(" ")
    if head and word.isalpha() and word.lower() in _STOP_LOWER:
        return head
    return value


def extract_text(text: str, message_id: int, *, person: bool = True, common_words: set[str] | None = None) -> list[Fact]:
    """Facts in one message's text; decisions and open items only from the person's messages.

    A single capitalised word that starts a sentence ("Meeting at 3pm") is not a name when it is
    also written in lower case (in this text, or in ``common_words``: lower-case words of the
    whole conversation)."""
    facts: list[Fact] = []
    rest = text
    for kind in ("url", "email", "path", "date", "number"):
        for m in PATTERNS[kind].finditer(rest):
            value = m.group(0).strip().rstrip(".,;:")
            value = _number(value) if kind == "number" else value
            if value:
                facts.append(Fact(kind, value, message_id))
        # a path's digits are not also a number; keep the punctuation that ends a sentence
        rest = PATTERNS[kind].sub(lambda m: " _" + m.group(0)[len(m.group(0).rstrip(".,;:!?")) :], rest)
    lower = set(_LOWER_WORD.findall(rest)) if common_words is None else common_words
    facts += [Fact("name", n, message_id) for n, at_start in _names(rest) if not (at_start and n.lower() in lower)]
    if person:
        for sentence in sentences(text):
            sentence = sentence[:SENTENCE_MAX]
            if _DECISION.search(sentence):
                facts.append(Fact("decision", sentence, message_id))
            elif _OPEN.search(sentence):
                facts.append(Fact("open_item", sentence, message_id))
    return facts


def extract(messages: Sequence[HasText]) -> list[Fact]:
    """All facts of ``messages`` (oldest first), de-duplicated."""
    common = {w for m in messages for w in _LOWER_WORD.findall(_plain(m.text))}
    return merge([], [f for m in messages for f in extract_text(m.text, m.id, person=_role(m) == "user", common_words=common)])


def _stems(text: str) -> set[str]:
    return {w.lower()[:5] for w in _WORD.findall(text)}  # "renew" ~ "renewal"


def _closes(item: Fact, later: Sequence[HasText]) -> bool:
    words = _stems(item.value)
    for m in later:
        if m.id > item.message_id and _role(m) == "user" and _CLOSED.search(m.text):
            if len(words & _stems(m.text)) >= 2:
                return True
    return False


def salvage(previous: Sequence[Fact], full: Sequence[HasText]) -> list[Fact]:
    """The previous facts that still hold in ``full`` (the whole history, oldest first)."""
    by_id = {m.id: m for m in full}
    kept = []
    for f in previous:
        source = by_id.get(f.message_id)
        text = " ".join(source.text.split()) if source is not None else ""
        if not text or text == REDACTED or REDACTED in f.value or f.value not in text:
            continue  # the message was deleted or redacted: its facts go with it
        if f.kind == "open_item" and _closes(f, full):
            continue
        kept.append(f)
    return kept


def merge(first: Sequence[Fact], then: Sequence[Fact]) -> list[Fact]:
    """``first`` then ``then``, without repeats (same kind and value, case-insensitive: the fact
    keeps its first place and the id of its latest mention), each kind capped to its most
    recent entries."""
    at: dict[tuple[str, str], int] = {}
    out: list[Fact] = []
    for f in [*first, *then]:
        key = (f.kind, f.value.casefold())
        if key not in at:
            at[key] = len(out)
            out.append(f)
        elif f.message_id > out[at[key]].message_id:  # first place, latest mention (its age)
            out[at[key]] = Fact(f.kind, out[at[key]].value, f.message_id)
    capped: list[Fact] = []
    for kind in KINDS:
        of_kind = [f for f in out if f.kind == kind]
        recent = set(sorted(of_kind, key=lambda f: f.message_id)[-CAPS.get(kind, DEFAULT_CAP) :])
        capped += [f for f in of_kind if f in recent]
    return capped


def render(facts: Sequence[Fact]) -> str:
    """The structured part as text: one line per identifier kind, one bullet per sentence."""
    lines = []
    for kind in KINDS:
        values = [f.value for f in facts if f.kind == kind]
        if not values:
            continue
        if kind in ("decision", "open_item"):
            lines.append(f"{LABELS[kind]}:")
            lines += [f"- {v} (message #{f.message_id})" for v, f in zip(values, [f for f in facts if f.kind == kind])]
        else:
            lines.append(f"{LABELS[kind]}: " + "; ".join(values))
    return "\n".join(lines)
