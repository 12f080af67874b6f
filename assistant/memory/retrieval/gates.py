"""The retriever's step 4 and 6 (see :mod:`assistant.memory.retrieval.retriever`): which semantic
candidates can answer what the question asks, which may pass below the threshold, and the top
``k`` with one hit per source message first. Reads the store through the caller's connection;
the text rules themselves are pure (:mod:`assistant.memory.retrieval.answerable`).

The text rules are English (with the relation words of the six capture languages): a memory said
in another capture language is read both as written and in its English gloss
(:func:`assistant.memory.language.reading.reading`), and a rule holds when it holds on either
("Mi café de siempre es un cortado con leche de avena." states something about the person: "my
coffee ...").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable

from assistant.memory.retrieval import answerable as ans
from assistant.memory.retrieval.aliases import IN_LAW, in_law_read, my_relation
from assistant.memory.retrieval.terms import content_words, synonyms
from assistant.memory.retrieval.vocabulary import LIGHT_VERBS
from assistant.memory.store import search_reads as reads
from assistant.memory.store.sqlite import fts
from assistant.memory.language.claims import NAME_SLOTS, canonical_subject, claims, person_names
from assistant.memory.language.reading import reading
from assistant.memory.store.filters import MemoryFilter, select_sql
from assistant.memory.records import Kind
from assistant.memory.store.rows import MEMORY_COLUMNS

RESCUE_MIN = 0.2  # below the threshold, a rare word of the question can still pass a statement
RESCUE_RARE = 0.02  # ... a word at most this share of memories contain (and at least 3 may)
# slot questions (textmatch.SLOT_QUESTIONS) -> the claim relation that answers them
SLOT_CLAIM = {"home_city": "home_city", "employer": "employer", "occupation": "job_title", "partner": "partner"}
_KIND = MEMORY_COLUMNS.index("kind")
_CJK = re.compile(r"[\u4e00-\u9fff]")
NAMED_MAX = 50  # memories naming an asked relation by its given name, added to the candidates

Ranked = tuple[int, float, bool, int, Any]  # (memory id, score, passed, tier: 0 = slot answer, signals)


def readings(text: str) -> tuple[str, ...]:
    """``text`` as written and, when it is in another capture language, its English gloss."""
    en = reading(text)
    return (text,) if en == text else (text, en)


@dataclass
class Gate:
    reasons: dict[int, str] = field(default_factory=dict)  # candidate -> why it cannot answer
    rescued: set[int] = field(default_factory=set)  # below the threshold, but a rare question word
    claimed: set[int] = field(default_factory=set)  # states the relation a slot question asks


#: "my favourite meal" / "my favourite dish" (MiniLM 0.81), "novel" / "book" 0.93, "movie" / "film" 0.95; not
#: "book" / "film" 0.75, "author" / "book" 0.79, "film" / "band" 0.61
FAVOURITE_ALIKE = 0.80
_FAVOURITE_OF = re.compile(r"\bfavou?rite\s+([^\W\d_]+(?:\s+[^\W\d_]+)?)\s+(?:is|are|was|were|has\s+to\s+be)\b", re.I)


def favourite_alike(text: str, thing: tuple[str, ...], embed: Callable[[str], Any] | None) -> bool:
    """``text`` names a favourite whose thing means what was asked, by the embedder: cos("my
    favourite <asked>", "my favourite <said>") >= :data:`FAVOURITE_ALIKE` (``embed``: a text's unit
    vector; the gate passes one that embeds each phrase once per search)."""
    said = [m[1] for m in _FAVOURITE_OF.finditer(text)]
    if embed is None or not said:
        return False
    asked = embed("my favourite " + " ".join(thing))
    return any(float(asked @ embed("my favourite " + s)) >= FAVOURITE_ALIKE for s in said)


def gate(c: Any, rows: dict[int, Any], cos: dict[int, float], slot_ids: set[int], asked: ans.Asked,
         slots: tuple[str, ...], *, threshold: float, names: tuple[str, ...],
         known: Callable[[str], tuple[bool, set[str]]], doc_freq: Callable[[list[str]], dict[str, int]],
         n_rows: Callable[[], int], embed: Callable[[str], Any] | None = None) -> Gate:  # fmt: skip
    """Which candidates (``rows``: id -> memory row, ``cos``: their cosines) cannot answer the
    question and which may pass below ``threshold``; slot answers are never gated. ``names``:
    the person's own names (:func:`person_names_in`); ``known(relation)``: :func:`relation_known`
    for the search's filter; ``embed``: the unit query vector of a text (:func:`favourite_alike`)."""
    g = Gate()
    for mid, r in rows.items():
        if mid not in slot_ids and r[_KIND] == Kind.EPISODE.value and not any(map(ans.states_something, readings(r[1]))):
            g.reasons[mid] = "states nothing about the person (a question or a request)"
    rel_names_all: set[str] = set()
    for rel in asked.relations:
        has, rel_names = known(rel)
        if not has:  # the store's word lookup misses what only a reading says ("我的女儿" -> "my daughter")
            has, rel_names = candidates_know(rows, rel, names)
        rel_names_all |= rel_names
        for mid, r in rows.items():
            if mid in slot_ids:
                continue
            if not has:
                g.reasons.setdefault(mid, f"no memory says the person has a {rel}")
            elif not any(ans.about_relation(t, rel, r[_KIND] == Kind.EPISODE.value, rel_names) for t in readings(r[1])):
                g.reasons.setdefault(mid, f"not about the person's {rel}")
    if asked.favourite:
        embed = functools.lru_cache(maxsize=None)(embed) if embed is not None else None  # the asked phrase once, not per memory
        for mid, r in rows.items():
            if mid not in slot_ids and not any(ans.mentions_favourite(t, asked.favourite) or favourite_alike(t, asked.favourite, embed)
                                               for t in readings(r[1])):
                g.reasons.setdefault(mid, f"does not name the favourite {' '.join(asked.favourite)} asked for")
    if asked.names:
        # a name, or a word written capitalised ("my GP"), that no memory has, nor any word for the same thing ("doctor")
        said = {n: [n, *sorted(synonyms(n) - {n})] for n in asked.names}
        df = doc_freq([t for forms in said.values() for f in forms for t in fts.fts_tokens(f)])
        never = [n for n, forms in said.items() if not any(all(df.get(t, 0) for t in fts.fts_tokens(f)) for f in forms)]
        if never:
            for mid in rows:
                if mid not in slot_ids and cos.get(mid, 0.0) < ans.NAME_COSINE:
                    g.reasons.setdefault(mid, f"no memory mentions {never[0]!r} (needs cosine >= {ans.NAME_COSINE})")
    open_ = [mid for mid in rows if mid not in slot_ids and mid not in g.reasons and cos.get(mid, 0.0) >= RESCUE_MIN]
    relations = {SLOT_CLAIM[s] for s in slots if s in SLOT_CLAIM}
    if relations:  # "where do I live?": a memory that says where the person lives answers it
        for mid in open_:
            if any(cl.relation in relations and not cl.ended for t in readings(rows[mid][1]) for cl in claims(t, names)):
                g.claimed.add(mid)
    low = [mid for mid in open_ if cos.get(mid, 0.0) < threshold]
    focus = [w for w in asked.focus if not any(ans.same_word(w, x) for rel in asked.relations
                                               for x in (*ans.relation_words(rel), *rel_names_all))]  # fmt: skip
    if focus and low:  # a rare word of the question in a statement about the person
        rare = max(3, int(RESCUE_RARE * n_rows()))
        for mid in low:
            toks = [t for t in set(fts.fts_tokens(rows[mid][1])) if len(t) >= 4 and any(ans.same_word(t, w) for w in focus)]
            if toks and min(doc_freq(toks).values()) <= rare and any(ans.about_the_person(canonical_subject(t, names))
                                                                     for t in readings(rows[mid][1])):
                g.rescued.add(mid)
    return g


def candidates_know(rows: dict[int, Any], relation: str, names: tuple[str, ...]) -> tuple[bool, set[str]]:
    """:func:`relation_known` over the candidate rows in Chinese, read in English: Chinese has no
    word boundaries for the store's word lookup to find "女儿" by (the other languages' relation
    words are looked up: :data:`~.vocabulary.RELATION_WORDS_INTL`)."""
    known, rel_names = False, set()
    for r in rows.values():
        if not _CJK.search(r[1]):
            continue
        for text in (canonical_subject(t, names) for t in readings(r[1])):
            if ans.has_relation(text, relation):
                known = True
                rel_names |= ans.relation_names(text, relation)
    return known, rel_names


def relation_known(c: Any, relation: str, f: MemoryFilter, now: datetime, names: tuple[str, ...]) -> tuple[bool, set[str]]:
    """Whether any memory the filter allows says the person has ``relation``, and the names
    they gave it ("my dog Pepper")."""
    sql, params = select_sql(f, now)
    known, rel_names = False, set()
    for r in reads.rows_matching(c, sql, params, fts.any_of(ans.lookup_words(relation)), 500):
        for text in (canonical_subject(t, names) for t in readings(r[1])):
            if ans.has_relation(text, relation):
                known = True
                rel_names |= ans.relation_names(text, relation)
    return known, rel_names


def named_by_relation(c: Any, sql: str, params: dict[str, Any], asked: ans.Asked, known: Any, rows: dict[int, Any]) -> set[int]:
    """Memories naming an asked relation by the name the person gave it ("What does my brother
    do?" with "User's brother is Rafael." stored: "Rafael is a dentist."), added to ``rows``:
    their text shares no word with the question, so the semantic candidates miss them."""
    out: set[int] = set()
    for rel in asked.relations:
        _has, rel_names = known(rel)
        terms = [t for n in sorted(rel_names) for t in fts.fts_tokens(n)]
        if not terms:
            continue
        for r in reads.rows_matching(c, sql, params, fts.any_of(dict.fromkeys(terms)), NAMED_MAX):
            rows.setdefault(r[0], r)
            out.add(r[0])
    return out


def asked_read(text: str) -> ans.Asked:
    """:func:`~.answerable.asked` of the question, with the relations and the favourite its
    English reading asks when it is in another capture language ("Was macht mein Mann
    beruflich?" -> partner; "我丈夫最喜欢什么颜色？" -> partner, colour)."""
    found = ans.asked(text)
    en = reading(text)
    if IN_LAW.search(en):  # "my in-laws" are the partner's family: memories naming the partner ("Arjun's parents")
        found = replace(found, relations=tuple(dict.fromkeys((*found.relations, "partner"))))
    if en == text:
        return found
    more = ans.asked(en)
    return replace(found, relations=tuple(dict.fromkeys(found.relations + more.relations)),
                   favourite=tuple(dict.fromkeys(found.favourite + more.favourite)))


#: At most this many given names are read into a question (:func:`read_with_names`).
NAMES_READ = 3


def read_with_names(text: str, asked: ans.Asked, known: Any) -> list[str]:
    """The question with "my <relation>" read as each name the person gave it ("What does my
    brother do?" -> "What does Finlay do?"): memories about Finlay rarely say "brother", and
    MiniLM scores "Finlay is the coxswain" far from "my brother" (0.09) but near "Finlay" (0.6).
    A question in another capture language is read in English first ("Quel est le métier de mon
    mari ?" -> "what is the profession of Arjun?")."""
    out = []
    text = reading(text)
    for rel in asked.relations:
        rx = my_relation(rel)
        if rel == "partner" and IN_LAW.search(text):  # "my in-laws": "Arjun's parents"
            out += [r for n in sorted(known(rel)[1])[:NAMES_READ] if (r := in_law_read(text, n)) is not None]
        if not rx.search(text):
            continue
        out += [rx.sub(n.title() if n.islower() else n, text) for n in sorted(known(rel)[1])[:NAMES_READ]]
    return out


def named_cosines(named: set[int], queries: list[str], cosines: Any, embed_query: Any) -> dict[int, float]:
    """Each memory of ``named``'s best cosine with the question read with the names
    (:func:`read_with_names`). Only to order the hits below the threshold, never to pass it: the
    name alone makes "What allergies does Rafael have?" close to every memory about him."""
    out: dict[int, float] = {}
    ids = sorted(named)
    for q in queries if ids else ():
        for mid, sim in zip(ids, cosines(ids, embed_query(q))):
            out[mid] = max(out.get(mid, 0.0), sim)
    return out


def person_names_in(c: Any) -> tuple[str, ...]:
    """The person's own names, from their current ``name`` slot records."""
    return person_names(reads.current_slot_texts(c, NAME_SLOTS))


def one_per_message(c: Any, order: list[Ranked], k: int, keep: set[int] | frozenset[int] = frozenset()) -> list[Ranked]:
    """The top ``k`` of ``order``, at most one per source message first: a profile, a fact and
    the episode of one message say one thing, so the next message's memory gets the place (the
    others only fill what is left). Slot answers (tier 0) always keep theirs. Hits that passed
    come before those that did not, whatever their message: "Rafael is a dentist." (passed, the
    same message as "User's brother is Rafael.") before an unrelated memory below the threshold.
    ``keep``: memories naming an asked relation by its given name (:func:`named_by_relation`)
    keep their place beside their message's other memories ("My husband Arjun teaches physics"
    gives "User's husband is Arjun." and "Arjun teaches physics ...": the second answers "What
    does my husband do?")."""
    ids = [h[0] for h in order[: max(4 * k, 60)]]
    msgs: dict[int, set[int]] = {}
    for mid, msg in reads.source_messages(c, ids):
        msgs.setdefault(mid, set()).add(msg)

    def spread(hits: list[Ranked]) -> list[Ranked]:
        first: list[Ranked] = []
        later: list[Ranked] = []
        seen: set[int] = set()
        for h in hits:
            m = msgs.get(h[0], set())
            if m & seen and h[3] != 0 and h[0] not in keep:
                later.append(h)
                continue
            seen |= m
            first.append(h)
        return first + later

    chosen = (spread([h for h in order if h[2]]) + spread([h for h in order if not h[2]]))[:k]
    return sorted(chosen, key=order.index)


def naming_rare(rows: dict[int, Any], names: Any, doc_freq: Callable[[list[str]], dict[str, int]], n_rows: int) -> set[int]:
    """The facts that write a rare name of the question (in at most ``max(3, RESCUE_RARE *
    n_rows)`` memories): they keep their place beside their message's other memories ("How old
    is Oma Gerda?": "Oma Gerda ist jetzt 93" beside "Oma Gerda ist ... ins Pflegeheim gezogen.",
    two clauses of one message saying two things). An episode repeats its clauses: it gives way."""
    rare = max(3, int(RESCUE_RARE * n_rows))
    toks = [n for n in dict.fromkeys(names) if len(n) >= 3 and " " not in n]
    kept = [n for n, df in doc_freq(toks).items() if 0 < df <= rare] if toks else []
    if not kept:
        return set()
    pat = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(n) for n in kept) + r")(?![\w])", re.I)
    return {mid for mid, r in rows.items() if r[_KIND] != Kind.EPISODE.value and pat.search(r[1])}


def wording_rare(c: Any, rows: dict[int, Any], question: str, doc_freq: Callable[[list[str]], dict[str, int]], n_rows: int) -> set[int]:
    """The episodes that word a rare content word of the question (not a name nor a light verb; in
    at most ``max(3, RESCUE_RARE * n_rows)`` memories) that no other memory of their message words:
    they keep their place beside their message's clauses ("Who's Frieda's teacher?": "Frieda started
    4th grade today, her teacher is Frau Kessler ..." beside its clause "Frieda started 4th grade
    ...", which says nothing of a teacher)."""
    rare = max(3, int(RESCUE_RARE * n_rows))
    content = set(content_words(question)) - LIGHT_VERBS
    toks = [w for w in dict.fromkeys(re.findall(r"(?<![\w'’])[a-z][a-z-]{3,}(?![\w'’])", question)) if w in content]
    kept = [w for w, df in doc_freq(toks).items() if 0 < df <= rare] if toks else []
    if not kept:
        return set()
    wording = {w: {mid for mid, r in rows.items() if re.search(rf"(?<![\w]){re.escape(w)}", r[1], re.I)} for w in kept}
    msg_of: dict[int, set[int]] = {}
    for mid, msg in reads.source_messages(c, sorted(set().union(*wording.values()))):
        msg_of.setdefault(mid, set()).add(msg)
    out: set[int] = set()
    for mids in wording.values():  # each word alone: an episode whose clauses lack it
        per_msg: dict[int, set[int]] = {}
        for mid in mids:
            for msg in msg_of.get(mid, ()):
                per_msg.setdefault(msg, set()).add(mid)
        out |= {m for ms in per_msg.values() if len(ms) == 1 for m in ms if rows[m][_KIND] == Kind.EPISODE.value}
    return out


def keep_rare(c: Any, rows: dict[int, Any], question: str, doc_freq: Callable[[list[str]], dict[str, int]], n_rows: int) -> set[int]:
    """The memories that keep their place beside their message's others: :func:`naming_rare` and
    :func:`wording_rare`."""
    return naming_rare(rows, ans.question_names(question), doc_freq, n_rows) | wording_rare(c, rows, question, doc_freq, n_rows)
