"""Does a message ask the assistant to *produce* something (write, suggest, translate, compute,
plan: issue 28.2)? Such a request is never refused and never answered by a memory ("Write a short
birthday poem for my son." is not answered "Our son Mateo just turned seven."; the memory still
reaches the model in the memory block). Decided by clause structure and meaning, not a phrase
list:

1. the **head** (:func:`head`): in the message's English reading, the first word after the
   words that only make it polite (:data:`~.vocabulary.REQUEST_PREFIX`: "Could you please",
   "Any"), unless it is a question word, a pronoun or an auxiliary (then the message asks, it
   does not tell the assistant to do something) nor a gerund or participle ("Planning a gift for
   Camille, what does she teach?" asks), and whose object is not something the person
   has ("my ...", "the ...", "where I ..."): "Compose a haiku" -> ``compose``, "Any tips for ..."
   -> ``tips``, "Traduce 'te quiero' al chino." -> ``translate``; "Give me my wife's name" asks;
2. the head is compared by MiniLM with example heads of production
   (:data:`~.vocabulary.PRODUCE_HEADS`: write, suggest, translate, ...) and of recall
   (:data:`~.vocabulary.RECALL_HEADS`: tell, remind, ...): it produces when
   ``max cos(head, PRODUCE) - max cos(head, RECALL) >= PRODUCE_MARGIN``.

Calibrated on the dev split of ``keepsake bench answers``: every question about the person is
below +0.16 ("favorite color?" +0.15, "order me my usual coffee" +0.12, "Tell me ..." -0.44), the
production requests at +0.44 or more; unlisted verbs measured: outline +0.20, estimate +0.24,
convert +0.23, proofread +0.22, build +0.27 (devise +0.08 and design +0.10 are missed).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from assistant.memory.language.reading import reading
from assistant.memory.retrieval import vocabulary as V
from assistant.memory.retrieval.questions import speaks_of_self, words

PRODUCE_MARGIN = 0.2
_NOT_A_HEAD = V.QUESTION_STARTS | V.SELF_WORDS | frozenset(
    "i we you it this that there the a an my our your is am are was were do does did have has had".split())  # fmt: skip


def head(text: str) -> str | None:
    """The word a request starts with (see the module docstring), or None; None too when its
    object is something the person has (:data:`~.vocabulary.KNOWN_OBJECT`: "Give me my wife's
    name"; "the ..." speaking of the person: "List the languages I speak"): that asks memory, it
    makes nothing new."""
    ws = words(reading(text))
    while ws and ws[0] in V.REQUEST_PREFIX:
        ws = ws[1:]
    if ws[:2] == ["help", "me"] and len(ws) > 2:  # "Help me write an email": what to help with
        ws = ws[2:]
    if not ws or not ws[0].isalpha() or ws[0] in _NOT_A_HEAD or ws[0].endswith(("ing", "ed")):
        return None  # a gerund or participle opens a clause ("Planning a gift for Camille, what ..."), not an order
    rest = ws[1:]
    while rest and rest[0] in V.OBJECT_PARTICLES:
        rest = rest[1:]
    known = bool(rest) and (rest[0] in V.KNOWN_OBJECT or (rest[0] == "the" and speaks_of_self(" ".join(rest))))
    return None if known else ws[0]


def produces(text: str, vectors: Callable[[Sequence[str]], list[np.ndarray]]) -> bool:
    """``text`` asks the assistant to produce something (module docstring); ``vectors``: unit
    vectors of texts (:meth:`~.forms.AnswerMatcher.vectors`)."""
    h = head(text)
    if h is None:
        return False
    v, *rest = vectors([h, *V.PRODUCE_HEADS, *V.RECALL_HEADS])
    m = np.stack(rest)
    n = len(V.PRODUCE_HEADS)
    sims = m @ v
    return float(sims[:n].max() - sims[n:].max()) >= PRODUCE_MARGIN
