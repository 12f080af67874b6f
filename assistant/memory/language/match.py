"""Finding a deleted text again, wherever a copy of it went (pure functions, no I/O).

- :func:`normalize` / :func:`find_spans`: a text is found after Unicode (NFKC), case and
  whitespace normalisation, at any length (a 3-character text too), on word boundaries, and the
  match is mapped back to the original characters - so a memory with line breaks or double
  spaces is found in the one-line copy injected into a prompt, and "Berlin." in "berlin".
- :func:`sentence_spans`: sentences (and lines) with their positions; redaction works on whole
  sentences, so "what stays" reads as text.
- :func:`support`: how much of a claim (a memory, in the third person: "User has a dog named
  Miso.") a sentence carries (the person's words: "My dog is called Miso."). Content words are
  crude stems (:func:`assistant.memory.language.validate.stem`) without stop words; the words extractors
  use to phrase a fact ("named", "lives", "User") only break ties. Score = shared content stems /
  content stems of the claim, in [0, 1]; e.g. claim {dog, miso} vs sentence {dog, call, miso}:
  2 / 2 = 1.0.
- :func:`identifiers`: the distinctive tokens of a text (names, numbers, codes): a reply that
  repeats one of them repeats what was said.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from typing import Any, Iterable, Sequence

from assistant.memory.language.dates_intl import MONTH_NAMES

# The capture modules (their word lists and cue patterns: 30-90 ms to import) are imported by
# the functions below when a forget first uses them: every store composes its Forgetter, and
# most commands never forget anything.

Span = tuple[int, int]

_QUOTES = {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "}
_ABBREV = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|vs|etc|e\.g|i\.e)\.$", re.I)
#: A German ordinal date's full stop ends no sentence ("am 14. März", "vom 28. August bis 6. September").
DE_MONTH = r"\s+(?:" + "|".join(m.capitalize() for m in (*MONTH_NAMES["de"], "jänner")) + r")\b"
NOT_ORDINAL_DATE = rf"(?!(?<=\b\d\.){DE_MONTH})(?!(?<=\b\d\d\.){DE_MONTH})"
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'\u2019\u201d)\]]*" + NOT_ORDINAL_DATE + r"(?=\s)|\n")
_TOKEN = re.compile(r"[\w'\u2019-]+", re.UNICODE)
_PERSON = frozenset("i i'm i've i'd i'll me my mine myself you you're your yours yourself user user's we our us".split())
# capitalised only because they start a sentence or a title: not names
_COMMON = frozenset("hi hey hello dear thanks thank ok okay yes no dr mr mrs ms prof st sure great please sorry".split())


def _fold_char(ch: str) -> str:
    ch = _QUOTES.get(ch, ch)
    return " " if ch.isspace() else unicodedata.normalize("NFKC", ch).casefold()


_WS = str.maketrans({c: " " for c in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"})
_SPACES = re.compile(r" {2,}")


class _Offsets:
    """Index map of an ASCII text: normalised position -> original position, stored as the few
    places where whitespace was collapsed (a 5 MB message needs no 5-million-entry list)."""

    def __init__(self, starts: list[int], deltas: list[int]) -> None:
        self.starts, self.deltas = starts, deltas

    def __getitem__(self, i: int) -> int:
        return i + self.deltas[bisect.bisect_right(self.starts, i) - 1]


def _ascii_map(text: str) -> tuple[str, _Offsets]:
    t = text.lower().translate(_WS)
    lead = len(t) - len(t.lstrip(" "))
    t = t.strip(" ")
    out, starts, deltas = [], [0], [lead]
    last = n = 0
    for m in _SPACES.finditer(t):
        out.append(t[last : m.start() + 1])
        n += m.start() + 1 - last
        starts.append(n)
        deltas.append(deltas[-1] + m.end() - m.start() - 1)
        last = m.end()
    out.append(t[last:])
    return "".join(out), _Offsets(starts, deltas)


@functools.lru_cache(maxsize=512)
def norm_map(text: str) -> tuple[str, Any]:
    """The normalised text and, for each of its characters, the index of the original
    character it came from (whitespace runs become one space; leading/trailing space dropped).
    ASCII text (most of it) takes a fast path: lower case is one character for one."""
    return _ascii_map(text) if text.isascii() else fold_map(text)


def fold_map(text: str) -> tuple[str, list[int]]:
    """The definition of the normalisation, character by character (any text)."""
    out: list[str] = []
    idx: list[int] = []
    for i, ch in enumerate(text):
        for f in _fold_char(ch):
            if f == " " and (not out or out[-1] == " "):
                continue
            out.append(f)
            idx.append(i)
    if out and out[-1] == " ":
        out.pop()
        idx.pop()
    return "".join(out), idx


def normalize(text: str) -> str:
    """NFKC, casefold, typographic quotes to ASCII, whitespace runs to one space, stripped."""
    return norm_map(text)[0]


def find_spans(text: str, needle: str) -> list[Span]:
    """Where ``needle`` occurs in ``text`` after normalisation (on word boundaries when the
    needle starts/ends with a word character), as spans of the ORIGINAL text."""
    n = normalize(needle)
    if not n:
        return []
    hay, idx = norm_map(text)
    spans: list[Span] = []
    start = hay.find(n)
    while start >= 0:
        end = start + len(n)
        left_ok = not n[0].isalnum() or start == 0 or not hay[start - 1].isalnum()
        right_ok = not n[-1].isalnum() or end == len(hay) or not hay[end].isalnum()
        if left_ok and right_ok:
            spans.append((idx[start], idx[end - 1] + 1))
        start = hay.find(n, start + 1)
    return spans


def contains(text: str, needle: str) -> bool:
    return bool(find_spans(text, needle))


def sentence_spans(text: str) -> list[Span]:
    """Sentences of ``text`` (split after . ! ? before a space, and at line breaks; not after
    "Dr." and the like), as spans without their surrounding whitespace."""
    from assistant.memory.language.statements import trimmed

    spans: list[Span] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        end = m.end() if m.group(0) != "\n" else m.start()
        if m.group(0) != "\n" and _ABBREV.search(text[start:end]):
            continue
        spans.append((start, end))
        start = m.end()
    spans.append((start, len(text)))
    return trimmed(text, spans)


def clause_spans(text: str) -> list[Span]:
    """The clauses of ``text``'s sentences (:func:`assistant.memory.language.clauses.clause_cuts`):
    "forget my cat" cuts ", and we have a cat called Pepper" and keeps "My partner Joost is a
    carpenter"."""
    from assistant.memory.language.clauses import clause_cuts

    return [c for s, e in sentence_spans(text) for c in clause_cuts(text, s, e)]


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


def covering_sentences(text: str, spans: Iterable[Span]) -> list[Span]:
    """The clauses (:func:`clause_spans`) of ``text`` whose own words overlap any of ``spans``.

    Neighbouring clauses share their connector (", and " belongs to both spans, so either can be
    cut and the rest reads well); only the part of a clause that no neighbour shares counts, or a
    match in ", and we have a cat" would take "My partner Joost is a carpenter" with it."""
    spans = list(spans)
    clauses = clause_spans(text)
    out: list[Span] = []
    for i, (s, e) in enumerate(clauses):
        core_s, core_e = s, e
        if i > 0 and clauses[i - 1][1] > s:
            core_s = clauses[i - 1][1]
        if i + 1 < len(clauses) and clauses[i + 1][0] < e:
            core_e = clauses[i + 1][0]
        if core_s >= core_e:
            core_s, core_e = s, e
        if any(a < core_e and core_s < b for a, b in spans):
            out.append((s, e))
    return out


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def remove_spans(text: str, spans: Iterable[Span]) -> str:
    """``text`` without ``spans``; the text around each cut is joined by one space (or one line
    break when the cut crossed one) so what stays reads naturally."""
    out = ""
    pos = 0
    for s, e in merge_spans(spans):
        keep = text[pos:s]
        gap = text[pos:s][len(keep.rstrip()):] + text[e:len(text) - len(text[e:].lstrip())]
        out += keep.rstrip()
        pos = e
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if out and not (pos < len(text) and text[pos] in ".,;:!?。！？，；"):  # a cut clause leaves its sentence's "."
            out += "\n" if "\n" in gap or "\n" in text[s:e] else " "
    out += text[pos:]
    return out.strip()


def identifiers(text: str) -> set[str]:
    """Distinctive tokens, casefolded: capitalised words that do not just start a sentence
    (names, places; "User", "I" and greetings are not), and any token holding a digit (codes,
    numbers, dates). A sentence's first word counts when the text also writes it capitalised
    mid-sentence."""
    from assistant.memory.language.validate import proper_nouns, words

    inner: set[str] = set()
    first: set[str] = set()
    for sentence in sentences(text):
        ws = [w for w in words(sentence) if not w[0].isdigit()]
        proper = {w.casefold() for w in proper_nouns(sentence)}
        for i, w in enumerate(ws):
            if w.casefold() in proper:
                (first if i == 0 else inner).add(w.casefold())
    found = inner | (first & inner)
    found |= {t.casefold() for t in _TOKEN.findall(text) if any(c.isdigit() for c in t)}
    return {f[:-2] if f.endswith("'s") else f for f in found if f not in _PERSON and f not in _COMMON}


def names_in(texts: Sequence[str], names: set[str]) -> set[str]:
    """Which of ``names`` (casefolded) the ``texts`` still mention as words, any case (linear
    in the texts' length, whatever their size)."""
    if not names:
        return set()
    pattern = re.compile(r"(?<![\w])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?:'s)?(?![\w])", re.I)
    found: set[str] = set()
    for t in texts:
        found |= {m.group(1).casefold() for m in pattern.finditer(t)}
        if found >= names:
            break
    return found


def topic_stems(text: str) -> set[str]:
    """The content stems of a topic ("my dog" -> {"dog"})."""
    from assistant.memory.language.validate import STOPWORDS, stem, words

    return {stem(w) for w in words(text) if w.casefold() not in STOPWORDS and w.casefold() not in _PERSON}


def _stems(text: str) -> tuple[set[str], set[str]]:
    from assistant.memory.language.validate import STOPWORDS, TEMPLATE_WORDS, stem, words

    core, template = set(), set()
    for w in words(text):
        f = w.casefold().replace("\u2019", "'")
        if f in STOPWORDS or f in _PERSON or len(f) < 2:
            continue
        (template if f in TEMPLATE_WORDS else core).add(stem(w))
    return core, template


def support(sentence: str, claim: str) -> float:
    """Share of the claim's content found in ``sentence``, in [0, 1]: its content stems, plus
    its identifiers counted once more (a name or number is the strongest evidence); the
    phrasing words of extracted facts only count when the claim has nothing else. E.g. claim
    "Moved to Berlin recently" = stems {berlin, recent} + identifier {berlin}; sentence
    "Berlin." holds berlin twice over: (1 + 1) / (2 + 1) = 0.67."""
    core, template = _stems(claim)
    have, have_t = _stems(sentence)
    have |= have_t
    base = core or template
    names = identifiers(claim)
    if not base and not names:
        return 0.0
    got = len(base & have) + len(names & identifiers_loose(sentence))
    return got / (len(base) + len(names))


def identifiers_loose(text: str) -> set[str]:
    """Every capitalised word or token with a digit, sentence starts included (for matching
    a claim's identifiers, which are already known to be names)."""
    from assistant.memory.language.validate import words

    found = {w.casefold() for w in words(text) if any(c.isupper() for c in w) or any(c.isdigit() for c in w)}
    found |= {t.casefold() for t in _TOKEN.findall(text) if any(c.isdigit() for c in t)}
    return {f[:-2] if f.endswith("'s") else f for f in found}


def supporting_sentences(text: str, claim: str, *, minimum: float = 0.5) -> list[Span]:
    """The clauses of ``text`` that carry ``claim``: the claim itself where it occurs
    verbatim (normalised), else the best-supporting clauses (score >= ``minimum``, or any
    support at all when the text is one clause; ties broken by the phrasing words they share).
    Clauses, not sentences: "User has a cat named Pepper" is carried by ", and we have a cat
    called Pepper", never by the "My partner Joost is a carpenter" before it."""
    direct = covering_sentences(text, find_spans(text, claim))
    if direct:
        return direct
    spans = clause_spans(text)
    if not spans:
        return []
    scored = [(support(text[s:e], claim), _tie(text[s:e], claim), (s, e)) for s, e in spans]
    best = max(scored, key=lambda x: (x[0], x[1]))
    if best[0] < minimum and not (len(spans) == 1 and best[0] > 0):
        return []
    return [sp for sc, tie, sp in scored if sc == best[0] and tie == best[1]]


def _tie(sentence: str, claim: str) -> int:
    from assistant.memory.language.validate import stem, words

    a = {stem(w) for w in words(claim)}
    return len(a & {stem(w) for w in words(sentence)})


def clauses_mentioning(text: str, names: set[str]) -> list[Span]:
    """The clauses of ``text`` (:func:`clause_spans`) that name one of ``names``."""
    return [(s, e) for s, e in clause_spans(text) if mentions(text[s:e], set(), names)]


def mentions(sentence: str, stems: set[str], names: set[str], *, near: bool = False) -> bool:
    """Whether ``sentence`` names one of the topic ``stems`` or ``names`` (casefolded).
    ``near``: a name of 6+ letters is also named by a near copy (:func:`near_name`), as text a
    model wrote holds it: cut short by the token limit, or one letter off."""
    from assistant.memory.language.validate import stem, words

    toks = [w.casefold().removesuffix("'s") for w in words(sentence)]
    if any(stem(w) in stems for w in toks) or any(w in names for w in toks):
        return True
    return near and any(near_name(w, n) for w in toks for n in names)


NEAR_PREFIX = 0.7  # a token this share (or more) of a name's length that starts it: a copy cut short
NEAR_SIMILARITY = 0.85  # normalised Levenshtein similarity of a token to a name: a copy one letter off


def near_name(token: str, name: str) -> bool:
    """Whether ``token`` (casefolded) is a near copy of ``name`` (casefolded, 6+ characters):
    a prefix of it with len(token) >= 0.7 * len(name), or a spelling with normalised
    Levenshtein similarity >= 0.85. E.g. name "zqrecanehoqu" (12): "zqrecanehoq" is a
    prefix, 11 >= 8.4 -> yes; "zqrecanehoqa": 1 edit, 1 - 1/12 = 0.92 -> yes; "zqre": 4 < 8.4
    and 0.33 -> no."""
    if len(name) < 6 or len(token) < 5 or token == name:
        return token == name
    if name.startswith(token) and len(token) >= NEAR_PREFIX * len(name):
        return True
    from rapidfuzz.distance import Levenshtein  # deferred: only a forget reaches it

    return Levenshtein.normalized_similarity(token, name) >= NEAR_SIMILARITY
