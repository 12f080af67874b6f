"""Memory text seen from the person's side: "User lives in Porto." -> "I live in Porto." / "You live in Porto."

Capture stores memories in the third person about "User" (:func:`extract_rules.third_person`).
A small chat model copies a statement more reliably when it already has the right voice, so the
prompt shows the person's memories in the first person (the user turn is the person speaking)
and code-written answers use the second person. Pure string rewriting, no I/O:

- ``User's X`` -> ``my X`` / ``your X``;  ``The user's`` likewise;
- ``User <verb>s`` -> ``I <verb>`` / ``You <verb>`` (``is`` -> ``am``/``are``, ``was`` ->
  ``was``/``were``, ``has`` -> ``have``, ``does``/``doesn't`` -> ``do``/``don't``; past tenses and
  modals unchanged);
- ``User`` elsewhere (an object: "Sam visits User") -> ``me`` / ``you``.

Text that does not mention "User" (an imported "Maya lives in Lisbon.") is returned unchanged.
"""

from __future__ import annotations

import re
from typing import Literal

Voice = Literal["first", "second"]

_PRONOUN = {"first": ("I", "my", "me"), "second": ("you", "your", "you")}
_BE = {"first": {"is": "am", "isn't": "am not", "was": "was", "wasn't": "wasn't"},
       "second": {"is": "are", "isn't": "aren't", "was": "were", "wasn't": "weren't"}}  # fmt: skip
_FIXED = {"has": "have", "hasn't": "haven't", "does": "do", "doesn't": "don't", "goes": "go"}
_TAIL = (r"\b(?P<poss>['’]s)?(?P<advs>(?:\s+(?:also|still|now|currently|usually|often|never|always|just|recently))*)"
         r"(?:\s+(?P<verb>[A-Za-z’']+))?")
_SUBJECT = re.compile(r"(?:[Tt]he\s+)?[Uu]ser" + _TAIL)
# only the memory convention ("User", "the user's"), never "the user interface"
_CAPITAL = re.compile(r"\b(?:[Tt]he\s+user(?=['’]s)|User)" + _TAIL)


def base_form(verb: str) -> str:
    """The plain present form of a third-person singular verb ("lives" -> "live",
    "studies" -> "study", "watches" -> "watch"); anything else unchanged ("ran", "can")."""
    low = verb.lower().replace("’", "'")
    if low in _FIXED:
        out = _FIXED[low]
    elif len(low) > 4 and low.endswith("ies"):
        out = low[:-3] + "y"
    elif low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        out = low[:-2]
    elif len(low) > 2 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        out = low[:-1]
    else:
        return verb
    return out


def _capital(word: str) -> str:
    return word[:1].upper() + word[1:]


def rewrite(text: str, voice: Voice = "first", *, capital_only: bool = False) -> str:
    """``text`` with "User" replaced by the person in ``voice`` (see the module docstring).
    ``capital_only``: only the capitalised "User" (for a model's reply that copied the memory
    wording: "Dana Reis, User's name" -> "Dana Reis, your name")."""
    subj, poss, obj = _PRONOUN[voice]

    def sub(m: re.Match) -> str:
        start = m.start() == 0 or text[: m.start()].rstrip().endswith((".", "!", "?", ":", "\n"))
        advs, verb = m["advs"] or "", m["verb"]
        if m["poss"]:
            word = poss
            tail = advs + (f" {verb}" if verb else "")
        elif verb is not None and _is_verb_after_subject(m, text):
            low = verb.lower().replace("’", "'")
            if low in _BE[voice]:
                new = _BE[voice][low]
            else:
                new = base_form(verb)
            word, tail = subj, f"{advs} {new}"
        else:
            word = obj if not start else subj
            tail = advs + (f" {verb}" if verb else "")
        if start or word == "I":
            word = _capital(word)
        return word + tail

    out = (_CAPITAL if capital_only else _SUBJECT).sub(sub, text)
    # "User asked to remember that ..." (remember commands): say who asked whom.
    other = "you" if voice == "first" else "me"
    return re.sub(r"\b(I|You|you) asked to remember\b", lambda m: f"{m[1]} asked {other} to remember", out)


def _is_verb_after_subject(m: re.Match, text: str) -> bool:
    """"User" is the subject when it starts a clause (text start, after punctuation or a
    conjunction such as "and"/"that"/"because")."""
    before = text[: m.start()].rstrip()
    if not before or before.endswith((".", "!", "?", ",", ";", ":", "\n")):
        return True
    last = before.split()[-1].lower()
    return last in {"and", "but", "that", "because", "so", "when", "while", "where", "since", "if", "or"}


_FIRST_TO_SECOND = (
    (r"\bI['’]m\b", "you're"), (r"\bI am\b", "you are"), (r"\bI was\b", "you were"), (r"\bI['’]ve\b", "you've"),
    (r"\bI['’]ll\b", "you'll"), (r"\bI['’]d\b", "you'd"), (r"\bI\b", "you"), (r"\bmyself\b", "yourself"),
    (r"\bmine\b", "yours"), (r"\bmy\b", "your"), (r"\bMy\b", "Your"), (r"\bme\b", "you"),
)  # fmt: skip


def first_to_second(sentence: str) -> str:
    """A first-person sentence addressed back to the person ("I'm a nurse and my dog is Poppy."
    -> "You're a nurse and your dog is Poppy.")."""
    out = sentence
    for pattern, repl in _FIRST_TO_SECOND:
        out = re.sub(pattern, repl, out)
    lead = len(out) - len(out.lstrip())
    return out[:lead] + _capital(out[lead:])
