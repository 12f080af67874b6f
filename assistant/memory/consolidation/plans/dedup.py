"""Duplicate detection, in tiers from cheapest and surest to most expensive:

1. ``hash``: same content hash (NFKC, casefolded, trailing punctuation dropped);
2. ``normalized``: same text once punctuation and symbols are removed
   (:func:`~assistant.memory.language.text.loose_normalize`);
3. ``fuzzy``: rapidfuzz ratio >= 0.9 (best of ``ratio`` / ``token_sort_ratio``) AND cosine of
   the stored vectors >= 0.92, AND :func:`same_fact_guard` (same numbers, proper nouns,
   polarity, no content word substituted);
4. ``llm`` (optional): pairs with cosine >= 0.92 that pass :func:`hard_guard` but not tier 3
   are shown to the chat model by integer id; it may confirm them, it cannot override the guard;
5. ``slot_value``: two records of the same profile slot with the same value ("Lives in Beijing"
   / "Home city: Beijing") and the same numbers/proper nouns/polarity;
6. ``claim``: a profile, fact or experience and another of any of these kinds that make the same
   claim about the person (:mod:`.claims`: same relation, same value: "User has a dog named
   Miso." / "User's dog is called Miso.") with the same content words, numbers, proper nouns
   and polarity once the subject is canonical. A claim merge never loses a word: only true
   paraphrases merge.

**The person's own name is the subject "User"**: every tier compares texts with the person's
names (from the ``name`` slot: "Dana", "Dana Reyes") rewritten to "User"
(:func:`~.claims.canonical_text`), so "Dana has a dog named Miso." and "User has a dog named
Miso." are the same text.

Tiers 1-5 compare current records of the same scope, kind and slot; tier 6 crosses kinds
(episodes, being the verbatim messages, are never merged). Pairwise work is blocked by (scope, kind, slot) and done
in cosine chunks (:func:`similar_pairs`). Clusters are formed with union-find; in each, the
survivor is the pinned / most trusted / most detailed / most used / tidiest / newest record, and
only members with a *direct* duplicate edge to the survivor are merged into it (no merging by
chains). A record holding a profile slot survives a claim merge with a slot-less one (slot
questions keep their answer). The survivor keeps its own text and trust (a duplicate corroborates, it does not lower
trust); its confidence rises to the group's highest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from assistant.memory.store.tidying.changes import Candidate, Expect, Merge
from assistant.memory.language.claims import NAME_SLOTS, canonical_text, claims, person_names
from assistant.memory.consolidation.llm import LLMJudge
from assistant.memory.store.tidying.snapshot import Rec, Snapshot, similar_pairs
from assistant.memory.language.text import hard_guard, key_tokens, loose_normalize, ratio, same_fact_guard
from assistant.memory.consolidation.plans.unionfind import UnionFind
from assistant.memory.records import Kind

DEDUP_KINDS = (Kind.PROFILE, Kind.FACT, Kind.EXPERIENCE)
MAX_CANDIDATES = 200  # undecided pairs kept for --dry-run display


@dataclass(frozen=True)
class DedupConfig:
    ratio: float = 0.9
    cosine: float = 0.92
    chunk: int = 512
    max_slot_block: int = 512


@dataclass
class DedupResult:
    merges: list[Merge] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)


def _tidiness(text: str) -> int:
    """Prefer the cleanly written twin: a capital first letter, no shouting or stray commas."""
    t = text.strip()
    return (2 if t[:1].isupper() else 0) - t.count("!") - t.count("?") - t.count(",") - t.count("  ")


def _priority(r: Rec) -> tuple:
    """Survivor order: pinned, holds a slot, most trusted, most detailed, most used, tidiest, newest."""
    return (r.pinned, bool(r.slot), r.trust.rank, len(key_tokens(r.text).content), r.use_count, _tidiness(r.text), r.id)


def plan_dedup(snap: Snapshot, *, exclude: Iterable[int] = (), judge: LLMJudge | None = None,
               config: DedupConfig = DedupConfig()) -> DedupResult:  # fmt: skip
    now = snap.now
    skip = set(exclude)
    out = DedupResult()
    stats = {"compared_pairs": 0, "blocks": 0, "guard_rejected": 0, "llm_pairs": 0}
    blocks: dict[tuple, list[Rec]] = {}
    current = [r for r in snap.recs if r.kind in DEDUP_KINDS and r.id not in skip and r.is_current(now)]
    names = person_names(r.text for r in current if r.slot and r.slot.strip().casefold() in NAME_SLOTS)
    canon = {r.id: canonical_text(r.text, names) for r in current}
    for r in current:
        blocks.setdefault((r.scope, r.kind, r.slot or ""), []).append(r)
    edges: dict[tuple[int, int], tuple[str, str]] = {}  # (a, b) a<b -> (tier, reason)
    loose_of: dict[int, str] = {}
    uf = UnionFind()
    by_id = snap.by_id

    def direct(a: Rec, b: Rec) -> tuple[str, str] | None:
        if a.content_hash == b.content_hash:
            return ("hash", "identical text")
        if loose_of.get(a.id) is not None and loose_of.get(a.id) == loose_of.get(b.id):
            return ("normalized", "identical once punctuation is ignored")
        return edges.get((min(a.id, b.id), max(a.id, b.id)))

    def edge(a: Rec, b: Rec, tier: str, why: str) -> None:
        key = (min(a.id, b.id), max(a.id, b.id))
        if key not in edges:
            edges[key] = (tier, why)
            uf.union(a.id, b.id)

    llm_queue: list[tuple[Rec, Rec, float]] = []
    for (_scope, _kind, slot), members in blocks.items():
        if len(members) < 2:
            continue
        stats["blocks"] += 1
        # tiers 1 and 2: exact groups (transitive: every member is a duplicate of every other)
        by_hash: dict[str, list[Rec]] = {}
        by_loose: dict[str, list[Rec]] = {}
        for r in members:
            by_hash.setdefault(r.content_hash, []).append(r)
            by_loose.setdefault(loose_normalize(canon[r.id]), []).append(r)
        for group in list(by_hash.values()) + list(by_loose.values()):
            for r in group[1:]:
                uf.union(group[0].id, r.id)
            for r in group:
                loose_of[r.id] = loose_normalize(canon[r.id])
        # tier 3 (+ llm queue): cosine blocks
        with_vec = [r for r in members if r.row >= 0]
        rows = [r.row for r in with_vec]
        for i, j, cos in similar_pairs(snap.vectors, rows, config.cosine, chunk=config.chunk):
            a, b = with_vec[i], with_vec[j]
            stats["compared_pairs"] += 1
            if direct(a, b) is not None:
                continue
            ta, tb = canon[a.id], canon[b.id]
            rt = ratio(ta, tb)
            if rt >= config.ratio:
                v = same_fact_guard(ta, tb)
                if v.ok:
                    edge(a, b, "fuzzy", f"ratio {rt:.2f}, cosine {cos:.3f}")
                    continue
                stats["guard_rejected"] += 1
                if len(out.candidates) < MAX_CANDIDATES:
                    out.candidates.append(Candidate("duplicate", (a.id, b.id), f"similar (ratio {rt:.2f}, cosine {cos:.3f}) but {v.why}"))
            if judge is not None and hard_guard(ta, tb).ok:
                llm_queue.append((a, b, cos))
        # tier 5: same slot, same value
        if slot and len(members) <= config.max_slot_block:
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    a, b = members[x], members[y]
                    va, vb = key_tokens(a.text).values, key_tokens(b.text).values
                    if va and va == vb and direct(a, b) is None and hard_guard(canon[a.id], canon[b.id]).ok:
                        edge(a, b, "slot_value", f"same slot '{slot}', same value {sorted(va)}")
    # tier 6: the same claim about the person, across kinds
    by_claim: dict[tuple, list[Rec]] = {}
    for r in current:
        for c in claims(r.text, names):
            if not c.ended:
                by_claim.setdefault((r.scope, c.relation, c.value), []).append(r)
    for (_scope, relation, value), members in by_claim.items():
        for x in range(min(len(members), config.max_slot_block)):
            for y in range(x + 1, min(len(members), config.max_slot_block)):
                a, b = members[x], members[y]
                if direct(a, b) is not None:
                    continue
                ka, kb = key_tokens(canon[a.id]), key_tokens(canon[b.id])
                if ka.content == kb.content and hard_guard(canon[a.id], canon[b.id]).ok:
                    edge(a, b, "claim", f"the same claim ({relation}: {', '.join(sorted(value))}), the same words")
    if judge is not None and llm_queue:
        llm_queue.sort(key=lambda t: -t[2])
        llm_queue = llm_queue[: judge.max_pairs]
        stats["llm_pairs"] = len(llm_queue)
        for k in judge.same_meaning([(a.text, b.text) for a, b, _ in llm_queue]):
            a, b, cos = llm_queue[k]
            edge(a, b, "llm", f"the model judged them the same fact (cosine {cos:.3f}); guard passed")
    for group in uf.groups():
        recs = [by_id[i] for i in group]
        survivor = max(recs, key=_priority)
        merged, reasons, tiers = [], [], []
        for r in sorted(recs, key=lambda x: x.id):
            if r is survivor:
                continue
            e = direct(r, survivor)
            if e is None:
                continue  # only through a chain: left for a later run
            merged.append(r)
            tiers.append(e[0])
            reasons.append(f"{e[0]}: {e[1]}")
        if not merged:
            continue
        best = max([survivor.confidence] + [m.confidence for m in merged])
        tier = min(tiers, key=["hash", "normalized", "slot_value", "claim", "fuzzy", "llm"].index)
        out.merges.append(Merge(
            survivor=survivor.id, merged=tuple(m.id for m in merged), tier=tier, reasons=tuple(reasons),
            texts=(survivor.text, *(m.text for m in merged)),
            confidence=best if best > survivor.confidence else None,
            expects=(Expect.of(survivor), *(Expect.of(m) for m in merged)),
        ))  # fmt: skip
    stats["merges"] = len(out.merges)
    out.stats = stats
    return out
