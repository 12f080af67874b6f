"""Contradictions: candidates come from rules (or, optionally, the LLM); the decision is always
the interval algebra (:func:`assistant.memory.language.temporal.resolve`).

Candidates (proposed by code):

- **one value at a time** (:mod:`.relations`): records of the same single-valued profile slot
  (home city, employer, ...), and every profile, fact or episode whose text *claims* a value of
  a single-valued relation (:mod:`.claims`: "I live in Beijing, near the Drum Tower", "I cycle
  to work", "User takes the train to work now") form one group per (scope, relation). Two
  members with different values ("Beijing" vs "Shanghai", bicycle vs train) are a candidate;
  the same value is a copy (or a duplicate for dedup), not a conflict; values that only
  overlap, or a record without a value, are left undecided (shown as candidates). Two records
  from one message never contradict each other.
- **ended values**: "I sold my bike", "I no longer work at Tesco", "I switched from Vim to
  Emacs" end every earlier current statement of that thing: the members of the relation with
  that value, or (no relation named) the first-person records that mention every word of it and
  whose vectors are at least ``ended_cosine`` close to the ending statement.
- **entity + similarity** (LLM only): current facts sharing an entity with cosine >= 0.6 are
  shown to the chat model by integer id; it may *propose* pairs that cannot both be true. Without
  a model these stay candidates: "likes oat milk" and "is allergic to oat milk" share an entity
  and are both true, so no rule may decide them.

Decision: a group's records are replayed in the order Keepsake learned them; each newcomer is
resolved against every record still current (``resolve(old, new, now)``): the later-starting
fact supersedes (the older one gets ``invalid_at`` = the newer one's start and ``expired_at``),
a backfilled older fact ("I lived in Berlin in 2019") becomes historical instead, facts that do
not overlap are left alone, and equal or unknown starts decide nothing.

**Every copy goes with it**, in the same change (*followers*): episodes (verbatim messages) and
same-value restatements from the loser's message, and every current record of the group that
asserts the loser's value, from any message ("User lives in Beijing." superseded -> "User lives
in Beijing, near the Drum Tower." and the episode "I live in Beijing ..." too). Each follower
gets the same ``invalid_at`` (world time; never erased: ``as_of`` before it still finds them);
one that starts after that date, or shares a message with the winner, is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Iterable

from assistant.memory.store.tidying.changes import Candidate, Expect, Invalidate
from assistant.memory.language.claims import ANY, NAME_SLOTS, ends_something, person_names
from assistant.memory.consolidation.plans.shifts import ShiftConfig, plan_shifts
from assistant.memory.consolidation.plans.relations import SINGLE_VALUED_SLOTS, Member, relation_groups, single_valued
from assistant.memory.consolidation.llm import LLMJudge
from assistant.memory.store.tidying.snapshot import Rec, Snapshot, similar_pairs
from assistant.memory.language.text import key_tokens
from assistant.memory.records import Kind
from assistant.memory.language.temporal import FactTimes, Rule, instant, resolve, said, stated
from assistant.memory.language.temporal import decide as rule_of

__all__ = ["ConflictConfig", "ConflictResult", "SINGLE_VALUED_SLOTS", "plan_conflicts", "single_valued"]


@dataclass(frozen=True)
class ConflictConfig:
    entity_cosine: float = 0.6
    ended_cosine: float = 0.3  # "I sold my bike" ends "I cycle to work" only when the two are this close
    chunk: int = 512
    max_candidates: int = 200
    shifts: ShiftConfig = ShiftConfig()


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


def _starts_by(rec: Rec, until: datetime, winner: Rec) -> bool:
    """Whether ``rec`` (a copy of the loser) ends with it at ``until``: it started by then, or its
    start is only observed and it was said no later than the winner (its start becomes unknown)."""
    start = rec.valid_at or rec.observed_at or rec.created_at
    if start <= until:
        return True
    t = rec.times()
    return not stated(t) and said(t) <= said(winner.times())


def _said_before(old: Rec, new: Rec) -> bool:
    """``old`` was first said before ``new`` ("I have a dog named Rex", then "I gave away my dog
    Rex": the second message's own copy of the first does not keep it alive)."""
    return old.observed_at is not None and new.observed_at is not None and old.observed_at < new.observed_at


def plan_conflicts(snap: Snapshot, *, exclude: Iterable[int] = (), judge: LLMJudge | None = None,
                   config: ConflictConfig = ConflictConfig()) -> ConflictResult:  # fmt: skip
    now = snap.now
    skip = set(exclude)
    out = ConflictResult()
    stats = {"slot_groups": 0, "slot_pairs": 0, "claim_groups": 0, "claim_pairs": 0, "ended": 0, "shifts": 0, "copies": 0,
             "undecided": 0, "entity_pairs": 0, "llm_proposed": 0}  # fmt: skip
    taken: set[int] = set()  # records already changed by this plan
    times: dict[int, FactTimes] = {}
    current = [r for r in snap.recs if r.id not in skip and r.is_current(now)]
    names = person_names(r.text for r in current if r.slot and r.slot.strip().casefold() in NAME_SLOTS)
    groups = relation_groups(current, names)

    def note(kind: str, a: Rec, b: Rec, why: str) -> None:
        stats["undecided"] += 1
        if len(out.candidates) < config.max_candidates:
            out.candidates.append(Candidate(kind, (a.id, b.id), why))

    def decide(old: Rec, new: Rec, via: str, why: str, stale: frozenset[str] = frozenset(), relation: str = "") -> Rec | None:
        """Resolve old vs new; returns the record that stopped being current (or None). The
        loser's copies (same-message episodes and restatements, and every current record that
        claims the same ``stale`` value of ``relation``) stop with it."""
        for r in (old, new):
            times.setdefault(r.id, r.times())
        changes = resolve(times[old.id], times[new.id], now)
        if not changes:
            rule = rule_of(times[old.id], times[new.id])
            if rule in (Rule.SAME_START, Rule.UNDATED):
                note("conflict", old, new, f"{why}: {rule.value}")
            return None
        ch = changes[0]
        loser, winner = (old, new) if ch.target == "old" else (new, old)
        until = instant(ch.invalid_at)
        followers = _followers(snap, loser, winner, taken)
        if ch.target == "old" and stale and relation != ANY:  # (an ending's other statements are each decided)
            seen = {f.id for f in followers}
            copies = [c for c in groups.copies(loser.scope, relation, stale) if c.id not in seen and c.id not in (loser.id, winner.id)
                      and c.id not in taken and not set(c.message_ids) & set(winner.message_ids)]  # fmt: skip
            stats["copies"] += len(copies)
            followers += copies
        followers = [f for f in followers if _starts_by(f, until, winner)]
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

    # -- one value at a time: slot records and statements claiming the same relation, replayed
    # in the order Keepsake learned them
    for (_scope, relation), members in groups.single.items():
        if len(members) < 2:
            continue
        by_slot = all(m.rec.slot for m in members)
        stats["slot_groups" if by_slot else "claim_groups"] += 1
        alive_now: list[Member] = []
        for new in sorted(members, key=lambda m: (m.rec.created_at, m.rec.kind is Kind.EPISODE, m.rec.id)):
            if new.rec.id in taken:
                continue
            alive = True
            for old in list(alive_now):
                if old.rec.id in taken:
                    alive_now.remove(old)
                    continue
                if set(old.rec.message_ids) & set(new.rec.message_ids):
                    continue  # one message does not contradict itself
                stats["slot_pairs" if old.rec.slot and new.rec.slot else "claim_pairs"] += 1
                vo, vn = old.value, new.value
                if vo == vn and vo:
                    continue  # same value: a copy or a duplicate (dedup), not a conflict
                if not vo or not vn or (vo & vn):
                    note("conflict", old.rec, new.rec, f"same {'slot' if by_slot else 'relation'} '{relation}' but values "
                                                       f"{sorted(vo)} / {sorted(vn)} cannot be compared")  # fmt: skip
                    continue
                via = "slot" if old.rec.slot and new.rec.slot else "claim"
                label = f"same slot '{old.rec.slot}'" if via == "slot" else f"both say the person's {relation}"
                why = f"{label} ({', '.join(sorted(vo))} -> {', '.join(sorted(vn))})"
                lost = decide(old.rec, new.rec, via, why, stale=vo, relation=relation)
                if lost is old.rec:
                    alive_now.remove(old)
                elif lost is new.rec:
                    alive = False
                    break
            if alive:
                alive_now.append(new)

    # -- "I sold my bike", "I no longer work at Tesco", "I switched from Vim to Emacs": what
    # stopped ends every earlier current statement of it
    named = {(new.id, v) for new, claim in groups.ended if claim.relation != ANY for v in claim.value}
    for new, claim in groups.ended:
        if new.id in taken or (claim.relation == ANY and all((new.id, v) in named for v in claim.value)):
            continue  # "I don't live in Ghent any more" ends the home, not "I work at Ghent University"
        if claim.relation != ANY:
            olds = [m.rec for m in groups.single.get((new.scope, claim.relation), []) if m.value & claim.value]
        else:
            olds = groups.about(new.scope, claim.value)
        for old in olds:
            if new.id in taken:
                break
            if old.id in taken or old.id == new.id:
                continue
            if set(old.message_ids) & set(new.message_ids) and not _said_before(old, new):
                continue  # one message does not end what it says (a record it only repeats was said before)
            if claim.relation == ANY and old.row >= 0 and new.row >= 0 and float(snap.vectors[old.row] @ snap.vectors[new.row]) < config.ended_cosine:
                continue
            if ends_something(old.text):
                continue  # tells of an ending too ("User sold a Kindle to Tomás"): the same event, not what ended
            if rule_of(times.setdefault(old.id, old.times()), times.setdefault(new.id, new.times())) is not Rule.SUPERSEDED:
                continue  # said again after the ending ("I cycle to work" on a new bike): nothing to retire
            stats["ended"] += 1
            decide(old, new, "ended", f"'{', '.join(sorted(claim.value))}' stopped", stale=claim.value, relation=claim.relation)

    # -- plain-word changes that name nothing ("I drink green tea these days"): the one clearly
    # nearest earlier statement (:mod:`.shifts`)
    for sh in plan_shifts(snap, [r for r in snap.recs if r.id not in skip], taken=taken, config=config.shifts):
        if sh.old.id in taken or sh.new.id in taken:
            continue
        if rule_of(times.setdefault(sh.old.id, sh.old.times()), times.setdefault(sh.new.id, sh.new.times())) is not Rule.SUPERSEDED:
            continue
        stats["shifts"] += 1
        why = f"a change said in plain words, nearest earlier statement (cosine {sh.cosine:.2f}, next {sh.runner_up:.2f})"
        decide(sh.old, sh.new, "shift", why)
        for kin in sh.kin:
            if kin.id not in taken:
                decide(kin, sh.new, "shift", f"{why}, the same state as '{sh.old.text}'")

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
            decide(a, b, "llm", f"proposed by the model (entity '{entity}', cosine {cos:.2f})")
    else:
        for a, b, cos, entity in pairs[: config.max_candidates]:
            note("conflict", a, b, f"same entity '{entity}', cosine {cos:.2f}: only the LLM may propose a conflict here")
    out.stats = stats
    return out
