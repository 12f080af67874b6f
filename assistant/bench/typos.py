"""Questions typed fast, made from a set by code (``keepsake bench answers --typos``): each English
question, and each never-said one, with one slip in one of its words of four letters or more -- a
letter left out, doubled, or two swapped (not the first letter) -- the word and the slip chosen by a
generator seeded with the question, so every run and every machine gets the same set. A third of
the people's questions are typed so (issue 28); the rules are not tuned on any slip made here.
Pure.

    typed("How much is my rent now?")   # "How much is my rnet now?" (one of the three slips)
"""

from __future__ import annotations

import copy
import random
import re
import zlib
from typing import Any

_WORD = re.compile(r"[A-Za-z]{4,}")


def typed(question: str) -> str:
    """``question`` with one slip (module docstring); as it is when it has no word of four letters."""
    words = list(_WORD.finditer(question))
    if not words:
        return question
    rnd = random.Random(zlib.crc32(question.encode("utf-8")))
    m = rnd.choice(words)
    w, i = m.group(), rnd.randrange(1, len(m.group()) - 1)
    slip = rnd.choice(("swap", "drop", "double"))
    new = w[:i] + w[i + 1] + w[i] + w[i + 2:] if slip == "swap" else w[:i] + w[i + 1:] if slip == "drop" else w[:i] + w[i] + w[i:]
    if new == w:  # two same letters swapped: no slip, leave one out instead
        new = w[:i] + w[i + 1:]
    return question[: m.start()] + new + question[m.end():]


def with_typos(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of an answers set whose English questions and never-said questions are :func:`typed`."""
    out = copy.deepcopy(data)
    for q in out.get("questions", []) + out.get("never_said", []):
        if q.get("lang", "en") == "en":
            q["q"] = typed(q["q"])
    return out
