"""What a memory says of the one the question is about (issue 28.4): the question and the memory
with their shared subject taken out, compared by meaning.

Every memory about Morven is close to "Which school does Morven attend?" by its words: the name
is most of what MiniLM sees in a short sentence ("Morven's started clarinet lessons at school."
0.57, "User's eldest, Morven, is 14 now and at Hyndland Secondary." 0.60). Without the subject
the question asks "Which school does attend?" and the memories say "started clarinet lessons at
school." (0.23) and "eldest, is 14 now at Hyndland Secondary." (0.39): what is said of Morven,
not that Morven is named.

    predicate(question, names) -> the question without ``names``
    cosines(vectors, question, texts, names) -> [cos(predicate(question), predicate(text))]

Pure but for the embedding callable passed in.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

import numpy as np

# the person as memories write them; a removed name (\x00) with the words joining it to another
_USER = re.compile(r"\bUser(?:['’]s)?\b:?")
_JOINED = re.compile(r"\x00(?:\s*(?:,|\band\b|&|\bor\b)\s*\x00)+", re.I)
_AROUND = re.compile(r"(?:\b(?:the|my|our)\s+)?\x00(?:\s*,(?=\s*[\w]))?", re.I)


def predicate(text: str, names: Iterable[str]) -> str:
    """``text`` without ``names`` (and their possessive "'s"), "User", and the joining words
    they leave dangling ("The twins, Isla and Rory, are 8." without isla, rory, twins -> "are 8.")."""
    for n in sorted(set(names), key=len, reverse=True):
        text = re.sub(rf"(?<![\w]){re.escape(n)}(?:['’]s?)?(?![\w])", "\x00", text, flags=re.I)
    text = _USER.sub(" ", _AROUND.sub(" ", _JOINED.sub("\x00", text)))
    text = re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"\s+", " ", text))
    text = re.sub(r",(?=[,.;:!?])", "", text)
    return re.sub(r"^[\s,;:—–-]+|[\s,;:—–-]+$", "", text)


def cosines(vectors: Callable[[Sequence[str]], list[np.ndarray]], question: str, texts: Sequence[str],
            names: Iterable[str]) -> list[float]:  # fmt: skip
    """cos(predicate(question), predicate(text)) for each of ``texts`` (``vectors``: unit
    vectors, :meth:`~.forms.AnswerMatcher.vectors`); 0 for a text that is nothing but the names."""
    names = [n for n in names if n]
    q = predicate(question, names)
    ps = [predicate(t, names) for t in texts]
    if not q or not texts:
        return [0.0] * len(texts)
    vs = vectors([q, *[p for p in ps if p]])
    qv, rest = vs[0], iter(vs[1:])
    return [float(qv @ next(rest)) if p else 0.0 for p in ps]
