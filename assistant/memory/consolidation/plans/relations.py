"""Who says what about the person: current records grouped by the single-valued relation they
state (:mod:`.claims`), the values that were said to have ended, and an index to find every
record about a thing. Built once per plan from the snapshot; pure.

- ``single[(scope, relation)]``: profile records of a single-valued slot (their value: the
  claim's, else the slot text's proper nouns/numbers, :attr:`KeyTokens.values`) and every
  profile, fact and episode whose text claims a value of a single-valued relation ("I cycle to
  work" -> commute {bicycle}). The contradiction stage replays each group.
- ``ended``: (record, claim) for every "I sold my bike" / "I no longer work at Tesco".
- :meth:`Groups.copies`: the members of a group asserting a value (the copies an update
  retires); :meth:`Groups.about`: first-person records mentioning every word of a head.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from assistant.memory.language.claims import Claim, canonical_subject, claims, norm_word, slot_relation, value_words
from assistant.memory.store.tidying.snapshot import Rec
from assistant.memory.language.text import key_tokens

# Slots that hold one value at a time. Other slots (siblings, pets, allergies...) may hold many:
# no rule invalidates them.
SINGLE_VALUED_SLOTS = frozenset(
    """name full_name preferred_name nickname home home_city city location address hometown country
    employer company workplace job job_title occupation role position title school university age
    birthday birth_date date_of_birth partner spouse husband wife boyfriend girlfriend
    relationship_status timezone time_zone phone email residence lives_in works_at profession""".split()
)  # fmt: skip


def single_valued(slot: str | None) -> bool:
    return bool(slot) and slot.strip().casefold() in SINGLE_VALUED_SLOTS  # type: ignore[union-attr]


@dataclass(frozen=True)
class Member:
    rec: Rec
    value: frozenset[str]


@dataclass
class Groups:
    single: dict[tuple[str, str], list[Member]] = field(default_factory=dict)
    ended: list[tuple[Rec, Claim]] = field(default_factory=list)
    _words: dict[tuple[str, str], list[Rec]] = field(default_factory=dict)  # (scope, word) -> first-person records

    def copies(self, scope: str, relation: str, value: frozenset[str]) -> list[Rec]:
        """Members of ``relation`` asserting (a part of) ``value``; for ``*``, records about it."""
        if relation == "*":
            return self.about(scope, value)
        return [m.rec for m in self.single.get((scope, relation), []) if m.value & value]

    def about(self, scope: str, head: frozenset[str], names: tuple[str, ...] = ()) -> list[Rec]:
        """First-person/"User" records of ``scope`` that mention every word of ``head``."""
        found: dict[int, Rec] | None = None
        for w in head:
            recs = {r.id: r for r in self._words.get((scope, w), ())}
            found = recs if found is None else {i: r for i, r in found.items() if i in recs}
        return [found[i] for i in sorted(found or {})]


_PERSON = re.compile(r"\b(?:I|my|me|mine)\b")


def _words_of(text: str, names: tuple[str, ...]) -> frozenset[str]:
    canon = canonical_subject(text, names)
    if not _PERSON.search(canon):
        return frozenset()
    return value_words(canon, light=False) | frozenset(norm_word(w) for w in re.findall(r"[^\W_]+", canon)) | frozenset(
        w.casefold() for w in re.findall(r"[^\W_]+", canon) if w[:1].isupper())


def relation_groups(current: Iterable[Rec], names: tuple[str, ...] = ()) -> Groups:
    """Group ``current`` records (see the module docstring)."""
    g = Groups()
    for r in current:
        said = claims(r.text, names)
        rel_of_slot = slot_relation(r.slot) if single_valued(r.slot) and r.kind.value != "episode" else None
        seen: set[str] = set()
        if rel_of_slot is not None:
            claimed = [c.value for c in said if c.relation == rel_of_slot and not c.ended]
            value = claimed[0] if claimed else key_tokens(r.text).values
            g.single.setdefault((r.scope, rel_of_slot), []).append(Member(r, value))
            seen.add(rel_of_slot)
        for c in said:
            if c.ended:
                g.ended.append((r, c))
            elif c.single_valued and c.relation not in seen:
                seen.add(c.relation)
                g.single.setdefault((r.scope, c.relation), []).append(Member(r, c.value))
        for w in _words_of(r.text, names):
            g._words.setdefault((r.scope, w), []).append(r)
    return g
