"""Checking the model's reply against the memory answer (:mod:`.answer`): does it say the
answer, contradict it, or say it does not know? Pure; no I/O.

The answer's *key terms* are the memory's words the question did not already contain; its
*strong* terms are the names and numbers among them (capitalised words not starting a sentence,
digits). The reply contains the answer (:func:`contains`) when it has every number and at least
one name among the strong terms (half of them when there are more than two: a whole message
quoted names many things), or, without strong terms, at least half of the key terms, none
of them negated ("not green"). It **contradicts** the answer (:func:`judge`) when it does not
contain it and instead says something about the same thing: a sentence that names the
question's focus without the answer ("Your job is a medical doctor."), negates a key term, or
says it does not know (:func:`abstains`).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from assistant.memory.retrieval.aliases import aliases_of, names_in
from assistant.memory.retrieval.answer import MemoryAnswer, ReplyCheck, _pool
from assistant.memory.retrieval.answerable import question_names
from assistant.memory.retrieval.held import about_whom
from assistant.memory.retrieval.questions import speaks_of_self
from assistant.memory.retrieval.terms import _covered, _terms, focus, same_word, words
from assistant.memory.retrieval.perspective import first_to_second

#: Code's own refusals (:mod:`assistant.answering` shows them): their wording is what a small
#: model copies into later turns, so they never reach the history it sees (issue 28.5).
UNKNOWN = "I don't know that yet: you haven't told me, and I have no memory of it."
UNKNOWN_RELATED = "I'm not sure: nothing I remember answers that. The memories I looked at are listed under this reply."
#: Shown when the model's reply was empty after the guard, or repeated an earlier reply word for word.
EMPTY = "Sorry, I don't have a good answer to that. Could you rephrase it?"
#: The same, when the person told something (a statement) or greeted: nothing was asked to rephrase.
ACK = "Thanks for telling me."
GREETING = "Hello! What can I do for you?"
CODE_REFUSALS = (UNKNOWN, UNKNOWN_RELATED, EMPTY)
CODE_FILLERS = (EMPTY, ACK, GREETING)
REPEAT_MIN_CHARS = 24  # "You're welcome!" may come twice; a paragraph may not
REPEAT_SIMILARITY = 92.0  # rapidfuzz ratio (0-100) of the normalised texts


def repeats(reply: str, earlier: Sequence[str], min_chars: int = REPEAT_MIN_CHARS) -> bool:
    """``reply`` says again what an earlier reply of the conversation said: its normalised text
    (casefolded, white space folded) is at least :data:`REPEAT_MIN_CHARS` long and
    ``fuzz.ratio >= REPEAT_SIMILARITY`` with one of ``earlier``. A small model copies its previous
    answer into every later turn ("Ze klok och klok! Welcome to Antwerp! ..." six times)."""
    from rapidfuzz import fuzz

    norm = " ".join(reply.casefold().split())
    if len(norm) < min_chars:
        return False
    return any(fuzz.ratio(norm, " ".join(e.casefold().split())) >= REPEAT_SIMILARITY for e in earlier if e)

def says_nothing(reply: str) -> bool:
    """``reply`` has no word of three letters or more in any script ("M2", "...", "2)"): the
    small model's stub after a question in another language, which no one can read as an answer."""
    return re.search(r"[^\W\d_]{3,}", reply) is None and re.search(r"[\u3400-\u9fff]", reply) is None


_NEGATION = re.compile(r"\b(?:not|no|never|n't|nor|isn['’]t|aren['’]t|don['’]t|doesn['’]t|wasn['’]t|weren['’]t)\b", re.I)
_ABSTAIN = re.compile(
    r"\b(?:i\s+(?:do\s+not|don['’]t|really\s+don['’]t)\s+(?:know|have|remember|recall)|not\s+sure|no\s+(?:information|idea|record|memory)"
    r"|(?:haven['’]t|have\s+not|never)\s+(?:told|mentioned|said|shared)|not\s+(?:been\s+)?mentioned|can(?:not|['’]t)\s+(?:recall|find|tell)"
    r"|(?:unable|not\s+able)\s+to\s+(?:find|provide|determine|know|tell|recall|access)|i['’]m\s+not\s+aware|don['’]t\s+know"
    r"|no\s+way\s+(?:of|to)\s+know(?:ing)?|i\s+do\s+not\s+know"
    # a small model's evasions: "as a text-based AI, I don't have personal experiences ..."
    r"|\bas\s+an?\s+(?:[\w-]+\s+){0,2}(?:ai|model|assistant|chatbot)\b|i\s+(?:do\s+not|don['’]t)\s+have\s+(?:access|personal|real-time|the\s+ability))",
    re.I,
)


def _negated(term: str, text: str) -> bool:
    """``term`` occurs in ``text`` only right after a negation ("not green", "isn't a nurse")."""
    found = False
    for m in re.finditer(r"[^\W_]+(?:['’][^\W_]+)*|\d+(?::\d+)?", text):
        if not same_word(m.group(0), term):
            continue
        found = True
        window = text[max(0, m.start() - 30) : m.start()]
        if not _NEGATION.search(window.split(",")[-1].split(".")[-1]):
            return False
    return found


def abstains(reply: str) -> bool:
    """The reply says it does not know, in its first two sentences: "The obvious answer is
    blue ... I'm not sure about the rest" states something and only hedges at the end."""
    opening = " ".join(re.split(r"(?<=[.!?])\s+", reply.strip(), maxsplit=2)[:2])
    return bool(_ABSTAIN.search(opening))


def contains(reply: str, answer: MemoryAnswer) -> bool:
    rw = words(reply)
    if answer.strong_terms:
        present = [t for t in answer.strong_terms if _phrase_in(t, rw)]
        numbers = [t for t in answer.strong_terms if t[0].isdigit()]
        names = [t for t in answer.strong_terms if not t[0].isdigit()]
        # one name of one or two; of a message naming many, half of them ("The town is called Kirchhain." says
        # one of six names of the message about the move to Naumburg: not the answer)
        need = 1 if len(names) <= 2 else (len(names) + 1) // 2
        ok = all(t in present for t in numbers) and (not names or sum(t in present for t in names) >= need)
    else:
        present = [t for t in answer.key_terms if _covered(t, rw)]
        ok = 2 * len(present) >= len(answer.key_terms)
    return ok and not any(_negated(t, reply) for t in present)


def _phrase_in(term: str, reply_words: Sequence[str]) -> bool:
    return term in reply_words or (not term.isdigit() and _covered(term, reply_words))


def judge(reply: str, answer: MemoryAnswer, question: str) -> ReplyCheck:
    """Does the reply say the memory answer, or contradict it (see the module docstring)?"""
    if contains(reply, answer):
        return ReplyCheck(True, False)
    required, optional = focus(question)
    subject = required or optional
    rw = words(reply)
    talks_about_it = any(_covered(s, rw) for s in subject)
    negates = any(_negated(t, reply) for t in answer.key_terms)
    return ReplyCheck(False, talks_about_it or negates or abstains(reply))


_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*\s*|\n+")
_FIRST_PERSON_START = re.compile(r"^\s*(?:I\b|I['’](?:m|ve|ll|d)\b|My\b)")


def address_person(reply: str, answer: MemoryAnswer) -> str:
    """Sentences that give the answer in the person's voice ("I'm a nurse.", the model speaking
    as the person it read about) turned to the person ("You're a nurse."), unless that repeats a
    sentence before it; the rest unchanged."""
    terms = answer.strong_terms or answer.key_terms
    out, seen, dropped = [], set(), False
    for m in _SENTENCE.finditer(reply):
        s = m.group(0)
        if _FIRST_PERSON_START.match(s) and any(_covered(t, words(s)) for t in terms):
            s = first_to_second(s)
            if _said(s) in seen:  # "You are allergic to shellfish. I'm allergic to shellfish." says it once
                dropped = True
                continue
        seen.add(_said(s))
        out.append(s)
    return "".join(out).strip() if dropped else "".join(out)


def _said(sentence: str) -> str:
    return " ".join(words(re.sub(r"\byou\s+are\b", "you're", sentence, flags=re.I)))


def grounded(reply: str, hits: Sequence[Any], question: str) -> bool:
    """The reply names something (a name, number or other word the question did not contain)
    from an injected memory that is about what the question asks ("my grandmother's name" is not
    answered from "User's name is Dana Reis.": ``grandmother`` is not in it) and, for a question
    about someone named, about them ("When is Tom's birthday?" is not grounded by Mum's), by what
    its clauses say of them (:func:`~.held.about_whom`)."""
    rw = words(reply)
    required, _ = focus(question)
    # "When is Tom's birthday?": only a memory about Tom (by name or by the relation he is) grounds it, not Mum's birthday
    whom = [] if speaks_of_self(question) else list(question_names(question))
    aliases = aliases_of(hits) if whom else {}
    for h in hits:
        if required and not all(_covered(r, _pool(h.memory)) for r in required):
            continue
        if whom and not any(names_in(n, h.memory.text) or (n in aliases and _covered(aliases[n], words(h.memory.text))) for n in whom):
            continue
        # of a message naming them, only what is said of them: "Jonas is 47 years old." is not grounded by "I'm
        # Matilde, I turned 47 ... My husband Jonas is a piano tuner" (the 47 is hers)
        key, strong = _terms(about_whom(h.memory.text, question) if whom else h.memory.text, question)
        if any(_phrase_in(t, rw) for t in strong or key):
            return True
    return False
