"""Episodic -> semantic: when the person said the same thing in several messages, the episodes
(verbatim messages) get one fact that states it, linked ``episode --evolve_to--> fact``.

- Clusters: current episodes of one scope, from different messages, not consolidated before,
  with cosine >= 0.9 and :func:`same_fact_guard` (after grounding relative dates against each
  message's own observation date, so "yesterday" in two messages is two different days).
  Union-find; the representative is the member closest to the others; only its direct
  neighbours join it.
- Skipped when a current fact/profile record already says it (same text, or cosine >= 0.92 and
  the guard passes).
- Text: the representative's own words, dates grounded. With a chat model, a rewrite is asked
  for and kept only when every proper noun and number in it occurs in the episodes and it keeps
  their numbers/names/polarity (the same source validation as capture); otherwise the
  representative's text is used. Never invented.
- Trust: the lowest of the episodes' (docs/DESIGN.md §9); confidence: the lowest too; sources:
  the union of the episodes' sources (added when applied); entities: the union.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timezone
from typing import Iterable

import numpy as np

from assistant.memory.store.tidying.changes import Candidate, Consolidate, Expect
from assistant.memory.consolidation.llm import LLMJudge
from assistant.memory.store.tidying.snapshot import Rec, Snapshot, similar_pairs
from assistant.memory.language.text import grounded_in, hard_guard, loose_normalize, same_fact_guard
from assistant.memory.consolidation.plans.unionfind import UnionFind
from assistant.memory.records import Kind, Trust
import re
from assistant.memory.language.dates import ground
from assistant.memory.language.validate import validate
from assistant.memory.language.rules import finish, third_person

_DATE_HINT = None  # compiled lazily


@dataclass(frozen=True)
class EpisodicConfig:
    cosine: float = 0.9
    covered_cosine: float = 0.92
    chunk: int = 512
    max_members: int = 16


@dataclass
class EpisodicResult:
    changes: list[Consolidate] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)


def _ground(text: str, observed: datetime) -> tuple[str, datetime | None]:
    global _DATE_HINT
    if _DATE_HINT is None:
        _DATE_HINT = re.compile(
            r"\b(?:yesterday|today|tonight|tomorrow|last|next|this|ago|in \d+|on the \d+|"
            r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|[昨今明前后上下本这]"
            r"[天周月年]|号", re.I,
        )  # fmt: skip
    if not _DATE_HINT.search(text):
        return text, None
    g = ground(text, observed)
    valid = datetime.combine(g.valid_at, time.min, tzinfo=timezone.utc) if g.valid_at is not None else None
    return g.text, valid


def _grounded(rec: Rec) -> tuple[str, datetime | None] | None:
    """The episode's text with relative dates made absolute against its own observation date;
    None when the messages it came from ground it differently ("yesterday", said on two days)."""
    times = rec.observations or (rec.observed_at or rec.created_at,)
    first = _ground(rec.text, times[0])
    for t in times[1:]:
        if not same_fact_guard(_ground(rec.text, t)[0], first[0]).ok:
            return None
    return first


def _capture_validate(fact: str, sources: list[str]) -> str | None:
    """Capture's own source validation (:func:`assistant.memory.language.validate.validate`)."""
    return validate(fact, sources)


def _third_person(text: str, sources: list[str]) -> str | None:
    """"I go climbing" -> "User goes climbing." when capture's rules can say it and it validates."""
    try:
        fact = finish(third_person(text))
    except Exception:  # noqa: BLE001 - a phrasing helper never breaks a run
        return None
    if fact == text or not fact.startswith("User") or "User's" in fact[4:]:
        return None
    return fact if _capture_validate(fact, sources) is None and hard_guard(fact, text).ok else None


def _check_rewrite(proposal: str, text: str, sources: list[str]) -> str | None:
    """Why a model rewrite is refused (None: accepted). Never invent: names and numbers must
    occur in the episodes, keep the representative's numbers/names/polarity, and pass capture's
    validation."""
    ok = grounded_in(proposal, sources)
    if not ok.ok:
        return ok.why
    same = hard_guard(proposal, text)
    if not same.ok:
        return same.why
    return _capture_validate(proposal, sources)


def plan_episodic(snap: Snapshot, *, exclude: Iterable[int] = (), judge: LLMJudge | None = None,
                  config: EpisodicConfig = EpisodicConfig()) -> EpisodicResult:  # fmt: skip
    now = snap.now
    skip = set(exclude)
    out = EpisodicResult()
    stats = {"episodes": 0, "pairs": 0, "clusters": 0, "covered": 0, "rewrites_rejected": 0}
    scopes: dict[str, list[Rec]] = {}
    facts: dict[str, list[Rec]] = {}
    said: dict[tuple[str, str], Rec] = {}  # (scope, loose text) -> a current fact saying it
    for r in snap.recs:
        if not r.is_current(now) or r.id in skip:
            continue
        if r.kind is not Kind.EPISODE:
            said.setdefault((r.scope, loose_normalize(r.text)), r)
            if r.row >= 0:
                facts.setdefault(r.scope, []).append(r)
        elif not r.evolved and r.row >= 0:
            scopes.setdefault(r.scope, []).append(r)
    grounded: dict[int, tuple[str, datetime | None] | None] = {}

    def g(r: Rec) -> tuple[str, datetime | None] | None:
        if r.id not in grounded:
            grounded[r.id] = _grounded(r)
        return grounded[r.id]

    for scope, eps in scopes.items():
        stats["episodes"] += len(eps)
        if len(eps) < 2 and not any(len(e.message_ids) >= 2 for e in eps):
            continue
        uf = UnionFind()
        adj: dict[int, dict[int, float]] = {}
        for i, j, cos in similar_pairs(snap.vectors, [e.row for e in eps], config.cosine, chunk=config.chunk):
            a, b = eps[i], eps[j]
            if set(a.message_ids) & set(b.message_ids):
                continue  # the same message
            stats["pairs"] += 1
            ga, gb = g(a), g(b)
            if ga is None or gb is None or not same_fact_guard(ga[0], gb[0]).ok:
                continue
            uf.union(a.id, b.id)
            adj.setdefault(a.id, {})[b.id] = cos
            adj.setdefault(b.id, {})[a.id] = cos
        clusters = []
        grouped: set[int] = set()
        for group in uf.groups():
            grouped.update(group)
            rep = max(group, key=lambda i: (sum(adj.get(i, {}).values()), -len(snap.by_id[i].text), -i))
            members = [rep] + sorted(adj.get(rep, {}), key=lambda i: -adj[rep][i])[: config.max_members - 1]
            if len(members) >= 2:
                clusters.append([snap.by_id[i] for i in members])
        # the same words in two messages: the hot path kept one episode with both sources
        clusters += [[e] for e in eps if e.id not in grouped and len(e.message_ids) >= 2 and g(e) is not None]
        if not clusters:
            continue
        # already said by a fact? (one matmul of the representatives against the scope's facts)
        known = facts.get(scope, [])
        reps = np.stack([snap.vectors[c[0].row] for c in clusters])
        best_fact: list[tuple[float, Rec | None]] = [(0.0, None)] * len(clusters)
        for start in range(0, len(known), config.chunk):
            part = known[start : start + config.chunk]
            sims = reps @ snap.vectors[[f.row for f in part]].T
            for ci in range(len(clusters)):
                k = int(np.argmax(sims[ci]))
                if sims[ci, k] > best_fact[ci][0]:
                    best_fact[ci] = (float(sims[ci, k]), part[k])
        for ci, members in enumerate(clusters):
            rep = members[0]
            text, valid_at = g(rep)  # type: ignore[misc]
            cos, fact = best_fact[ci]
            exact = said.get((scope, loose_normalize(text)))
            if exact is not None or (fact is not None and cos >= config.covered_cosine and same_fact_guard(fact.text, text).ok):
                stats["covered"] += 1
                covered = exact or fact
                out.candidates.append(Candidate("consolidate", (rep.id, covered.id), f"already stated by #{covered.id}"))  # type: ignore[union-attr]
                continue
            sources = [g(m)[0] for m in members]  # type: ignore[index]
            vector: tuple[float, ...] | None = tuple(float(x) for x in snap.vectors[rep.row]) if text == rep.text else None
            how = "the most central episode's own words"
            third = _third_person(text, sources)
            if third is not None:
                text, vector, how = third, None, "the most central episode, in the third person"
            if judge is not None:
                proposal = judge.rewrite(sources)
                if proposal:
                    why = _check_rewrite(proposal, text, sources)
                    if why is None:
                        text, vector, how = proposal, None, "rewritten by the model, every name and number checked against the episodes"
                    else:
                        stats["rewrites_rejected"] += 1
                        how += f" (model rewrite rejected: {why})"
            stats["clusters"] += 1
            entities = tuple(sorted({e for m in members for e in m.entities}))
            out.changes.append(Consolidate(
                text=text, episodes=tuple(m.id for m in members), scope=scope,
                trust=Trust.lowest(m.trust for m in members), confidence=min(m.confidence for m in members),
                valid_at=valid_at, entities=entities,
                reason=f"said in {len({m for e in members for m in e.message_ids}) or len(members)} messages "
                       f"(cosine >= {config.cosine}); text: {how}",
                vector=vector, expects=tuple(Expect.of(m) for m in members),
            ))  # fmt: skip
    out.stats = stats
    return out
