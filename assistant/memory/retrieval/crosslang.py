"""Memory answers across the capture languages (issue 28.6): when the question or a retrieved
memory is in another language than English, the memory answer is chosen on their English
readings (:mod:`assistant.memory.language.gloss`), and shown in the memory's own words.

    view = english_view(question, hits)        # (gloss of the question, hits with glossed texts) | None
    answer = restore(choose(*view, matcher), question, hits)

MiniLM is an English model, and the code that decides a memory answer
(:func:`assistant.memory.retrieval.answer.choose`: the question's "my X" focus, its words against
the memory's, question forms) reads English. Read in English, "Was ist mein Beruf?" is "what is my
profession?" and "Nuestra hija Inés tiene cuatro años." is "our daughter Inés has four years.": the
same machinery decides, so English questions find memories said in Spanish or Chinese and the
other way round. An English question whose hits are all English has no view (nothing changes). A request for
help ("我的电脑很慢，怎么办？") keeps its own words, which :mod:`.questions` reads as a request in six
languages (the embedder still reads its gloss).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from assistant.memory.language.gloss import gloss
from assistant.memory.language.reading import reading
from assistant.memory.retrieval.answerable import states_something
from assistant.memory.retrieval.questions import requests


class View(list):
    """Hits whose memory texts are English readings (never read again). ``stating``: the ids of
    episodes whose own words state something (a gloss of a pro-drop message may not read so: "Se
    llama Amparo y es alérgica a los gatos" -> "is called Amparo and is allergic to cats")."""

    stating: frozenset[int] = frozenset()
    aliases: dict[str, str] = {}  # the search's (:class:`~.scoring.Hits`), carried over


def english_view(question: str, hits: Sequence[Any]) -> tuple[str, View] | None:
    """(the question in English, the hits with each memory's text in English), or None when the
    question and every hit's memory are English already, or ``hits`` is a view."""
    if isinstance(hits, View):
        return None
    q = None if requests(question) else gloss(question)  # a request stays one (choose reads its own words)
    changed = q is not None
    view = View()
    view.stating = frozenset(h.memory.id for h in hits if states_something(h.memory.text))
    view.aliases = dict(getattr(hits, "aliases", {}))
    for h in hits:
        g = gloss(h.memory.text)
        changed = changed or g is not None
        view.append(h if g is None else replace(h, memory=replace(h.memory, text=g)))
    return (q or question, view) if changed else None


def restore(found: Any, question: str, hits: Sequence[Any]) -> Any:
    """The memory answer ``found`` on the English view, in the memory's own words (its key terms
    read against the question as asked); ``also`` with their own texts too."""
    if found is None:
        return None
    from assistant.memory.retrieval import answer  # it calls this module: imported when used

    by_id = {h.memory.id: h for h in hits}
    hit = by_id.get(found.memory_id)
    if hit is None:
        return found
    also = tuple((i, by_id[i].memory.text if i in by_id else t) for i, t in found.also)
    own = answer._answer(hit, question, hits, answer.aliases_of(hits))
    if own is None:  # the question repeats every word of the memory: keep the view's terms
        return replace(found, text=hit.memory.text, also=also)
    return replace(own, also=also)


def english_of(text: str) -> str | None:
    """``text``'s English reading (:func:`assistant.memory.language.reading.reading`) when it
    is in another capture language, else None: shown next to a memory answer in the memory's
    own words, so an English question answered from "Nuestra hija Inés tiene cuatro años."
    also reads "our daughter Inés has four years."."""
    en = reading(text)
    return en if en.strip() != text.strip() else None
