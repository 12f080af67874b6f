"""Who the question is about, as the hits name them (issue 28.4): the names the person gave their
relations ("User's sister is Lucía." -> {"lucía": "sister"}), the question read with the name
("What does my sister do?" -> "What does Lucía do?"), and which hits come from one message (the
fact and the episode of one message say one thing). Pure; no I/O.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from assistant.memory.retrieval.answerable import _about_pattern as about_pattern
from assistant.memory.retrieval.answerable import asked, question_names
from assistant.memory.retrieval.questions import recall_core


def aliases_of(hits: Sequence[Any]) -> dict[str, str]:
    """Names the person gave their relations, from the hits: {"Lucía": "sister"} from a
    ``family.sister`` slot or "User's sister is Lucía."."""
    out: dict[str, str] = {}
    for h in hits:
        m = h.memory
        slot = (m.slot or "").casefold()
        rel = slot.split(".", 1)[1].replace("_", " ") if slot.startswith("family.") else slot if slot in ("partner",) else None
        for r in asked(m.text.replace("User's", "my")).relations if rel is None else (rel,):
            for n in question_names(m.text):
                if n not in ("user", r):
                    out.setdefault(n, r)
    return out


_TOKEN = re.compile(r"[^\W\d_]+|[.!?:;]")


def question_names_known(question: str, hits: Sequence[Any]) -> tuple[str, ...]:
    """The names in a question (:func:`question_names`, folded), and its lower-case words that
    the hits' memories write only as a one-word name ("who is joost" with "User's partner is
    Joost.": people type names in lower case). A word a memory also writes in lower case, or
    that is part of a longer name ("Climb Up", "One Hundred Years of Solitude"), is no name."""
    named = question_names(question)
    written: set[str] = set()
    common: set[str] = set()
    for h in hits:
        toks = _TOKEN.findall(h.memory.text)  # words and sentence ends
        for i in range(1, len(toks) - 1):
            w = toks[i]
            if len(w) > 1 and w[:1].isupper() and toks[i - 1][:1].islower() and not toks[i + 1][:1].isupper():
                written.add(w.casefold())
        common |= {t for t in toks if t[:1].islower()}
    known = written - common - {"user"}
    lower = [w for w in re.findall(r"[^\W\d_]+", question) if w.islower() and w in known]
    return tuple(dict.fromkeys([*named, *lower]))


def names_relation(text: str, relation: str, aliases: dict[str, str]) -> bool:
    """``text`` names ``relation`` by one of its words (six languages) or a name given to it."""
    given = tuple(sorted(n for n, r in aliases.items() if r == relation))
    return bool(about_pattern(relation, given).search(text))


def names_in(name: str, text: str) -> bool:
    return bool(re.search(rf"\b{re.escape(name)}\b", text, re.I))


def ask_forms(question: str, aliases: dict[str, str]) -> list[str]:
    """The question, and the question with "my <relation>" read as the name given to it
    ("What does my sister do?" -> "What does Lucía do?")."""
    out = [question, recall_core(question)]
    for name, rel in aliases.items():
        rx = re.compile(rf"\bmy\s+{re.escape(rel)}\b", re.I)
        if rx.search(question):
            out.append(rx.sub(name, question))
    return out


def messages(m: Any) -> frozenset[int]:
    return frozenset(s.message_id for s in m.sources if s.message_id is not None) or frozenset({-m.id})


def runner_up(i: int, sem: Sequence[float], msgs: Sequence[frozenset[int]]) -> float:
    """The best form cosine among the candidates from other messages than candidate ``i``'s
    (the fact and the episode of one message say one thing)."""
    return max((s for j, s in enumerate(sem) if j != i and not (msgs[j] & msgs[i])), default=0.0)
