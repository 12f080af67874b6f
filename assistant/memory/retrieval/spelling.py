"""A question's typos, corrected against the words of the person's memories (issue 28: a third
of questions are typed fast). MiniLM reads "what am i alergic to" far from "User is allergic to
shellfish." (0.37 against 0.97 spelled right): its word pieces differ. Pure; the retriever
supplies the memory index's terms and their row counts.

A word of the question is corrected when it has at least :data:`MIN_LETTERS` letters, no
memory contains it, it is no known English word (the English side of the gloss lexicons), and
no word of another capture language's lexicon ("Quando" is not a typo of "quand"), and
exactly one most frequent memory term is one edit away (optimal string alignment distance 1: a
Levenshtein edit or two letters swapped, "freida" -> "frieda") and starts with
the same letter: "alergic" -> "allergic", "daugher" -> "daughter". A shorter word (3-5 letters:
one letter turns it into another word, "cat"/"car") is corrected only typed in lower case, when the
embedder does not know it whole either (:func:`single_token`, the retriever asks its embedder) and
the edit is a slip of the hand -- a letter left out, doubled, two swapped, a neighbouring key
("rnet" -> "rent", "bos" -> "boss"; :func:`_short`). The other way round too: a known
English word no memory contains is read as the memories spell it when exactly one memory term one
edit away is no known word (a typo kept in a memory: "what am i allergic to" / "User is alergic to
penicilin.").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Callable, Mapping

from rapidfuzz import process
from rapidfuzz.distance import OSA

from assistant.memory.language.casual import question_word  # noqa: F401 (read as spelling.question_word)
from assistant.memory.language.gloss import english_words, lexicon_words
from assistant.memory.retrieval.vocabulary import CHAT_WORDS

MIN_LETTERS = 6
SHORT_LETTERS = 3  # shorter words are never read as typos
_WORD = re.compile(r"[^\W\d_]+")


def unaccented(word: str) -> str:
    """``word`` casefolded without accents ("Lucía" -> "lucia")."""
    return "".join(c for c in unicodedata.normalize("NFD", word.casefold()) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _english_list() -> list[str]:
    return sorted(w for w in english_words() if len(w) >= MIN_LETTERS - 1 and w.isalpha())


def _lemmas(w: str) -> tuple[str, ...]:
    """The stems a regular English ending leaves ("loving" -> "lov", "love"; "lessons" -> "lesson";
    "studies" -> "study"; "stopped" -> "stop")."""
    out = [w]
    for end in ("ing", "ed"):
        if w.endswith(end) and len(w) > len(end) + 2:
            b = w[: -len(end)]
            out += [b, b + "e"] + ([b[:-1]] if len(b) > 2 and b[-1] == b[-2] else [])
    if w.endswith("ies"):
        out.append(w[:-3] + "y")
    if w.endswith("es"):
        out.append(w[:-2])
    if w.endswith("s"):
        out.append(w[:-1])
    return tuple(out)


def _known(w: str, known: frozenset[str] | set[str]) -> bool:
    """An English word, or a regular form of one (the word list holds "love" but not "loving")."""
    return any(f in known for f in _lemmas(w))


def correct(text: str, vocab: Mapping[str, int], terms: list[str] | None = None, is_word: Callable[[str], bool] | None = None) -> str:
    """``text`` with its typos corrected (module docstring; a fast-typed question word first:
    :func:`question_word`); ``vocab``: memory term -> rows containing it; ``terms``:
    ``list(vocab)`` (passed to spare building it each time); ``is_word``: the embedder knows a word
    whole (:func:`single_token`), without which short words stay as typed."""
    text = _MY_WORD.sub(_relation_typo, question_word(text))
    if not vocab:
        return text
    known, foreign = english_words(), lexicon_words()
    choices = terms if terms is not None else list(vocab)

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        w = unaccented(word)
        if len(w) >= MIN_LETTERS and w in known and w not in vocab:  # the memory holds the typo: "allergic" / "alergic"
            typos = [t for t, _score, _i in process.extract(w, choices, scorer=OSA.distance, score_cutoff=1, limit=8)
                     if t[:1] == w[:1] and not _known(t, known) and t not in foreign and len(t) >= MIN_LETTERS
                     and not t.startswith(w) and not w.startswith(t)]  # fmt: skip  ("dentists" is no typo of "dentist")
            return typos[0] if len(typos) == 1 else word
        if len(w) < MIN_LETTERS:
            return word if is_word is None or is_word(w) else _short(word, w, vocab, choices, known, foreign)
        if w in vocab or _known(w, known) or w in foreign:
            return word
        near = [t for t, _score, _i in process.extract(w, choices, scorer=OSA.distance, score_cutoff=1, limit=8)
                if t[:1] == w[:1]]  # fmt: skip
        if not near:  # no memory word: the one English word one edit away ("sistrs" -> "sisters")
            english = [t for t, _score, _i in process.extract(w, _english_list(), scorer=OSA.distance, score_cutoff=1, limit=3)
                       if t[:1] == w[:1] and not t.startswith(w) and not w.startswith(t)]  # fmt: skip  ("lesson" is no typo of "lessons")
            return english[0] if len(english) == 1 else word
        if (top := _most_frequent(near, vocab)) is None:
            return word
        return top[:1].upper() + top[1:] if word[:1].isupper() else top  # "Filips" -> "Filip": still a name

    return _WORD.sub(fix, text)


def _most_frequent(near: list[str], vocab: Mapping[str, int]) -> str | None:
    """The one term of ``near`` in the most memories, None when two or more are (no telling which)."""
    best = max(vocab[t] for t in near)
    top = [t for t in near if vocab[t] == best]
    return top[0] if len(top) == 1 else None


def _short(word: str, w: str, vocab: Mapping[str, int], choices: list[str], known: frozenset[str], foreign: frozenset[str]) -> str:
    """A short word (:data:`SHORT_LETTERS` to ``MIN_LETTERS - 1`` letters) typed in lower case that is
    no word of any lexicon nor of the memories: the one memory term one edit away with its first
    letter and :data:`SHORT_LETTERS` + 1 letters or more ("rnet" -> "rent", "bos" -> "boss", "drve" ->
    "drive"), else the one such English word ("muhc" -> "much", "yaer" -> "year"). A capitalised one
    is a name ("Mila" stays); a known word stays ("cat" is no typo of "car"; "movie", "plot": words
    the embedder knows whole, though the lexicon lacks them)."""
    if len(w) < SHORT_LETTERS or not word.islower() or w in vocab or _known(w, known) or w in foreign or w in CHAT_WORDS:
        return word
    near = [t for t, _score, _i in process.extract(w, choices, scorer=OSA.distance, score_cutoff=1, limit=8)
            if t[:1] == w[:1] and len(t) > SHORT_LETTERS and _slip(w, t)]  # fmt: skip
    if near:
        return _most_frequent(near, vocab) or word
    english = [t for t, _score, _i in process.extract(w, _short_english(), scorer=OSA.distance, score_cutoff=1, limit=3)
               if t[:1] == w[:1] and _slip(w, t)]  # fmt: skip
    return english[0] if len(english) == 1 else word


def single_token(embedder: Any) -> Callable[[str], bool] | None:
    """Whether a word is one token of ``embedder``'s vocabulary, as "a" is (a word it knows whole:
    "movie", "plot", "safe"; not "rnet", "drve"); None when it cannot count tokens (a test's fake)."""
    count = getattr(embedder, "count_tokens", None)
    if count is None:
        return None
    one: list[int] = []

    @lru_cache(maxsize=4096)
    def known(word: str) -> bool:
        try:
            one[:] = one or [count("a")]
            return count(word) <= one[0]
        except Exception:  # an embedder that cannot load: every word taken as known, none corrected
            return True
    return known


_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KEY = {c: (r, i) for r, row in enumerate(_ROWS) for i, c in enumerate(row)}


def _slip(typed: str, word: str) -> bool:
    """``typed`` is ``word`` with a letter left out, doubled or two swapped, or one struck on a
    neighbouring key ("rebt" for "rent"; not "noor" for "noon": r and n are apart)."""
    if len(typed) != len(word):
        return True
    diff = [i for i, (a, b) in enumerate(zip(typed, word)) if a != b]
    if len(diff) != 1:
        return True  # two letters swapped
    (ra, ia), (rb, ib) = _KEY.get(typed[diff[0]], (9, 99)), _KEY.get(word[diff[0]], (-9, -99))
    return abs(ra - rb) <= 1 and abs(ia - ib) <= 1


@lru_cache(maxsize=1)
def _short_english() -> list[str]:
    return sorted(w for w in english_words() if SHORT_LETTERS < len(w) < MIN_LETTERS + 1 and w.isalpha())


_MY_WORD = re.compile(r"\b(?P<my>[Mm]y|[Oo]ur)\s+(?P<w>[^\W\d_]{4,})\b")


@lru_cache(maxsize=1)
def _relation_words() -> tuple[str, ...]:
    """The English words of the person's relations ("sister", "husband", "boss"), from :data:`.answerable.RELATIONS`."""
    from assistant.memory.retrieval.answerable import RELATIONS

    known = english_words()
    return tuple(sorted({w for ws in RELATIONS.values() for w in ws if " " not in w and len(w) >= 4 and w in known}))


def _relation_typo(m: re.Match[str]) -> str:
    """A relation typed fast after "my" ("my sistr", "my brothr"): the one relation word one edit
    away with the same first letter, when the typed word is no English or capture-language word.
    Shorter than :data:`MIN_LETTERS` too: after "my" the word is most likely a relation."""
    w = m["w"].casefold()
    if _known(w, english_words()) or w in lexicon_words():
        return m.group(0)
    near = [r for r in _relation_words() if r[0] == w[0] and OSA.distance(w, r, score_cutoff=1) <= 1]
    return f"{m['my']} {near[0]}" if len(near) == 1 else m.group(0)
