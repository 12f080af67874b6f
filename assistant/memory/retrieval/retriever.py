"""Hybrid retrieval over long-term memory (docs/DESIGN.md §6).

    retriever = Retriever(store, embedder)               # threshold: DEFAULT_THRESHOLD
    hits = retriever.search("where do I live?", k=5)     # list[Hit], best first
    hits = retriever.search("job", as_of=datetime(2022, 1, 1, tzinfo=UTC))  # what was true then

Pipeline for one query:

1. **Candidates come only from semantic search**: cosine of the query embedding against every
   stored vector that may pass the filter (a cached float32 matrix, :mod:`assistant.memory.store.vecscan.cache`), top
   ``max(4*k, 60)``. Each candidate is then re-checked against SQL with the store's own filter
   (:func:`assistant.memory.store.filters.select_sql`): the database decides, so nothing deleted, expired or
   invalidated comes back even from a stale cache. If the re-check removes candidates, the next
   best are fetched.
2. **Threshold on the semantic score, before fusion** (:func:`scoring.passes_threshold`):
   a candidate below it is out unless the question itself vouches for it (step 4).
3. **Re-rank** with FTS5's ``bm25()`` on the candidate rows (a version older than today's, asked
   with ``known_at``, is not in the index and gets no BM25 signal)
   and entity matches (rapidfuzz between query n-grams and the candidates' linked entities,
   damped by how many memories link to the entity), fused by :func:`scoring.fuse`.
4. **What the question asks** (:mod:`assistant.memory.retrieval.answerable`, issue 14: a question about
   something never said returns no memory). Gates a candidate must pass whatever its cosine:
   an episode that states nothing (a question or request the person typed) is no evidence; a
   question about the person's own relation ("my grandmother", "my dentist", "do I have a
   brother") gets nothing when no memory says the person has one, and otherwise only memories
   that name the relation (or a name given to it: "Pepper"), or messages that speak of
   "her/him"; "my favourite X" needs a memory naming X without disliking it; a name no memory
   contains ("Brazil") needs cosine >= ``NAME_COSINE``. Two ways in below the threshold, from
   ``RESCUE_MIN`` (0.2): a statement about the person containing a *rare* word of the question
   (in at most ``max(3, 2%)`` of memories; signal ``keyword``), and, for a slot question, a
   memory whose text claims that relation ("We've moved into the house in Oldfield Park" for
   "which city do I live in"; signal ``relation``).
5. **Profile slots** answer slot-shaped questions directly (:data:`textmatch.SLOT_QUESTIONS`,
   else by meaning: :func:`forms.meant_slots`, "Wo wohne ich?"): the current memory under a
   matching ``slot`` is fetched by SQL, ranked first with score 1.0 and a ``slot`` signal.
6. **One hit per source message first**: a profile, a fact and the episode of one message say
   one thing; the top ``k`` takes the best of each message, the others only fill what is left.

A question in the past tense ("How long *did* my train ride take?") also searches what is no
longer true (superseded or ended; each hit keeps its dates, and injection shows the end).

Default filter: currently valid (world time), not superseded, TTL not passed, status active
(``include_archived`` adds archived; a ``resolving`` memory is never retrieved). ``as_of`` asks about world time D, ``known_at``
about what the store believed at system time T (the version current at T is returned and, when
its text differs from today's, scored on its own text).

Threshold (:data:`DEFAULT_THRESHOLD` = 0.33, cosine of all-MiniLM-L6-v2): calibrated on the
labeled set ``tests/data/retrieval_set.json`` (49 memories about a fictional person, 38
paraphrased questions, 44 questions about things never said; the first 22 of them calibrated
it: their best wrong memories score 0.363, 0.339, then 0.320, and the threshold is that third
value + a 0.01 margin, rounded up). With the gates and the rescue of step 4: paraphrase
recall@5 0.895 (34/38), never-said questions with no memory 0.955 (42/44); the cosine threshold
alone gave 0.82 and 0.886. On the long conversation of ``keepsake bench retrieval --quality``
(270 messages, 75 questions) hybrid recall@5 is 0.947 against 0.88 for plain MiniLM cosine over
the raw messages. ``python tests/test_retrieval_quality.py`` prints the threshold table. Another
embedder brings its own threshold (its catalog entry; uncalibrated there) or takes the argument.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cdist

from assistant.memory.retrieval import answerable as ans, gates, questions, spelling
from assistant.memory.retrieval.forms import AnswerMatcher, cosines_for, meant_slots
from assistant.memory.retrieval import textmatch as tm
from assistant.memory.store.sqlite import fts
from assistant.memory.store import search_reads as reads
from assistant.memory.store.filters import MemoryFilter, select_sql
from assistant.memory.records import Kind, Scope, Status
from assistant.memory.store.rows import MEMORY_COLUMNS, hydrate
from assistant.memory.retrieval.scoring import (Hit, Hits, EntityMatch, Signal, bm25_signal, entity_signal, fuse,
                                                passes_threshold, semantic_signal)  # fmt: skip
from assistant.memory.store.vecscan.cache import cache_for
from assistant.memory.language.reading import english_embed
from assistant.memory.store.vecscan.filter import KIND_CODE, VecFilter
from assistant.memory.store.vecscan.read import to_us

DEFAULT_THRESHOLD = 0.33
RESCUE_MIN = gates.RESCUE_MIN  # below the threshold, a rare word of the question may still pass a memory
MIN_CANDIDATES = 60
MAX_CANDIDATES = 4096
ENTITY_MENTION_MIN = 0.8  # rapidfuzz ratio is lax on short strings ("lisbon"/"london" = 0.5)
ENTITY_PART_FACTOR = 0.9  # a query naming one part of an entity ("Tomás" for "Tomás Ferreira")
_TOKEN_CACHE_MAX = 50_000

Embed = Callable[[list[str]], list[list[float]]]


def _embed_fns(embedder: Any) -> tuple[Embed | None, Embed | None]:
    """(queries, documents): the embedder's ``embed_queries`` (query prompt) and ``embed``."""
    docs = getattr(embedder, "embed", None) if callable(getattr(embedder, "embed", None)) else embedder
    return getattr(embedder, "embed_queries", docs), docs


def _kind_tuple(kinds: Kind | str | Iterable[Kind | str] | None) -> tuple[Kind, ...] | None:
    if kinds is None:
        return None
    if isinstance(kinds, (str, Kind)):
        return (Kind(kinds),)
    return tuple(Kind(k) for k in kinds)


class Retriever:
    """``Retriever(store, embedder, *, threshold=None, scope=None)`` (None: the embedder's own).

    ``embedder``: an object with ``embed(list[str])`` (e.g. ``LlamaEmbedder``) or that callable
    itself. Thread-safe; the vector cache is shared by all retrievers of one store object.
    """

    def __init__(self, store: Any, embedder: Any, *, threshold: float | None = None,
                 scope: Scope | None = None, min_candidates: int = MIN_CANDIDATES) -> None:  # fmt: skip
        self.store = store
        own = getattr(getattr(embedder, "profile", None), "threshold", None)  # its catalog entry's, else MiniLM's
        self.threshold = float(threshold if threshold is not None else own if own is not None else DEFAULT_THRESHOLD)
        self.scope = scope
        self.min_candidates = int(min_candidates)
        self._embed, self._embed_docs = map(english_embed, _embed_fns(embedder))  # question, memory text: read in English
        self.matcher = AnswerMatcher(self._embed, cosines_for(embedder))  # memory answers: question forms (forms.py)
        self.matcher.spell = self.spell  # memory answers read the question as retrieval does
        self._is_word = spelling.single_token(embedder)  # "movie", "plot": words the embedder knows whole are no typos
        self.cache = cache_for(store, embedder)  # refuses an index made by another embedder
        self._stats_gen = -1
        self._rows_count: int | None = None
        self._names: tuple[str, ...] | None = None  # the person's own names (name slot), per cache generation
        self._relations: dict[tuple[str, MemoryFilter], tuple[bool, set[str]]] = {}  # relation_known, per generation
        self._vocab: dict[str, int] | None = None  # the memory index's terms (spelling), per generation
        self._terms: list[str] = []
        self._df: dict[str, int] = {}
        self._n_linked: dict[int, int] = {}
        self._entity_names: dict[int, tuple[str, str, list[str]]] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ public

    def embed_query(self, query: str) -> np.ndarray:
        """The unit query vector (float32) for ``query`` (cleaned as :meth:`search` does)."""
        if self._embed is None:
            raise ValueError("this retriever has no embedder")
        v = np.asarray(self._embed([fts.clean_query(query) or " "])[0], dtype=np.float32)
        return self._unit(v)

    def _unit(self, v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float32).reshape(-1)
        if v.shape[0] != self.store.dim:
            raise ValueError(f"query vector has {v.shape[0]} dimensions, the store holds {self.store.dim}")
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v

    def warm(self) -> None:
        """Load the vector cache now (the first search would; ~1-3 s at 100k memories): off the UI thread at start-up."""
        self.cache.sync(self.store)

    def spell(self, text: str) -> str:
        """``text`` with its typos corrected against the memories' words (:mod:`.spelling`; the
        index's terms are read once per store generation)."""
        if self._vocab is None:
            vocab = self.store.read(reads.vocabulary)
            with self._lock:
                self._vocab, self._terms = vocab, list(vocab)
        return spelling.correct(text, self._vocab, self._terms, self._is_word)

    def slot_question(self, query: str) -> tuple[str, ...]:
        """Profile slots a slot-shaped question asks for (see ``textmatch.SLOT_QUESTIONS``)."""
        return tm.slot_question(fts.clean_query(query))

    def search(
        self,
        query: str,
        *,
        k: int = 5,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        kinds: Kind | str | Iterable[Kind | str] | None = None,
        include_archived: bool = False,
        vector: Sequence[float] | np.ndarray | None = None,
        include_rejected: bool = False,
    ) -> list[Hit]:
        """Up to ``k`` memories for ``query``, best first (see the module docstring).

        ``vector``: a precomputed query embedding (skips the embedder). ``include_rejected``:
        also return candidates below the threshold (``passed_threshold=False``), after the
        others, for explanations."""
        text = fts.clean_query(query)
        if k <= 0 or not text:
            return []
        kind_t = _kind_tuple(kinds)
        now = self.store.now()
        history = as_of is None and known_at is None and ans.asks_past(text)
        # a resolving memory (a summary waiting for a decision) is never retrieved: only active (+ archived on request)
        statuses = (Status.ACTIVE, Status.ARCHIVED) if include_archived else (Status.ACTIVE,)
        f = MemoryFilter.build(kind=kind_t, status=statuses, as_of=as_of, known_at=known_at, scope=self.scope,
                               include_expired=history, include_invalid=history)  # fmt: skip
        vf = VecFilter(
            now_us=to_us(now),
            world_us=to_us(as_of) if as_of is not None else None,
            known_at_us=to_us(known_at) if known_at is not None else None,
            include_archived=include_archived,
            kinds=tuple(KIND_CODE[k_.value] for k_ in kind_t) if kind_t is not None else None,
            scope=self.scope.key if self.scope is not None else None,
            history=history,
        )
        self.cache.sync(self.store)
        with self._lock:
            if self._stats_gen != self.cache.generation:
                self._stats_gen, self._rows_count = self.cache.generation, None
                self._df, self._n_linked, self._names, self._relations, self._vocab = {}, {}, None, {}, None
        text = self.spell(text)  # "alergic" -> "allergic": MiniLM reads a typo far from the word
        slots = self.slot_question(text) if kind_t is None or Kind.PROFILE in kind_t else ()
        qv = self._unit(vector) if vector is not None else self.embed_query(questions.direct(text))  # "Tell me my sister's job."
        if not slots and (kind_t is None or Kind.PROFILE in kind_t):  # by meaning: "Wo wohne ich?"
            slots = meant_slots(self.matcher, text, qv, self.embed_query)
        asked = gates.asked_read(text)  # "mein Mann": the relation read in English too
        return self.store.read(lambda c: self._run(c, text, qv, k, f, vf, now, slots, include_rejected, asked))

    # ------------------------------------------------------------------ pipeline

    def _run(self, c: Any, text: str, qv: np.ndarray, k: int, f: MemoryFilter, vf: VecFilter, now: datetime,
             slots: tuple[str, ...], include_rejected: bool, asked: ans.Asked) -> list[Hit]:  # fmt: skip
        n = max(4 * k, self.min_candidates)
        sql, params = select_sql(f, now)
        rows: dict[int, Any] = {}
        cos: dict[int, float] = {}
        fetched, batch = 0, n
        while True:  # semantic candidates, re-checked by SQL; refill what the re-check removed
            ids, sims = self.cache.search(qv, vf, batch, skip=fetched)
            fetched += len(ids)
            if ids:
                for r in reads.rows_by_ids(c, sql, params, ids):
                    rows[r[0]] = r
                cos.update(zip(ids, sims))
            if len(rows) >= n or len(ids) < batch or sims[-1] < self.threshold or fetched >= MAX_CANDIDATES:
                break
            batch = min(2 * (n - len(rows)) + 16, MAX_CANDIDATES - fetched)
        slot_names = tm.slot_names(slots)
        slot_rows = reads.rows_by_slots(c, sql, params, slot_names) if slots else []
        # "User is a nurse.": a job without a slot, for a job question (kept beside its message's episode)
        roles = reads.rows_by_role(c, sql, params) if "job_title" in slot_names else []
        slot_ids, role_ids = [r[0] for r in slot_rows], {r[0] for r in roles}
        for r in [*slot_rows, *roles]:
            rows.setdefault(r[0], r)
        cos.update(self.cache.cosines([i for i in rows if i not in cos], qv))
        if not rows:
            return []
        old = self._rescore_old_versions(rows, cos, qv) if f.known_at is not None else set()
        if self._names is None:
            self._names = gates.person_names_in(c)
        names = self._names

        def known(relation: str) -> tuple[bool, set[str]]:
            key = (relation, f)
            if key not in self._relations:
                self._relations[key] = gates.relation_known(c, relation, f, now, names)
            return self._relations[key]

        named = gates.named_by_relation(c, sql, params, asked, known, rows)
        cos.update(self.cache.cosines(list(named - cos.keys()), qv))  # "Rafael ..."
        # ... and against "What does Rafael do?" (gates.read_with_names): below the threshold, they come first by it
        first = gates.named_cosines(named, gates.read_with_names(text, asked, known), self.cache.cosines, self.embed_query) \
            if self._embed is not None else {}
        gate = gates.gate(c, rows, cos, set(slot_ids), asked, slots, threshold=self.threshold, names=names, known=known, n_rows=lambda: self._n_rows(c),
                          doc_freq=lambda terms: self._doc_freq(c, terms), embed=self.embed_query if self._embed is not None else None)
        scored = self._score(c, text, rows, cos, set(slot_ids), include_rejected, gate, old)
        first.update(dict.fromkeys(role_ids, 1.0))  # a job by its structure, for a job question: first below the threshold
        order = sorted(scored, key=lambda h: (not h[2], h[3], -(first.get(h[0], 0.0) if not h[2] else 0.0), -h[1],
                                              -cos.get(h[0], 0.0), h[0]))  # fmt: skip
        by_name = gates.keep_rare(c, rows, text, lambda terms: self._doc_freq(c, terms), self._n_rows(c))
        top = gates.one_per_message(c, order, k, keep=named | role_ids | by_name)
        mems = {m.id: m for m in hydrate(c, [rows[h[0]] for h in top], f.known_at)}
        out = []
        for mid, score, passed, _tier, sigs in top:
            why = "" if passed else gate.reasons.get(mid) or f"semantic score below the threshold {self.threshold}"
            out.append(Hit(mems[mid], score, sigs, passed, why))
        return Hits(out, {n: rel for rel in asked.relations for n in sorted(known(rel)[1])})

    def _rescore_old_versions(self, rows: dict[int, Any], cos: dict[int, float], qv: np.ndarray) -> set[int]:
        """known_at: a version that differs from today's is scored on its own text (cosine of
        its own embedding); returns those ids."""
        version_col = MEMORY_COLUMNS.index("version")
        old = [mid for mid, r in rows.items() if self.cache.version_of(mid) not in (None, r[version_col])]
        if old and self._embed_docs is not None:
            vecs = self._embed_docs([rows[mid][1] for mid in old])
            for mid, v in zip(old, vecs):
                cos[mid] = float(self._unit(np.asarray(v, dtype=np.float32)) @ qv)
        return set(old)

    def _score(self, c: Any, text: str, rows: dict[int, Any], cos: dict[int, float], slot_ids: set[int],
               include_rejected: bool, gate: gates.Gate, old: set[int]) -> list[tuple[int, float, bool, int, tuple[Signal, ...]]]:  # fmt: skip
        semantic = {mid: semantic_signal(cos.get(mid, 0.0)) for mid in rows}
        ok = {mid: (passes_threshold(semantic[mid], self.threshold) or mid in gate.rescued or mid in gate.claimed)
              and mid not in gate.reasons for mid in rows}  # fmt: skip
        keep = [mid for mid in rows if mid in slot_ids or include_rejected or ok[mid]]
        if not keep:
            return []
        bm25 = self._bm25(c, text, [mid for mid in keep if mid not in old])
        entities = self._entities(c, text, keep)
        out = []
        for mid in keep:
            sigs = [semantic[mid], bm25.get(mid), entities.get(mid) if entities is not None else None]
            fused = fuse(sigs)
            passed = ok[mid]
            signals = fused.signals
            score = fused.score
            tier = 2
            if mid in slot_ids:
                signals, score, passed, tier = signals + (Signal("slot", 1.0, 1.0, 0.0),), 1.0, True, 0
            elif mid in gate.claimed and passed and not passes_threshold(semantic[mid], self.threshold):
                signals = signals + (Signal("relation", 1.0, 1.0, 0.0),)
            elif mid in gate.rescued and passed and not passes_threshold(semantic[mid], self.threshold):
                signals = signals + (Signal("keyword", 1.0, 1.0, 0.0),)
            out.append((mid, score, passed, tier, signals))
        return out

    # ------------------------------------------------------------------ bm25

    def _bm25(self, c: Any, text: str, ids: list[int]) -> dict[int, Signal]:
        """FTS5's own ``bm25(memory_fts)`` for the candidates ``ids``: the query's terms, each
        quoted and OR-ed (:func:`textmatch.match_expression`), restricted to those rows. BM25 is
        ``-sum(idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)))`` over the terms,
        k1 = 1.2, b = 0.75, ``idf = ln((N - df + 0.5) / (df + 0.5))``, with N, df and the average
        length taken over the whole index (every memory row). A candidate FTS5 does not return
        contains none of the terms: raw None, normalized 0."""
        terms = fts.query_terms(text)
        expr = fts.match_expression(text)
        if not terms or expr is None or not ids:
            return {}
        found = reads.bm25(c, expr, ids)
        return {mid: bm25_signal(found.get(mid), len(terms)) for mid in ids}

    def _n_rows(self, c: Any) -> int:
        """Rows in the FTS index (every memory row is indexed), cached per store generation."""
        if self._rows_count is None:
            self._rows_count = reads.count_rows(c)
        return self._rows_count

    def _doc_freq(self, c: Any, terms: list[str]) -> dict[str, int]:
        """Rows containing each term, from FTS5's own index (a per-connection ``fts5vocab``)."""
        for t in terms:
            if t not in self._df:
                self._df[t] = reads.doc_freq(c, t)
        return {t: self._df[t] for t in terms}

    # ------------------------------------------------------------------ entities

    def _entities(self, c: Any, text: str, ids: list[int]) -> dict[int, Signal] | None:
        """Entity signal per candidate, or None when the query names none of their entities."""
        links = reads.entity_links(c, ids)
        if not links:
            return None
        grams = tm.query_ngrams(text)
        if not grams:
            return None
        names = {}
        for _mid, eid, name in links:
            if eid not in names:
                cached = self._entity_names.get(eid)
                if cached is None or cached[0] != name:
                    if len(self._entity_names) > _TOKEN_CACHE_MAX:
                        self._entity_names.clear()
                    folded = fts.fold(name)
                    parts = [p for p in fts.fts_tokens(folded) if len(p) >= 4 and p not in tm.STOPWORDS]
                    cached = self._entity_names[eid] = (name, folded, parts if len(parts) > 1 else [])
                names[eid] = cached[1:]
        sim = self._entity_similarity(grams, names)
        mentioned = {eid: s for eid, s in sim.items() if s >= ENTITY_MENTION_MIN}
        if not mentioned:
            return None
        missing = [eid for eid in mentioned if eid not in self._n_linked]
        if missing:
            self._n_linked.update(reads.linked_counts(c, missing))
        per_memory: dict[int, list[EntityMatch]] = {mid: [] for mid in ids}
        for mid, eid, _name in links:
            if eid in mentioned:
                per_memory[mid].append(EntityMatch(mentioned[eid], self._n_linked.get(eid, 1)))
        return {mid: entity_signal(matches) for mid, matches in per_memory.items()}

    @staticmethod
    def _entity_similarity(grams: list[str], names: dict[int, tuple[str, list[str]]]) -> dict[int, float]:
        """Best rapidfuzz ratio (0..1) between a query n-gram and each (folded) entity name, or
        one of the words of a multi-word name (>= 4 letters, scaled by ENTITY_PART_FACTOR)."""
        choices: list[str] = []
        owner: list[tuple[int, float]] = []
        for eid, (name, parts) in names.items():
            choices.append(name)
            owner.append((eid, 1.0))
            for p in parts:
                choices.append(p)
                owner.append((eid, ENTITY_PART_FACTOR))
        grams_folded = [g.replace("'", " ") for g in grams]
        matrix = cdist(grams_folded, choices, scorer=fuzz.ratio, workers=1)
        best = matrix.max(axis=0) / 100.0
        out: dict[int, float] = {}
        for (eid, factor), s in zip(owner, best):
            out[eid] = max(out.get(eid, 0.0), float(s) * factor)
        return out
