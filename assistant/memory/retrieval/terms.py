"""The words of questions and memories that memory answers compare (:mod:`.answer`,
:mod:`.reply_check`): a light stem, same-word matching, the question's focus ("my X") and a
memory's key and strong terms. Pure; no I/O. The word lists are :mod:`.vocabulary`'s.

- :func:`same_word`: equal after :func:`stem` (dropping -s/-es/-ies/-ied/-ing/-ed), sharing
  their first :data:`PREFIX` letters, :data:`~.vocabulary.SYNONYMS`, or one typo apart;
- :func:`focus`: (required, optional): the head of the first "my/our <thing>" (plus the
  attribute after a possessive: "my car's licence plate" -> car, licence, plate), and the other
  content words;
- :func:`_terms`: a memory's *key* terms (its words the question does not contain) and *strong*
  terms (the names and numbers among them: capitalised words not starting a sentence, digits).
"""

from __future__ import annotations

import re
from typing import Sequence

from rapidfuzz.distance import Levenshtein

from assistant.memory.language.validate import STOPWORDS
from assistant.memory.retrieval.vocabulary import GENERIC, MODIFIERS as _MODIFIERS, QUESTION_WORDS as _QUESTION_WORDS
from assistant.memory.retrieval.vocabulary import SYNONYMS, VALUE_WORDS

#: Modifiers of "my X" that ask for another X than today's ("my first car", "my previous job").
THEN = frozenset("first former previous childhood".split())
#: "What's", "It's": a contraction, not an owner.
_CONTRACTED = frozenset("what who where when how why that it there here she he let".split())
PREFIX = 6  # "allergy"/"allergic" share "allerg"
TYPO_MIN = 6  # shorter words one letter apart are often other words ("cat"/"car", "house"/"horse")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\d+(?::\d+)?", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.casefold().replace("’", "'") for w in _WORD.findall(text)]


#: Irregular past forms and their verb: a closed class ("Where did I buy the Vespa?" / "... I bought
#: off an old guy in Braga").
IRREGULAR = {p: v for v, forms in {
    "buy": "bought", "sell": "sold", "go": "went gone", "meet": "met", "take": "took taken", "get": "got gotten",
    "make": "made", "see": "saw seen", "give": "gave given", "find": "found", "leave": "left", "teach": "taught",
    "think": "thought", "bring": "brought", "begin": "began begun", "become": "became", "build": "built",
    "choose": "chose chosen", "drive": "drove driven", "eat": "ate eaten", "fall": "fell fallen", "feel": "felt",
    "fly": "flew flown", "forget": "forgot forgotten", "grow": "grew grown", "hear": "heard", "keep": "kept",
    "know": "knew known", "lose": "lost", "pay": "paid", "ride": "rode ridden", "run": "ran", "say": "said",
    "send": "sent", "sing": "sang sung", "sit": "sat", "sleep": "slept", "speak": "spoke spoken", "spend": "spent",
    "swim": "swam swum", "tell": "told", "win": "won", "write": "wrote written", "wear": "wore worn", "break": "broke broken",
}.items() for p in forms.split()}


def stem(word: str) -> str:
    w = word.casefold().replace("’", "'")
    w = re.sub(r"'s$", "", w)
    if w in IRREGULAR:
        return IRREGULAR[w]
    for suffix in ("ies", "ied", "ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix) and not w.endswith("ss"):
            if suffix == "es" and not w[:-2].endswith(_ES_AFTER):  # "lives" -> "live", "boxes" -> "box"
                continue
            return w[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
    return w


_ES_AFTER = ("s", "x", "z", "ch", "sh")  # English adds "-es" (not "-s") after these


_SYNONYM = {w: frozenset(group) for group in SYNONYMS for w in group}


def synonyms(word: str) -> frozenset[str]:
    """The words for the same thing as ``word`` (folded; itself included), from
    :data:`~.vocabulary.SYNONYMS`; empty when it has none."""
    return _SYNONYM.get(word.casefold(), frozenset())


def same_word(a: str, b: str) -> bool:
    """Equal after :func:`stem`, sharing their first :data:`PREFIX` letters, synonyms, or one
    typo apart (Levenshtein distance 1 between words of at least :data:`TYPO_MIN` letters:
    "daugher"/"daughter"). A hyphenated word matches only a hyphenated one ("mother-in-law")."""
    sa, sb = stem(a), stem(b)
    if ("-" in sa) != ("-" in sb):  # "mother-in-law" is not "mother"
        return False
    if sa == sb or (len(sa) >= PREFIX and len(sb) >= PREFIX and sa[:PREFIX] == sb[:PREFIX]):
        return True
    if sb in _SYNONYM.get(sa, ()) or b.casefold() in _SYNONYM.get(a.casefold(), ()):
        return True
    return len(a) >= TYPO_MIN and len(b) >= TYPO_MIN and Levenshtein.distance(a.casefold(), b.casefold(), score_cutoff=1) <= 1


def _covered(term: str, pool: Sequence[str]) -> bool:
    return any(same_word(term, p) for p in pool)


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOPWORDS and w not in GENERIC and w not in _QUESTION_WORDS]


def asked_words(question: str) -> list[str]:
    """The question's content words but those naming the kind of value asked (:data:`~.vocabulary.VALUE_WORDS`:
    "How much did a fiddle lesson cost?" -> fiddle, lesson): the answer is the value, so a memory need not word them."""
    return [w for w in content_words(question) if w not in VALUE_WORDS]


def focus(question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) focus words of a question: ``required`` from the first "my/our <thing>"
    or, without one, "<Name>'s <thing>" (its head word, plus the attribute after a possessive:
    "my car's licence plate" -> ("car", "licence", "plate"); "Mila's teacher" -> ("teacher",)),
    and a modifier that moves it in time ("my first car" -> ("first", "car"): the car of now
    does not answer); ``optional`` the other content words. A hyphenated word is one word
    ("my mother-in-law")."""
    q = question.replace("’", "'")
    toks = re.findall(r"[^\W_]+(?:-[^\W_]+)*(?:'s)?|[?.!,]", q.casefold())
    owners = ["my", "our"]
    if not re.search(r"\b(?:my|our)\b", q, re.I):  # "Mila's teacher": the name owns the thing asked
        owners += [m.group(1).casefold() + "'s" for m in re.finditer(r"(?<!^)(?<![.?!] )\b([A-Z][^\W\d_]+)'s\b", q)
                   if m.group(1).casefold() not in _CONTRACTED]  # fmt: skip
    required: list[str] = []
    for i, tok in enumerate(toks):
        if tok not in owners:
            continue
        j = i + 1
        while j < len(toks) and toks[j] in _MODIFIERS:
            if toks[j] in THEN:
                required.append(toks[j])
            j += 1
        if j >= len(toks) or not toks[j][0].isalnum():
            break
        head = toks[j]
        if head.endswith("'s"):
            required.append(head[:-2])
            for t in toks[j + 1 :]:
                if not t[0].isalnum() or t in STOPWORDS:
                    break
                if t not in GENERIC:
                    required.append(t)
        elif head not in GENERIC and head not in STOPWORDS:
            required.append(head)
        break
    optional = [w for w in content_words(question) if not any(same_word(w, r) for r in required)]
    return tuple(required), tuple(optional)


def owned_phrase(question: str, limit: int = 3) -> str:
    """The whole noun phrase after the question's first "my/our" (up to ``limit`` words, to the
    first stop word): "What did my blood test show?" -> "blood test show"."""
    m = re.search(r"\b(?:my|our)\s+(.*)", question.replace("’", "'"), re.I)
    if not m:
        return ""
    out: list[str] = []
    for t in re.findall(r"[^\W_]+(?:-[^\W_]+)*(?:'s)?|[?.!,]", m.group(1).casefold()):
        if not t[0].isalnum() or (out and t in STOPWORDS) or len(out) >= limit:
            break
        out.append(t)
    return " ".join(out)


def wording(asked: Sequence[str], pools: Sequence[Sequence[str]], msgs: Sequence[frozenset[int]]) -> set[int]:
    """The messages (``msgs[i]``, of the memory whose words are ``pools[i]``) that word every one
    of ``asked`` (none when it is empty): "What am I presenting at the conference?" -> the one
    message with "presenting" and "conference"."""
    return {m for pool, ms in zip(pools, msgs) if asked and all(_covered(w, pool) for w in asked) for m in ms}


def _terms(text: str, question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(key, strong) terms of a memory text for this question (see the module docstring)."""
    qwords = words(question)
    key: list[str] = []
    strong: list[str] = []
    for m in re.finditer(r"[^\W_]+(?:['’][^\W_]+)*|\d+(?::\d+)?", text):
        raw = m.group(0)
        w = raw.casefold().replace("’", "'")
        w = re.sub(r"'s$", "", w)
        if w in STOPWORDS or w in GENERIC or w == "user" or _covered(w, qwords):
            continue
        if w not in key:
            key.append(w)
        before = text[: m.start()].rstrip()
        initial = not before or before.endswith((".", "!", "?", ":"))
        if (raw[0].isupper() and not initial) or raw[0].isdigit():
            if w not in strong:
                strong.append(w)
    return tuple(key), tuple(strong)
