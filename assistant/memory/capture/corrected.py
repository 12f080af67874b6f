"""Corrections on the hot path: a message that says a value instead of another ("actually it's the
9th not the 6th", "Leonor's birthday is the 23rd of May, not the 28th") rewrites the earlier
memories that said the old value, as a new version of each (the old text stays in its history,
audited, actor ``capture``, undoable like any edit). Issue 28, twelfth session: the earlier day
had stayed the answer on every fresh answers set.

    edits = plan_corrections(text, earlier)            # [(memory, new_text, reason), ...]   pure
    edited = correct_after_capture(store, text, ids)   # memory ids rewritten

Which earlier memories (:func:`plan_corrections`): of the current facts, profiles and episodes
stored before the message that write the old value (:func:`~assistant.memory.language.corrections.says_old`),
those sharing a word of the correction's topic ("surgery" for "surgery is the 12th not the
14th") -- or, when none does and the message says it corrects ("actually", "sorry", ...), all of
them; then only those of the most recent message among them (one statement is corrected, not
every day ever said). A correction with no cue and no shared topic word changes nothing.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any, Iterable, Sequence

from assistant.memory.language.corrections import Instead, corrected, said_instead, says_old
from assistant.memory.records import Actor, Kind, Memory, Source, UpdateType

_KINDS = (Kind.FACT, Kind.PROFILE, Kind.EPISODE)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _message_of(m: Memory) -> int | None:
    return next((s.message_id for s in m.sources if s.message_id is not None), None)


def _shares(text: str, topic: frozenset[str]) -> bool:
    """A word of the memory is one of the topic's, or starts the same 5 letters ("surgery"/"surgeon")."""
    words = {w.casefold().removesuffix("'s").removesuffix("’s") for w in _WORD.findall(text)}
    return any(w in words or any(len(w) >= 5 and x.startswith(w[:5]) for x in words) for w in topic)


def plan_corrections(text: str, earlier: Sequence[Memory]) -> list[tuple[Memory, str, str]]:
    """The rewrites the corrections of ``text`` make to ``earlier`` (memories stored before it),
    with the reason to audit (module docstring). Pure."""
    return _plan(said_instead(text), earlier)


def _plan(found: Sequence[Instead], earlier: Sequence[Memory]) -> list[tuple[Memory, str, str]]:
    out: dict[int, tuple[Memory, str, str]] = {}
    for c in found:
        saying = [m for m in earlier if says_old(m.text, c)]
        on_topic = [m for m in saying if _shares(m.text, c.topic)]
        chosen = on_topic or (saying if c.cue else [])
        latest = max((_message_of(m) or 0 for m in chosen), default=None)
        for m in chosen:
            if (_message_of(m) or 0) == latest and m.id not in out and (new := corrected(m.text, c)) and new != m.text:
                out[m.id] = (m, new, _reason(c))
    return list(out.values())


def _reason(c: Instead) -> str:
    return f"corrected: {c.new}, not {c.old}"


def correct_after_capture(store: Any, text: str, new_ids: Iterable[int], source: Source | None = None) -> list[int]:
    """Apply :func:`plan_corrections` for a message just captured (``new_ids``: the memories it
    gave) to the store's current memories written before them; the ids rewritten. ``source``: the
    correcting message, added to each rewritten memory's sources (so its "Saved: ..." notice
    lists the corrected memory, and the memory shows where its new value came from)."""
    found = said_instead(text)
    new = set(new_ids)
    if not found or not new:
        return []
    first_new = min(new)
    earlier: dict[int, Memory] = {}
    for c in found:
        digits = "".join(ch for ch in c.old if ch.isdigit())
        probes = {c.old} if not digits else {digits, f"{int(digits):,}"}  # "9,800" is written so as often as "9800"
        for probe in probes:
            for m in store.list_memories(kind=_KINDS, text=probe, limit=500):
                if m.id < first_new and m.id not in new:
                    earlier[m.id] = m
    edited = []
    for m, new_text, reason in _plan(found, sorted(earlier.values(), key=lambda m: m.id)):
        if (when := moved_valid_at(m.valid_at, m.text, new_text)) is not None:  # "true since" follows the corrected day
            store.update(m.id, text=new_text, valid_at=when, expected_version=m.version, actor=Actor.CAPTURE,
                         update_type=UpdateType.USER_EDIT, reason=reason, action="edit")  # fmt: skip
        else:
            store.edit(m.id, new_text, expected_version=m.version, actor=Actor.CAPTURE, reason=reason)
        if source is not None:
            store.add_source(m.id, source)
        edited.append(m.id)
    return edited


_ISO_DAY = re.compile(r"\b\d{4}-\d\d-\d\d\b")


def moved_valid_at(valid_at: datetime | None, old_text: str, new_text: str) -> datetime | None:
    """When a memory became true, moved with its day corrected: ``valid_at`` is the day the old text
    says (2026-06-12) and the new text says another in its place (2026-06-14) -> 2026-06-14 at the same
    time of day; else None (nothing to move). Pure."""
    if valid_at is None:
        return None
    old_days, new_days = _ISO_DAY.findall(old_text), _ISO_DAY.findall(new_text)
    day = valid_at.date().isoformat()
    if day not in old_days or len(old_days) != len(new_days):
        return None
    new_day = date.fromisoformat(new_days[old_days.index(day)])
    return None if new_day.isoformat() == day else valid_at.replace(year=new_day.year, month=new_day.month, day=new_day.day)
