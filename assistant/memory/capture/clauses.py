"""Cut a statement into clauses and resolve its pronouns, so that each clause stands on its own.

    [c.text for c in clauses("My partner Joost is a carpenter, and we have a cat called Pepper.")]
    # ["My partner Joost is a carpenter", "we have a cat called Pepper"]

Splitting follows clause structure, not phrase lists (English, Spanish, Portuguese, German,
French, Chinese):

1. ``;`` / ``；`` always end a clause;
2. a coordinator (and, but, so, while, y, e, pero, mas, und, aber, et, mais, 而且, 但是 ...) starts a
   new clause when a comma comes before it, or when a *subject* follows it (a personal pronoun or
   possessive: I, we, he, my, our, mi, nuestra, wir, unser, nous, notre, nós, 我 ...; or a
   capitalised name followed by a lower-case word: "and Ana loves jazz");
3. a comma followed directly by a subject starts a new clause (the comma splice "I'm 34, my wife
   is 35"), unless the clause before it is subordinate ("When I was young, I lived in Lyon");
4. a relative clause on a name ("my sister Ana, who lives in Porto, is a nurse"; who, que, qui,
   der/die) becomes its own clause with the name as subject ("Ana lives in Porto"), and is cut
   out of the clause it sits in ("my sister Ana is a nurse").

Each :class:`Clause` keeps ``text`` (``message[start:end]`` verbatim: the source span) and
``resolved``, the clause with its pronouns resolved (English):

- ``our``/``ours`` -> ``my``/``mine`` (our daughter is the person's daughter), ``we``/``us`` -> the
  marker ``WE`` (the person and their household: :func:`assistant.memory.capture.rules.third_person`
  writes it as "User and <partner>" when the message names one partner, else "User's household");
- ``he/she/they`` (and him/his/her/them/their) -> the one person named in the same or the previous
  sentence, when exactly one was named there (never a guess between two names); otherwise left,
  and a fact with a pronoun left is rejected by the validator;
- a clause that opens with a relation and a name ("My partner Joost is a carpenter") is about the
  name: ``resolved`` = "Joost is a carpenter" (the relation itself is a profile fact of its own).

Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from assistant.memory.capture.cues import OWN_NAME, PERSON

WE = "WE"  # marker for the person and their household (see the module docstring)


@dataclass(frozen=True)
class Clause:
    text: str  # verbatim: message[start:end]
    start: int
    end: int
    resolved: str  # pronouns resolved (see the module docstring)
    sentence: int  # index of the sentence it belongs to
    relation: tuple[str, str, str] | None = None  # ("My partner Joost", "partner", "Joost") it opens with


_SUBJ_EN = r"(?:I|I['’](?:m|ve|d|ll)|we|we['’](?:re|ve|d|ll)|he|he['’]s|she|she['’]s|they|they['’](?:re|ve)|my|our|his|her|their)"
_SUBJ_INTL = (r"(?:yo|mi|mis|nuestr[oa]s?|él|ella|ellos|ellas|tengo|tenemos|vivimos|vivo|trabajo|trabaja|es|somos|estamos"
              r"|eu|meu|minha|meus|minhas|noss[oa]s?|ele|ela|eles|elas|temos|moramos|moro|sou|tenho"
              r"|ich|wir|er|sie|mein|meine|meinen|meinem|unser|unsere|unseren|unserem"
              r"|je|j['’]|nous|il|elle|ils|elles|mon|ma|mes|notre|nos)")
SUBJECT = r"(?:(?i:" + _SUBJ_EN + r"|" + _SUBJ_INTL + r")(?=[\s,']|$)|[A-Z][\w'’-]+\s+[a-z])"
COORD = r"(?:and(?: then| also)?|but|so|while|whereas|plus|y|e|pero|mas|mais|aber|und|sondern|doch|et|donc|então|así que)"
_SPLIT = re.compile(
    r"\s*[;；]\s*"
    r"|\s*,\s*(?i:" + COORD + r")\s+"
    r"|\s+(?i:" + COORD + r")\s+(?=" + SUBJECT + r")"
    r"|\s*,\s*(?=" + SUBJECT + r")"
    r"|\s*，\s*(?:而且|并且|但是|可是|所以|不过)?\s*(?=我|他|她|我们|他们|她们)"
    r"|\s*，\s*(?:而且|并且|但是|可是|所以|不过)\s*"
)
_SUBORDINATE = re.compile(r"^(?:if|when|whether|because|since|although|though|unless|while|once|before|after|as soon as"
                          r"|even if|in case|si|cuando|wenn|als|falls|ob|quand|lorsque|se|quando|como|como|如果|要是|当)\b", re.I)
_RELATIVE = re.compile(r"(?P<name>\b[A-Z][\w'’-]+),?\s+(?:who|que|qui|der|die)\s+(?P<rest>[^,;]+?)(?=\s*(?:,|;|$))")
_SENT = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_TRIM = " \t\n,;:，；：—–-.!?。！？"


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s] in _TRIM:
        s += 1
    while e > s and text[e - 1] in _TRIM:
        e -= 1
    return s, e


def _split(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """(start, end) of the clauses of ``text[s:e]`` by rules 1-3 of the module docstring."""
    out: list[tuple[int, int]] = []
    start = s
    for m in _SPLIT.finditer(text, s, e):
        head = text[start:m.start()]
        if not re.search(r"\w", head) or m.end() >= e:
            continue
        if m.group().strip() == "," and _SUBORDINATE.match(head.strip()):
            continue  # "When I was young, I lived in Lyon": one clause
        if len(head.split()) < 2 and not re.search(r"[\u4e00-\u9fff]", head):
            continue  # "Yes, I ..." / "Well, we ...": a filler, not a clause
        out.append((start, m.start()))
        start = m.end()
    out.append((start, e))
    return [t for t in (_trim(text, a, b) for a, b in out) if t[0] < t[1]]


# ----------------------------------------------------------------------------- resolution

_REL_NAME = re.compile(r"^(?P<np>(?i:my|our)\s+(?P<rel>(?:[\w'’-]+\s+){0,2}?(?i:" + PERSON[3:-1] + r"))(?:,)?\s+"
                       r"(?P<name>[A-Z][\w'’-]+))(?:,)?\s+(?=[a-z])")
# "Mi pareja Joost es ...", "Mein Mann Tariq ist ...", "Ma sœur Ana est ...", "Minha filha Leila tem ..."
_REL_NAME_INTL = re.compile(r"^(?P<np>(?i:mi|mis|nuestr[oa]s?|mein|meine|meinen|unser|unsere|mon|ma|mes|notre|nos|meu|minha"
                            r"|meus|minhas|noss[oa]s?)\s+(?P<rel>[\w-]+)(?:,)?\s+(?P<name>[A-Z][\w'’-]+))(?:,)?\s+(?=[a-zà-ÿ])")
_OUR = re.compile(r"\b([Oo])ur(s?)\b")
_WE = re.compile(r"\b(?:[Ww]e|us)\b(?!['’])|\b[Ww]e(?=['’])")
_WE_CONTR = re.compile(r"\bWE['’](re|ve|d|ll)\b")
_HE = re.compile(r"\b(?P<w>[Hh]e|[Ss]he|[Tt]hey|him|his|her|them|their)\b(?P<c>['’](?:s|re|ve|ll|d)\b)?")
_THEY_VERB = {"are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't", "don’t": "doesn’t"}


def _names_in(text: str, names: set[str]) -> list[str]:
    """People named in ``text``: known names and "my sister Ana" names, in order of appearance."""
    found = [(m.start("name"), re.sub(r"['’]s$", "", m["name"])) for m in OWN_NAME.finditer(text)]
    found += [(m.start("name"), m["name"]) for m in re.finditer(_REL_NAME_INTL.pattern[1:], text)]
    for n in names:
        for m in re.finditer(r"\b" + re.escape(n) + r"\b", text):
            found.append((m.start(), n))
    return list(dict.fromkeys(n for _, n in sorted(found)))


def people(text: str, known: Iterable[str] = ()) -> set[str]:
    """The person's own people and pets named in ``text`` ("my partner Joost", "mi pareja Joost"),
    plus the ``known`` names that occur in it."""
    return set(_names_in(text, set(known)))


def _resolve_third(text: str, name: str | None) -> str:
    """he/she/they (and their other forms) -> ``name``; unchanged when there is no single name."""
    if name is None:
        return text

    def sub(m: re.Match) -> str:
        w, c = m["w"].lower(), (m["c"] or "").lower().replace("’", "'")
        after = text[m.end():m.end() + 20]
        if w in ("his", "their") or (w == "her" and re.match(r"\s+[a-z]", after) and not re.match(r"\s+(?:to|at|in|on|for|with|and|a|an|the)\b", after)):
            return f"{name}'s"
        if c in ("'re",):
            return f"{name} is"
        if c in ("'ve",):
            return f"{name} has"
        if c == "'ll":
            return f"{name} will"
        if c in ("'s", "'d"):
            return f"{name}{m['c']}"
        return name

    out = _HE.sub(sub, text)
    # "Ana have" -> "Ana has": a verb right after a resolved "they"
    return re.sub(r"\b(" + re.escape(name) + r")\s+(are|were|have|do|don['’]t)\b", lambda m: f"{m[1]} {_THEY_VERB[m[2]]}", out) \
        if re.search(r"\b[Tt]hey\b", text) else out


def relation(text: str) -> tuple[str, str, str] | None:
    """The relation and name a clause opens with: ("My partner Joost", "partner", "Joost")."""
    rel = _REL_NAME.match(text) or _REL_NAME_INTL.match(text)
    return (rel["np"], rel["rel"], rel["name"]) if rel else None


def resolve(text: str, name: str | None) -> str:
    """One clause with its pronouns resolved (see the module docstring)."""
    t = _OUR.sub(lambda m: ("M" if m[1] == "O" else "m") + ("ine" if m[2] else "y"), text)
    t = _WE.sub(WE, t)
    t = _WE_CONTR.sub(lambda m: f"{WE} " + {"re": "are", "ve": "have", "d": "had", "ll": "will"}[m[1].lower()], t)
    rel = _REL_NAME.match(t) or _REL_NAME_INTL.match(t)
    if rel:
        t = rel["name"] + " " + t[rel.end():]
    return _resolve_third(t, name)


def clauses(text: str, known_names: Iterable[str] = ()) -> list[Clause]:
    """The clauses of ``text`` in order, each with its pronouns resolved."""
    names = set(known_names)
    out: list[Clause] = []
    previous: list[str] = []
    for i, sm in enumerate(_SENT.finditer(text)):
        s, e = _trim(text, sm.start(), sm.end())
        if s >= e:
            continue
        sentence = text[s:e]
        here = _names_in(sentence, names)
        names.update(here)
        pieces: list[tuple[int, int, str | None]] = []  # (start, end, subject name of a relative clause)
        for a, b in _split(text, s, e):
            rel = _RELATIVE.search(text, a, b)
            if rel and rel["name"] in names | set(here):
                pieces.append((a, rel.end("name"), None))
                pieces.append((rel.start("rest"), rel.end("rest"), rel["name"]))
                tail = _trim(text, rel.end(), b)
                if tail[0] < tail[1]:
                    pieces.append((tail[0], tail[1], None))  # "..., is a nurse": rejoined below
            else:
                pieces.append((a, b, None))
        candidates = here or previous
        single = candidates[0] if len(candidates) == 1 else None
        k = 0
        while k < len(pieces):
            a, b, subject = pieces[k]
            if subject is None and k + 2 < len(pieces) and pieces[k + 1][2] is not None and pieces[k + 2][2] is None \
                    and re.match(r"^(?:is|was|has|had|lives|works|will)\b", text[pieces[k + 2][0]:pieces[k + 2][1]]):
                main = f"{text[a:b]} {text[pieces[k + 2][0]:pieces[k + 2][1]]}"  # "my sister Ana" + "is a nurse"
                out.append(Clause(main, a, pieces[k + 2][1], resolve(main, single), i, relation(main)))
                r = pieces[k + 1]
                out.append(Clause(text[r[0]:r[1]], r[0], r[1], resolve(f"{r[2]} {text[r[0]:r[1]]}", single), i))
                k += 3
                continue
            body = text[a:b]
            resolved = resolve(f"{subject} {body}" if subject else body, single)
            out.append(Clause(body, a, b, resolved, i, None if subject else relation(body)))
            k += 1
        previous = here or previous
    return out
