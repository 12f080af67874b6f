"""One statement, one memory: the candidates of one message that say the same thing are kept once.

    kept, dropped = one_each(candidates, embed=store.vectors.embed)   # dropped: [(candidate, kept one)]

"we have a cat called Pepper" gives the profile slot "User has a cat named Pepper." and the clause
fact "User and Joost have a cat called Pepper."; the person told one thing, so one memory.

Two candidates say the same thing when

1. their **meaning keys** are equal: the set of stemmed content words of the statement, with the
   household subject ("User and Joost", "User's household") read as "User", "called"/"named"/
   "name" as one word, function words dropped and a negation kept as the word "not"
   ("User has a cat named Pepper." and "User and Joost have a cat called Pepper." -> {user, cat,
   name, pepper}); or
2. with an embedder: the MiniLM cosine of the two statements, each with the household subject read
   as "User", is at least ``SAME_COSINE``, **and** they name the same proper nouns, the same numbers
   and agree on negation (so "User lives in Ghent." and "User lives in Antwerp." never merge,
   however close their vectors). ``SAME_COSINE`` was calibrated on the pairs of candidates of the
   dev capture sets (``tools/calibrate_capture_dedupe.py``; the held-out set is never read).

Of two that say the same thing, the more specific is kept: a profile slot over a plain fact (the
slot is what answers and truth over time use), else the one with more content words (a superset
says more), else the first (rules come before the LLM: the more trusted extractor).

Pure apart from the ``embed`` function passed in.
"""

from __future__ import annotations

import math
import re
from typing import Callable, Sequence, TypeVar

from assistant.memory.capture.validate import STOPWORDS, numbers, proper_nouns, stem, words

# Calibrated on the 136 candidate pairs of the 496 dev messages (tools/calibrate_capture_dedupe.py):
# the closest pair that says two things is "User is a vegan." / "User is a vegan runner." (0.890),
# the one same statement above it "User is vegan." / "User is vegan btw." (0.942).
SAME_COSINE = 0.92
_NEGATION = frozenset("not no never don't doesn't didn't isn't wasn't aren't weren't won't can't cannot hasn't haven't hadn't nor".split())
_SAME_WORD = {"call": "name", "nam": "name", "name": "name"}  # stems of called / named / name
_HOUSEHOLD = re.compile(r"\bUser and [A-Z][\w'’-]+|\bUser['’]s household\b")

C = TypeVar("C")
Embed = Callable[[list[str]], Sequence[Sequence[float]]]


def plain(text: str) -> str:
    """The statement with the household subject read as the person ("User and Joost have" ->
    "User have"; the verb's number does not matter to the key)."""
    return _HOUSEHOLD.sub("User", text)


def key(text: str) -> frozenset[str]:
    """The meaning key of a statement (rule 1 of the module docstring)."""
    out = set()
    for w in words(plain(text)):
        f = w.casefold().replace("’", "'")
        if f in _NEGATION:
            out.add("not")
        elif f not in STOPWORDS:
            s = stem(w)
            out.add(_SAME_WORD.get(s, s))
    return frozenset(out)


def _anchors(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    t = plain(text)
    return (frozenset(w.casefold() for w in proper_nouns(t)), frozenset(numbers(t)),
            any(w.casefold().replace("’", "'") in _NEGATION for w in words(t)))  # fmt: skip


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def same(a: str, b: str, cos: float | None = None) -> bool:
    """Whether two statements say the same thing (rules 1 and 2 of the module docstring);
    ``cos``: their cosine, when an embedder is there."""
    if key(a) == key(b):
        return True
    return cos is not None and cos >= SAME_COSINE and _anchors(a) == _anchors(b)


def _rank(text: str, slot: str | None) -> tuple[int, int]:
    return (slot is not None, len(key(text)))


def one_each(cands: Sequence[C], *, text: Callable[[C], str] = lambda c: c.text,  # type: ignore[attr-defined]
             slot: Callable[[C], str | None] = lambda c: c.slot, embed: Embed | None = None) -> tuple[list[C], list[tuple[C, C]]]:  # type: ignore[attr-defined]  # fmt: skip
    """``cands`` with each statement kept once, in their order, and the dropped ones with the one
    kept in their place. ``embed``: MiniLM (or any) sentence vectors for rule 2; without it only
    rule 1 applies."""
    items = list(cands)
    if len(items) < 2:
        return items, []
    vecs = None
    if embed is not None:
        try:
            vecs = list(embed([plain(text(c)) for c in items]))
        except Exception:  # noqa: BLE001 - rule 2 is optional: rule 1 still applies
            vecs = None
    winner = list(range(len(items)))  # index of the candidate that stands for each one
    for j in range(1, len(items)):
        for i in range(j):
            if winner[i] != i:
                continue
            cos = cosine(vecs[i], vecs[j]) if vecs is not None else None
            if not same(text(items[i]), text(items[j]), cos):
                continue
            if _rank(text(items[j]), slot(items[j])) > _rank(text(items[i]), slot(items[i])):
                for k in range(j):
                    if winner[k] == i:
                        winner[k] = j
            else:
                winner[j] = i
            break
    kept = [c for n, c in enumerate(items) if winner[n] == n]
    dropped = [(c, items[winner[n]]) for n, c in enumerate(items) if winner[n] != n]
    return kept, dropped
