"""Phrasing shared by the extractors: first person -> third person ("I live in Lyon" -> "User lives in
Lyon"), and the finishing of a fact's text. Pure: no I/O."""

from __future__ import annotations

import re

from assistant.memory.language.cues import PERSON

# ----------------------------------------------------------------------------- third person

_APOS = "['’]"
_ADVERBS = frozenset(
    "also just recently now still currently actually really finally already officially usually often "
    "sometimes never always mostly totally absolutely definitely even only probably".split()
)
_VERB_FIXED = {
    "am": "is", "have": "has", "do": "does", "go": "goes", "don't": "doesn't", "don’t": "doesn’t",
    "haven't": "hasn't", "haven’t": "hasn’t", "was": "was", "wasn't": "wasn't", "wasn’t": "wasn’t",
}  # fmt: skip
_INVARIANT = frozenset(
    """can could will would shall should may might must did didn't didn’t can't can’t cannot won't won’t
    wouldn't wouldn’t couldn't couldn’t shouldn't shouldn’t went got had made took bought saw met ran came
    left found felt gave told thought knew lost won began became brought built sold spent kept held drove
    flew ate wrote broke chose fell forgot grew hurt put quit set sat stood taught understood woke wore paid
    said slept swam sang spoke threw read let cut hit shut lit led fed meant sent lent bent dealt dug hung
    heard""".split()
)
_PARTICIPLE_HINT = re.compile(r"(?:ed|en|been|gone|done|had|got|made|seen|known)$", re.I)
_FIRST_PERSON = re.compile(
    r"\b(?P<i>[Ii])" + _APOS + r"(?P<c>m|ve|ll|d)\b(?P<rest>\s+\w+)?"
    r"|\b(?P<ii>[Ii])\b(?P<advs>(?:\s+(?:" + "|".join(sorted(_ADVERBS)) + r"))*)(?P<sp>\s+)(?P<verb>[\w’']+)"
    r"|\b(?P<poss>[Mm]y|[Mm]ine)\b|\b(?P<obj>[Mm]e|[Mm]yself)\b|\b(?P<lone>I)\b"
)


def conjugate(verb: str) -> str:
    """Third-person singular of a present-tense verb ("live" -> "lives"); other forms unchanged."""
    low = verb.lower()
    if low in _VERB_FIXED:
        return _VERB_FIXED[low]
    if low in _INVARIANT or low.endswith(("ed", "n't", "n’t")) or not low.isalpha() or len(low) < 2:
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str, household: str = "User's household") -> str:
    """Rewrite a first-person statement about the person as a statement about "User"
    ("I live in Lyon and my sister visits me" -> "User lives in Lyon and User's sister visits User").
    The marker ``WE`` (:mod:`assistant.memory.language.clauses`: "we"/"us" resolved) becomes
    ``household`` ("User and Joost", or "User's household")."""
    text = re.sub(r"\bWE\b", household, text)

    def sub(m: re.Match) -> str:
        if m["i"]:
            c, rest = m["c"].lower(), m["rest"] or ""
            if c == "d":
                nxt = rest.strip()
                aux = "had" if nxt and _PARTICIPLE_HINT.search(nxt) else "would"
                return f"User {aux}{rest}"
            return "User " + {"m": "is", "ve": "has", "ll": "will"}[c] + rest
        if m["ii"]:  # "Tom and I run ...": a plural subject keeps its verb
            plural = re.search(r"(?:\b[A-Z][\w'’-]*|\b" + PERSON + r"|^\s*[^\W\d_][\w'’-]*)\s+(?:and|&)\s*$", m.string[: m.start()]) is not None
            return f"User{m['advs']}{m['sp']}{m['verb'] if plural else conjugate(m['verb'])}"
        if m["poss"]:
            return "User's"
        if m["obj"] or m["lone"]:
            return "User"
        return m.group(0)

    return _FIRST_PERSON.sub(sub, text)


def finish(text: str) -> str:
    """Trim, drop trailing emphasis, end with a period."""
    t = " ".join(text.split()).strip(" ,;:-–—")
    t = re.sub(r"[!]+$", "", t).rstrip()
    if t and t[-1] not in ".?":
        t += "."
    return t


