"""Whom "she" or "he" stands for when a sentence names more than one: the one its words give that
gender ("we have a daughter called Tilly, she's 6, and a beagle named Biscuit": "she" is Tilly,
the one named next to "daughter"). Pure; English relation words only (other languages keep their
pronouns unresolved, as before).

    one_referent(["Tilly", "Biscuit"], sentence)   # "Tilly"
"""

from __future__ import annotations

import re
from typing import Sequence

FEMALE = frozenset("""mother mum mom mummy mommy wife daughter sister girlfriend fiancee aunt niece grandmother grandma
    granny nan girl stepmother stepdaughter""".split())
MALE = frozenset("""father dad daddy husband son brother boyfriend fiance uncle nephew grandfather grandpa grandad boy
    stepfather stepson""".split())
#: Words at most between a gender word and the name it gives: "a daughter called Tilly", "my sister, Ana".
NEAR = 3

_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.I)
_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.I)
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def one_referent(candidates: Sequence[str], sentence: str) -> str | None:
    """The one candidate "she"/"he" stands for: the only candidate; else, when the sentence uses
    one gender's pronouns only, the only candidate named within :data:`NEAR` words of a word of
    that gender (or a relation phrase of it: "my dad"); else None."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    she, he = _SHE.search(sentence) is not None, _HE.search(sentence) is not None
    if she == he:
        return None
    gender = FEMALE if she else MALE
    toks = [t.casefold() for t in _TOKEN.findall(sentence)]
    fits = [c for c in candidates if _gendered(c, gender, toks)]
    return fits[0] if len(fits) == 1 else None


def _gendered(candidate: str, gender: frozenset[str], toks: list[str]) -> bool:
    """The candidate is a relation phrase of ``gender`` ("my dad"), or the gendered word nearest
    its name (within :data:`NEAR` words) is of ``gender`` ("my brother Tom and my sister Ana":
    Tom is a brother's name, Ana a sister's)."""
    words = [w.casefold() for w in _TOKEN.findall(candidate)]
    if any(w in gender for w in words):
        return True
    at = [i for i, t in enumerate(toks) if words and t == words[0]]
    near = sorted((abs(i - j), t) for i in at for j, t in enumerate(toks) if (t in FEMALE or t in MALE) and abs(i - j) <= NEAR + 1)
    return bool(near) and near[0][1] in gender
