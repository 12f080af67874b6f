"""Contradictions: candidates come from rules (or, optionally, the LLM); the decision is always
the interval algebra (:func:`assistant.memory.temporal.resolve`).

Candidates:

- **slot rule**: two current records of the same single-valued profile slot (home city,
  employer, ...) whose values differ ("Beijing" vs "Shanghai"). Same value -> a duplicate, not
  a conflict (dedup's ``slot_value`` tier); values that only overlap, or a record without a
  value, are left undecided (shown as candidates).
- **entity + similarity** (LLM only): current facts sharing an entity with cosine >= 0.6 are
  shown to the chat model by integer id; it may *propose* pairs that cannot both be true. Without
  a model these stay candidates: "likes oat milk" and "is allergic to oat milk" share an entity
  and are both true, so no rule may decide them.

Decision: records of a slot are replayed in the order Keepsake learned them; each newcomer is
resolved against every record still current (``resolve(old, new, now)``): the later-starting
fact supersedes (the older one gets ``invalid_at`` = the newer one's start and ``expired_at``),
a backfilled older fact ("I lived in Berlin in 2019") becomes historical instead, facts that do
not overlap are left alone, and equal or unknown starts decide nothing.

The superseded record's *followers* go with it in the same change: episodes (verbatim
messages) and restatements with the same value that came from the same message, so nothing
keeps presenting the old value as current. A follower that is also a source of the winner is
kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable

from assistant.memory.consolidation.changes import Candidate, Expect, Invalidate
from assistant.memory.consolidation.llm import LLMJudge
from assistant.memory.consolidation.snapshot import Rec, Snapshot, similar_pairs
from assistant.memory.consolidation.text import key_tokens
from assistant.memory.records import Kind
from assistant.memory.temporal import FactTimes, Rule, instant, resolve

# Slots that hold one value at a time. Other slots (siblings, pets, allergies...) may hold many:
# no rule invalidates them.
SINGLE_VALUED_SLOTS = frozenset(
    """name full_name preferred_name nickname home home_city city location address home_address
    hometown country employer company workplace job job_title occupation role position title
    school university age birthday birth_date date_of_birth partner spouse husband wife boyfriend
    girlfriend relationship_status timezone time_zone phone email""".split()
)  # fmt: skip


def single_valued(slot: str | None) -> bool:
    return bool(slot) and slot.strip().casefold() in SINGLE_VALUED_SLOTS  # type: ignore[union-attr]


@dataclass(frozen=True)
class ConflictConfig:
    entity_cosine: float = 0.6
    chunk: int = 512
    max_candidates: int = 200


@dataclass
class ConflictResult:
    changes: list[Invalidate] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)


def _followers(snap: Snapshot, loser: Rec, winner: Rec, taken: set[int]) -> list[Rec]:
    """Current episodes sourced by a message that stated ``loser``, and same-value restatements
    from that message (not the slot record itself, not sources of the winner)."""
    if not loser.message_ids:
        return []
    msgs = set(loser.message_ids)
    win_msgs = set(winner.message_ids)
    values = key_tokens(loser.text).values
    out = []
    for r in snap.sourced_by(msgs):
        if r.id in (loser.id, winner.id) or r.id in taken or not r.is_current(snap.now) or r.scope != loser.scope:
            continue
        if win_msgs & set(r.message_ids):
            continue
        if r.kind is Kind.EPISODE or (not r.slot and values and key_tokens(r.text).values == values):
            out.append(r)
    return out


def plan_conflicts(snap: Snapshot, *, exclude: Iterable[int] = (), judge: LLMJudge | None = None,
                   config: ConflictConfig = ConflictConfig()) -> ConflictResult:  # fmt: skip
    now = snap.now
    skip = set(exclude)
    out = ConflictResult()
    stats = {"slot_groups": 0, "slot_pairs": 0, "undecided": 0, "entity_pairs": 0, "llm_proposed": 0}
    taken: set[int] = set()  # records already changed by this plan
    slots: dict[tuple[str, str], list[Rec]] = {}
    for r in snap.recs:
        if r.slot and r.kind is not Kind.EPISODE and r.id not in skip and r.is_current(now) and single_valued(r.slot):
            slots.setdefault((r.scope, r.slot.strip().casefold()), []).append(r)

    def note(kind: str, a: Rec, b: Rec, why: str) -> None:
        stats["undecided"] += 1
        if len(out.candidates) < config.max_candidates:
            out.candidates.append(Candidate(kind, (a.id, b.id), why))

    def decide(old: Rec, new: Rec, via: str, why: str, times: dict[int, FactTimes]) -> Rec | None:
        """Resolve old vs new; returns the record that stopped being current (or None)."""
        changes = resolve(times[old.id], times[new.id], now)
        if not changes:
            from assistant.memory.temporal import decide as rule_of

            rule = rule_of(times[old.id], times[new.id])
            if rule in (Rule.SAME_START, Rule.UNDATED):
                note("conflict", old, new, f"{why}: {rule.value}")
            return None
        ch = changes[0]
        loser, winner = (old, new) if ch.target == "old" else (new, old)
        followers = _followers(snap, loser, winner, taken)
        until = instant(ch.invalid_at)
        followers = [f for f in followers if f.valid_at is None or f.valid_at <= until]
        out.changes.append(Invalidate(
            memory_id=loser.id, invalid_at=until, expired_at=ch.expired_at, winner=winner.id, rule=ch.rule.name,
            via=via, reason=f"{why}: {ch.reason}", texts=(loser.text, winner.text),
            followers=tuple(f.id for f in followers), follower_texts=tuple(f.text for f in followers),
            expects=(Expect.of(loser), Expect.of(winner), *(Expect.of(f) for f in followers)),
        ))  # fmt: skip
        times[loser.id] = replace(times[loser.id], invalid_at=ch.invalid_at, expired_at=ch.expired_at)
        taken.add(loser.id)
        taken.update(f.id for f in followers)
        return loser

    # -- slot rule
    for (_scope, slot), members in slots.items():
        if len(members) < 2:
            continue
        stats["slot_groups"] += 1
        times = {r.id: r.times() for r in members}
        current: list[Rec] = []
        for new in sorted(members, key=lambda r: (r.created_at, r.id)):
            vn = key_tokens(new.text).values
            alive = True
            for old in list(current):
                stats["slot_pairs"] += 1
                vo = key_tokens(old.text).values
                if vo == vn and vo:
                    continue  # same value: a duplicate (dedup), not a conflict
                if not vo or not vn or (vo & vn):
                    note("conflict", old, new, f"same slot '{slot}' but values {sorted(vo)} / {sorted(vn)} cannot be compared")
                    continue
                lost = decide(old, new, "slot", f"same slot '{slot}' ({', '.join(sorted(vo))} -> {', '.join(sorted(vn))})", times)
                if lost is old:
                    current.remove(old)
                elif lost is new:
                    alive = False
                    break
            if alive:
                current.append(new)

    # -- same entity, high similarity: the LLM may propose
    pairs: list[tuple[Rec, Rec, float, str]] = []
    by_entity: dict[tuple[str, str], list[Rec]] = {}
    for r in snap.recs:
        if r.kind in (Kind.FACT, Kind.EXPERIENCE) and not r.slot and r.entities and r.row >= 0 \
                and r.id not in skip and r.id not in taken and r.is_current(now):  # fmt: skip
            for e in r.entities:
                by_entity.setdefault((r.scope, e), []).append(r)
    seen: set[tuple[int, int]] = set()
    # without a model these pairs are only shown, so a screenful is enough
    limit = judge.max_pairs * 4 if judge is not None else config.max_candidates
    for (_scope, entity), members in sorted(by_entity.items(), key=lambda kv: len(kv[1])):
        if len(members) < 2 or len(pairs) >= limit:
            continue
        for i, j, cos in similar_pairs(snap.vectors, [m.row for m in members], config.entity_cosine, chunk=config.chunk, per_row=4):
            a, b = sorted((members[i], members[j]), key=lambda r: (r.created_at, r.id))
            if (a.id, b.id) not in seen:
                seen.add((a.id, b.id))
                pairs.append((a, b, cos, entity))
    stats["entity_pairs"] = len(pairs)
    pairs.sort(key=lambda p: -p[2])
    if judge is not None and pairs:
        asked = pairs[: judge.max_pairs]
        chosen = judge.contradictions([(a.text, b.text) for a, b, _, _ in asked])
        stats["llm_proposed"] = len(chosen)
        for k in sorted(chosen):
            a, b, cos, entity = asked[k]
            if a.id in taken or b.id in taken:
                continue
            times = {a.id: a.times(), b.id: b.times()}
            decide(a, b, "llm", f"proposed by the model (entity '{entity}', cosine {cos:.2f})", times)
    else:
        for a, b, cos, entity in pairs[: config.max_candidates]:
            note("conflict", a, b, f"same entity '{entity}', cosine {cos:.2f}: only the LLM may propose a conflict here")
    out.stats = stats
    return out
