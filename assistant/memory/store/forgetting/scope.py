"""Planning a forget: from a :class:`ForgetRequest` to the exact :class:`Scope` every holder acts
on. Read-only; runs inside the delete's own write transaction (so the plan is what is deleted)
and on a read snapshot for the preview.

1. **Requested memories** go whole; a :class:`PartCut` removes only the named sentences of a
   memory (nothing left: the memory goes whole).
2. **Conversation**: a deleted session takes its messages and the memories whose every source
   is in it; memories with other sources only lose the link (``detached``).
3. **Copies**: duplicates merged into a removed memory (archived ``duplicate`` versions of the
   same fact) go with it.
4. **Source messages** (``redact_sources``): only the sentences of a source message that carry
   a removed memory are removed (:func:`match.supporting_sentences`); the rest of the message
   stays. A verbatim episode carries every sentence it copies.
5. **The cascade** (:mod:`assistant.memory.store.forgetting.cascade`): every other memory holding a
   removed sentence loses it (or goes when nothing is left), derived memories are rebuilt at
   once from what remains, assistant replies that repeat it lose those sentences.

``needles`` (the removed texts) and ``names`` (their identifiers that nothing kept still
mentions) are what the text holders (archive, offloads, summaries, note, audit) look for.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from assistant.memory.store.sqlite.db import Connection
from assistant.memory.errors import NotFound
from assistant.memory.language import match
from assistant.memory.store.forgetting.report import ForgetRequest, TextCut
from assistant.memory.store.rows import IN_IDS, ids_json
import os

_POINTER = re.compile(r"\n?\[\.\.\. offloaded: \d+ characters in total, \d+ not shown; the full text is in the archive (?:entry|file) (\S+?)\]$")


@dataclass
class Scope:
    request: ForgetRequest
    requested: set[int] = field(default_factory=set)
    doomed: set[int] = field(default_factory=set)  # memories removed whole
    direct: set[int] = field(default_factory=set)  # sourced only from the deleted session
    detached: set[int] = field(default_factory=set)
    copies: set[int] = field(default_factory=set)  # removed because they copy a removed text
    rebuilt: set[int] = field(default_factory=set)  # derived memories kept, rebuilt from what remains
    memory_cuts: dict[int, TextCut] = field(default_factory=dict)
    message_cuts: dict[int, TextCut] = field(default_factory=dict)
    cut_spans: dict[int, list[match.Span]] = field(default_factory=dict)  # memory id -> spans of its text
    message_spans: dict[int, list[match.Span]] = field(default_factory=dict)  # message id -> spans of its content
    session_id: int | None = None
    session_messages: set[int] = field(default_factory=set)
    old_versions_of: set[int] = field(default_factory=set)  # memories whose earlier versions go
    touched_sessions: set[int] = field(default_factory=set)  # sessions whose archive may hold the text
    needles: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    claims: list[str] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)
    removed_texts: dict[int, str] = field(default_factory=dict)  # memories removed whole: their text (for the preview)
    origins: dict[str, str] = field(default_factory=dict)  # normalised needle -> where it came from ("an old version of #1")
    proposed: dict[int, str] = field(default_factory=dict)  # copies found by text only, not taken: memory id -> why

    @property
    def derived(self) -> set[int]:
        return self.doomed - self.requested - self.direct

    @property
    def changed_memories(self) -> set[int]:
        return self.doomed | set(self.memory_cuts)

    def add_needles(self, texts: Iterable[str], origin: str = "") -> None:
        """``origin``: where these texts come from, for the reason a copy is proposed."""
        seen = {match.normalize(n) for n in self.needles}
        for t in texts:
            n = match.normalize(t)
            if n and n not in seen:
                seen.add(n)
                self.needles.append(t)
                if origin:
                    self.origins[n] = origin


def ids(c: Connection, sql: str, *params: Any) -> set[int]:
    return {int(r[0]) for r in c.execute(sql, params) if r[0] is not None}


def count(c: Connection, sql: str, *params: Any) -> int:
    return int(c.execute(sql, params).fetchone()[0])


def memory_texts(c: Connection, mids: Iterable[int]) -> dict[int, str]:
    return {int(r[0]): r[1] for r in c.execute(f"SELECT id, text FROM memories WHERE id IN {IN_IDS}", (ids_json(mids),))}


def full_text(c: Connection, text: str) -> str:
    """A memory text with an offload pointer resolved to the whole offloaded text."""
    m = _POINTER.search(text)
    if not m:
        return text
    row = c.execute("SELECT text FROM context_offloads WHERE ref = ?", (m.group(1),)).fetchone()
    return row[0] if row else text[: m.start()]


def pieces_of(c: Connection, mid: int) -> list[str]:
    """Every text a removed memory held: current text and every version (offloads resolved)."""
    return list(dict.fromkeys(t for t, _ in pieces_with_origin(c, mid)))


def pieces_with_origin(c: Connection, mid: int) -> list[tuple[str, str]]:
    """:func:`pieces_of` with where each text is: ``("...", "the text of #4")``,
    ``("...", "an old version of #4")`` (the current text first)."""
    out = [(full_text(c, r[0]), f"the text of #{mid}") for r in c.execute("SELECT text FROM memories WHERE id = ?", (mid,))]
    out += [(full_text(c, r[0]), f"an old version of #{mid}") for r in c.execute(
        "SELECT text FROM memory_versions WHERE memory_id = ? ORDER BY version DESC", (mid,))]  # fmt: skip
    return out


def plan(c: Connection, request: ForgetRequest) -> Scope:
    from assistant.memory.store.forgetting import cascade  # cycle: cascade builds on this module's Scope

    scope = Scope(request)
    if request.versions_of:
        if request.memory_ids or request.parts or request.session_id is not None:
            raise ValueError("forgetting old versions is a request of its own")
        return _old_wording(c, scope)
    part_ids = {p.memory_id for p in request.parts}
    scope.requested = set(request.memory_ids) | part_ids
    missing = scope.requested - ids(c, f"SELECT id FROM memories WHERE id IN {IN_IDS}", ids_json(scope.requested))
    if missing:
        raise NotFound(f"no memory with id {', '.join(map(str, sorted(missing)))}")
    scope.doomed = set(request.memory_ids)
    _parts(c, scope)
    if request.session_id is not None:
        _session(c, scope, request.session_id)
    _duplicates(c, scope)
    cascade.spread(c, scope)
    _exports(c, scope)
    scope.removed_texts = memory_texts(c, scope.doomed)
    return scope


def _old_wording(c: Connection, scope: Scope) -> Scope:
    """The earlier versions of memories go (the current text stays, its sources untouched):
    their sentences that the current text no longer holds are what the archive, summaries and
    audit log must not keep either."""
    mids = set(scope.request.versions_of)
    current = memory_texts(c, mids)
    missing = mids - set(current)
    if missing:
        raise NotFound(f"no memory with id {', '.join(map(str, sorted(missing)))}")
    scope.old_versions_of = mids
    for mid in sorted(mids):
        for (text,) in c.execute("SELECT text FROM memory_versions WHERE memory_id = ?", (mid,)):
            scope.add_needles(s for s in match.sentences(text) if not match.contains(current[mid], s))
    scope.touched_sessions = ids(c, f"SELECT DISTINCT session_id FROM injection_log WHERE memory_id IN {IN_IDS}", ids_json(mids))
    return scope


def _parts(c: Connection, scope: Scope) -> None:
    from assistant.memory.store.archive.context import OFFLOAD_CHARS, pointer_text  # cycle: store/__init__ -> forgetter -> scope

    texts = memory_texts(c, [p.memory_id for p in scope.request.parts])
    for p in scope.request.parts:
        if p.memory_id in scope.doomed:
            continue
        stored = texts[p.memory_id]
        text = full_text(c, stored)  # an offloaded episode: its whole text
        spans = [sp for s in p.sentences for sp in match.covering_sentences(text, match.find_spans(text, s))]
        missing = [s for s in p.sentences if not match.find_spans(text, s)]
        if missing:
            raise ValueError(f"memory {p.memory_id} does not hold: {missing[0]!r}")
        pointer = _POINTER.search(stored)
        if pointer is None:
            cut(scope, p.memory_id, text, spans)
            continue
        kept = match.remove_spans(text, spans)
        if not match.normalize(kept):
            scope.doomed.add(p.memory_id)
            continue
        shown = kept if len(kept) <= OFFLOAD_CHARS else pointer_text(kept, pointer.group(1))
        scope.memory_cuts[p.memory_id] = TextCut("memory", p.memory_id, tuple(text[s:e] for s, e in match.merge_spans(spans)), shown)


def cut(scope: Scope, mid: int, text: str, spans: list[match.Span]) -> bool:
    """Remove ``spans`` (positions in ``text``, the memory's current text) from memory ``mid``:
    a cut, or the whole memory when nothing stays. True when something changed."""
    if not spans or mid in scope.doomed:
        return False
    merged = match.merge_spans([*scope.cut_spans.get(mid, []), *spans])
    if merged == scope.cut_spans.get(mid):
        return False
    scope.cut_spans[mid] = merged
    kept = match.remove_spans(text, merged)
    if not match.normalize(kept):
        scope.memory_cuts.pop(mid, None)
        scope.doomed.add(mid)
    else:
        scope.memory_cuts[mid] = TextCut("memory", mid, tuple(text[s:e] for s, e in merged), kept)
    return True


def _session(c: Connection, scope: Scope, session_id: int) -> None:
    if c.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise NotFound(f"no session with id {session_id}")
    scope.session_id = session_id
    scope.session_messages = ids(c, "SELECT id FROM messages WHERE session_id = ?", session_id)
    msgs = ids_json(scope.session_messages)
    touched = ids(c, f"SELECT DISTINCT memory_id FROM memory_sources WHERE session_id = ? OR message_id IN {IN_IDS}", session_id, msgs)
    for mid in touched:
        others = count(
            c,
            "SELECT count(*) FROM memory_sources WHERE memory_id = ? AND (session_id IS NOT ? OR session_id IS NULL) "
            f"AND (message_id IS NULL OR message_id NOT IN {IN_IDS})",
            mid, session_id, msgs,
        )  # fmt: skip
        (scope.detached if others else scope.direct).add(mid)
    scope.doomed |= scope.direct


def _duplicates(c: Connection, scope: Scope) -> None:
    """Archived duplicates merged into a removed memory are copies of it: they go too."""
    while True:
        found = ids(
            c,
            "SELECT l.src_id FROM memory_links l JOIN memories m ON m.id = l.src_id WHERE l.type = 'evolve_to' "
            f"AND l.dst_id IN {IN_IDS} AND m.status = 'archived' AND m.update_type = 'duplicate'",
            ids_json(scope.doomed),
        ) - scope.doomed  # fmt: skip
        if not found:
            return
        scope.doomed |= found
        scope.copies |= found


def _exports(c: Connection, scope: Scope) -> None:
    """Exports Keepsake wrote earlier that hold a removed memory or message (paths only: the
    files are the person's and are never opened)."""
    mids = scope.changed_memories
    sessions = scope.touched_sessions | ({scope.session_id} if scope.session_id is not None else set())
    for path, m_json, s_json in c.execute("SELECT path, memory_ids, session_ids FROM exports ORDER BY id"):
        if (mids & set(json.loads(m_json)) or sessions & set(json.loads(s_json))) and os.path.exists(path):
            if path not in scope.exports:
                scope.exports.append(path)
