"""Validate an extracted fact against the message it came from, before it is written (docs/DESIGN.md §5).

A fact passes when it is true to the words used:

- it is about the person ("User ...") or about one of their people named in ``people`` ("Joost is a
  carpenter."), and is a statement of sensible length, not a question;
- every proper noun (a capitalized or mixed-case word, e.g. "Ferrari", "GTB", "Olive") and every
  number in it occurs in the source message (or in the message with its dates grounded) --
  nothing copied from an existing memory (*contamination*), nothing made up (*hallucination*);
- every other content word is supported by a word of the message (same stem), apart from the
  small vocabulary the extractors use to phrase facts ("User", "lives", "favourite", ...);
- no pronoun is left ("it", "she", "they", "my" ...): the text must stand on its own.

``validate`` returns ``None`` for a good fact, else a short reason (it never raises). Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Iterable

from assistant.memory.language.cues import SHORT_REL

MIN_CHARS = 8
MAX_CHARS = 400

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# a CJK character is a word of its own (Chinese is written without spaces)
_WORD = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W\d_])(?:(?:(?![{_CJK}])[\w'’-])*(?![{_CJK}])\w)?|\d+(?:[.,:/-]\d+)*", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
PRONOUNS = frozenset(
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself "
    "she her hers herself they them their theirs themselves it its itself".split()
)
# Spanish "he" + a past participle: the auxiliary of the first person ("me he apuntado"), not the English pronoun
_ROMANCE_HE = re.compile(r"\bhe\s+[a-zñ]+(?:ado|ido|to|cho)\b", re.I)
_DEMONSTRATIVE_END = re.compile(r"\b(this|that|these|those)\s*[.!?]*\s*$", re.I)
# Function words (never need support in the message).
STOPWORDS = frozenset(
    """a an the and or but nor so yet of to in on at by for from with without about above after against along
    among around as before behind below beneath beside between beyond during except inside into like near
    off onto out outside over past since than through throughout till toward towards under until up upon via
    within is am are was were be been being has have had having do does did done doing will would shall
    should can could may might must not no don't doesn't didn't isn't wasn't aren't weren't won't can't
    cannot hasn't haven't hadn't also just very really still now then there here when where which who whom
    whose what why how all any both each few more most other some such only own same too again ever never
    always often sometimes usually even already quite rather much many lot lots one week day month year
    that this these those""".split()
)
# The vocabulary extractors use to phrase facts; it need not occur in the message.
def _as_said(word: str) -> set[str]:
    """The first-person forms the third-person rewrite (:func:`~.phrasing.conjugate`) made ``word``
    from: "goes" <- "go", "does" <- "do", "has" <- "have", "flies" <- "fly" ("I go to the climbing
    gym" -> "User goes to ...")."""
    fixed = {"goes": "go", "does": "do", "has": "have", "doesn't": "don't", "doesn’t": "don’t", "hasn't": "haven't", "hasn’t": "haven’t"}
    out = {fixed[word]} if word in fixed else set()
    out |= {short for short, full in SHORT_REL.items() if full == word}  # "bf Ewan": User's boyfriend
    if word.endswith("ies"):
        out.add(word[:-3] + "y")
    if word.endswith("es"):
        out.add(word[:-2])
    return out


TEMPLATE_WORDS = frozenset(
    """user user's lives live living works work working worked named called name name's is's favourite
    favorite moved switched promoted married allergic allergy birthday diet eats eat drinks drink
    owns own born pet pets job title employer city home hometown family household partner remembers remember
    asked wants said says told believes thinks""".split()
)
# Capitalized words that are not proper nouns of the message's content: dates written by grounding.
_DATE_WORDS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)
_LEADING_OK = frozenset({"the", "a", "an", "in", "on", "at", "since", "from", "user", "user's"})


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def _fold(word: str) -> str:
    return word.casefold().replace("’", "'")


def stem(word: str) -> str:
    """A crude English stem: enough to match "lives"/"live", "promoted"/"promotion", "cats"/"cat"."""
    w = _fold(word)
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith(("ies", "ied")) and len(w) > 4:
        w = w[:-3] + "y"  # "tries"/"tried" -> "try"
    for suffix in ("ies", "ied", "ing", "ed", "es", "s", "ion", "ly", "er"):
        if len(w) - len(suffix) >= 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] in "ey":
        w = w[:-1]
    return w[:6]


def is_proper(word: str) -> bool:
    """A word written with a capital letter (Paris, GTB, iPhone, McDonald's), not a date word."""
    f = _fold(word)
    f = f[:-2] if f.endswith("'s") else f
    return any(c.isupper() for c in word) and f not in _DATE_WORDS and f not in ("user", "i", "i'm", "i've", "i'd", "i'll")


def proper_nouns(text: str) -> list[str]:
    """Capitalized words of ``text`` (the first word of the text is not counted when it is a
    function word, e.g. "The")."""
    ws = words(text)
    out = []
    for i, w in enumerate(ws):
        if w[0].isdigit() or not is_proper(w):
            continue
        if i == 0 and _fold(w) in _LEADING_OK:
            continue
        out.append(w)
    return out


def numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(text))


#: A third-person reflexive stands for what its own clause names ("a bunch who call themselves the Blue Toes",
#: "Rainer bought himself a bike"): nothing is left to resolve.
_THIRD_REFLEXIVE = frozenset("himself herself itself themselves".split())


def pronouns_in(text: str) -> list[str]:
    """Personal pronouns left in ``text`` (an all-caps word such as "IT" is not one; nor a
    third-person reflexive: :data:`_THIRD_REFLEXIVE`)."""
    found = [w for w in words(text) if re.sub(r"'(?:s|re|ve|ll|d|m)$", "", _fold(w)) in PRONOUNS and not (len(w) > 1 and w.isupper())
             and _fold(w) not in _THIRD_REFLEXIVE]
    m = _DEMONSTRATIVE_END.search(text)
    if m:
        found.append(m.group(1))
    return found


#: A fact about the person whose first clause has a thing (four words or more, no pronoun) and an
#: "it"/"its" after a comma or a dash: the thing the clause before it names ("User got a secondhand
#: Cube e-bike instead, its bright green"), not something outside the fact.
_IT_WITHIN = re.compile(r"^User (?![^,;—–]*\b(?:it|its|it's|they|them|he|she|him|her)\b)(?:[^\s,;—–]+\s+){3,}[^\s,;—–]+\s*(?:,|;|\s[—–-])\s.*\b(?i:it|its|it's)\b", re.S)


def validate(fact: str, sources: str | Iterable[str], *, existing: Iterable[str] = (), people: Iterable[str] = ()) -> str | None:
    """``None`` when ``fact`` is supported by ``sources`` (the message text, and optionally the
    same text with grounded dates); otherwise the reason it is rejected. ``existing``: texts of
    memories shown to the extractor, only used to name contamination in the reason. ``people``:
    names of the person's own people and pets; a fact may be about one of them instead of "User"."""
    srcs = [sources] if isinstance(sources, str) else list(sources)
    text = (fact or "").strip()
    if len(text) < MIN_CHARS:
        return "too short"
    if len(text) > MAX_CHARS:
        return "too long"
    if text.endswith("?"):
        return "a question, not a fact"
    if not re.search(r"\bUser\b", text) and not any(re.match(re.escape(p) + r"\b", text) for p in people):
        return "not about the user (no 'User' subject)"
    left = pronouns_in(text)
    if text.startswith("User: "):  # the person's own clause in another language: "me", "he" ("he vivido") are not English there
        left = [w for w in left if _fold(w) != "me" and not (_fold(w) == "he" and _ROMANCE_HE.search(text))]
    if left and _IT_WITHIN.match(text):  # "User got a Cube e-bike instead, its bright green": the e-bike
        left = [w for w in left if _fold(w).replace("'s", "") not in ("it", "its")]
    if left:
        return f"pronoun left: {', '.join(dict.fromkeys(left))}"
    src_words = [w for s in srcs for w in words(s)]
    src_folded = {_fold(w) for w in src_words}
    src_folded |= {re.sub(r"['’]s$", "", w) for w in src_folded}  # "our cousin Duarte's birthday" names Duarte
    src_stems = {stem(w) for w in src_words}
    src_numbers = set().union(*(numbers(s) for s in srcs)) if srcs else set()
    existing_words = {_fold(w) for e in existing for w in words(e)}

    def origin(missing: list[str]) -> str:
        if missing and all(_fold(w) in existing_words for w in missing):
            return " (contamination: only an existing memory says this)"
        return " (hallucination)"

    missing = [w for w in proper_nouns(text) if _fold(w) not in src_folded and re.sub("'s$", "", _fold(w)) not in src_folded]
    if missing:
        missing = list(dict.fromkeys(missing))
        return f"not in the message: {', '.join(missing)}{origin(missing)}"
    bad_numbers = sorted(n for n in numbers(text) if n not in src_numbers)
    if bad_numbers:
        return f"number not in the message: {', '.join(bad_numbers)}{origin(bad_numbers)}"
    unsupported = []
    for w in words(text):
        f = _fold(w)
        if w[0].isdigit() or f in STOPWORDS or f in TEMPLATE_WORDS or (len(f) < 3 and not re.match(f"[{_CJK}]", f)) or f in src_folded:
            continue
        if stem(w) not in src_stems and not _as_said(f) & src_folded:
            unsupported.append(w)
    if unsupported:
        unsupported = list(dict.fromkeys(unsupported))
        return f"words not in the message: {', '.join(unsupported)}{origin(unsupported)}"
    return None
