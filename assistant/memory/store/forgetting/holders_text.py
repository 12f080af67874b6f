"""Holders of conversation text: messages (the person's and the assistant's), the context
archive (history as sent, with the memory blocks injected into it; offloaded long texts), the
compaction summaries, the note's old versions, deleted conversations, and the generation
counter open sessions watch. All of it is in the encrypted database: forgetting is SQL.
"""

from __future__ import annotations

import json
import re

from assistant.memory.store.sqlite.db import Connection
from assistant.memory.entries import title_from
from assistant.memory.language import match
from assistant.memory.store.forgetting.cascade import reply_spans
from assistant.memory.store.forgetting.holders import ApplyContext
from assistant.memory.store.forgetting.scope import Scope, count
from assistant.memory.times import ts_to_db
from assistant.memory.store.rows import IN_IDS, ids_json

_BLOCK = re.compile(r"<(retrieved_memories|reminders)\b[^>]*>.*?</\1>", re.S)


def _keys(scope: Scope) -> list[str]:
    return sorted(str(s) for s in scope.touched_sessions)


class Messages:
    """The person's messages lose the sentences that carried what is forgotten; assistant
    replies lose the sentences that repeat it (FTS5 follows by trigger, secure-delete on)."""

    name = "messages"

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        user = sum(1 for cut in scope.message_cuts.values() if cut.role != "assistant")
        return {
            "messages_redacted": user,
            "replies_redacted": len(scope.message_cuts) - user,
            "messages_deleted": len(scope.session_messages),
            "message_fts": len(scope.message_cuts) + len(scope.session_messages),
        }

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        per_session: dict[int, int] = {}
        for mid, cut in sorted(scope.message_cuts.items()):
            c.execute("UPDATE messages SET content = ?, redacted_at = ? WHERE id = ?", (cut.kept, ts_to_db(ctx.now), mid))
            sid = c.execute("SELECT session_id FROM messages WHERE id = ?", (mid,)).fetchone()[0]
            per_session[int(sid)] = per_session.get(int(sid), 0) + 1
        for sid, n in sorted(per_session.items()):  # the trail (and the app's change signal) names the conversation
            ctx.audit(c, actor=ctx.actor, action="redact_messages", session_id=sid, at=ctx.now, details={"redacted": True, "messages": n})
        return self.count(c, scope)


def clean_sent(content: str, raw: str | None, scope: Scope, said: str | None = None) -> tuple[str, str | None]:
    """A user turn as sent: injected blocks lose the lines that repeat what is forgotten, the
    person's own text loses the sentences holding a forgotten text (unless the person keeps the
    conversation: ``redact_sources=False``). ``said``: the stored message; what stands between
    the last block and it is the memory answer Keepsake put before the question (its "lead",
    :func:`assistant.memory.retrieval.inject.with_lead`), cut like a block line."""

    def block(m: re.Match) -> str:
        lines = [ln for ln in m.group(0).split("\n") if not reply_spans(ln, scope)]
        return "\n".join(lines)

    def own(text: str) -> str:
        if not scope.request.redact_sources:
            return text
        spans = [sp for n in scope.needles for sp in match.covering_sentences(text, match.find_spans(text, n))]
        return match.remove_spans(text, spans) if spans else text

    parts, pos = [], 0
    for m in _BLOCK.finditer(content):
        parts += [own(content[pos:m.start()]), block(m)]
        pos = m.end()
    tail = content[pos:]
    if said and len(tail) > len(said) and tail.endswith(said):
        parts += [_clean_reply(tail[: -len(said)], scope), own(said)]
    else:
        parts.append(own(tail))
    return "".join(parts), (own(raw) if raw is not None else None)


def _clean_reply(text: str, scope: Scope) -> str:
    spans = reply_spans(text, scope)
    return match.remove_spans(text, spans) if spans else text


class Archive:
    """The archived history (as sent) and the offloaded texts of the conversations concerned."""

    name = "context_archive"

    def _history(self, c: Connection, scope: Scope) -> list[tuple[int, str, str | None]]:
        out = []
        rows = c.execute(
            "SELECT h.id, h.message_id, h.role, h.content, h.raw, m.content FROM context_history h "
            f"LEFT JOIN messages m ON m.id = h.message_id WHERE h.session_key IN {IN_IDS} OR h.message_id IN {IN_IDS}",
            (json.dumps(_keys(scope)), ids_json(scope.message_cuts)),
        ).fetchall()  # fmt: skip
        for rid, msg_id, role, content, raw, said in rows:
            if msg_id in scope.message_cuts:
                kept = scope.message_cuts[msg_id].kept
                new: tuple[str, str | None] = (kept, kept if raw is not None else None)
            elif role == "assistant":
                new = (_clean_reply(content, scope) if scope.request.redact_sources else content, raw)
            else:
                new = clean_sent(content, raw, scope, said)
            if new != (content, raw):
                out.append((int(rid), new[0], new[1]))
        return out

    def _offloads(self, c: Connection, scope: Scope) -> tuple[list[tuple[str, str]], list[str]]:
        change, drop = [], []
        rows = c.execute(
            f"SELECT ref, message_id, kind, text FROM context_offloads WHERE session_key IN {IN_IDS} OR message_id IN {IN_IDS}",
            (json.dumps(_keys(scope)), ids_json(scope.message_cuts)),
        ).fetchall()  # fmt: skip
        for ref, msg_id, kind, text in rows:
            if msg_id in scope.message_cuts:
                new = scope.message_cuts[msg_id].kept
            elif kind == "assistant":
                new = _clean_reply(text, scope) if scope.request.redact_sources else text
            else:
                new = clean_sent(text, None, scope)[0]
            if not match.normalize(new):
                drop.append(ref)
            elif new != text:
                change.append((ref, new))
        return change, drop

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        change, drop = self._offloads(c, scope)
        return {"archive_rows": len(self._history(c, scope)), "offloads": len(change) + len(drop)}

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        history = self._history(c, scope)
        change, drop = self._offloads(c, scope)
        for rid, content, raw in history:
            c.execute("UPDATE context_history SET content = ?, raw = ? WHERE id = ?", (content, raw, rid))
        for ref, text in change:
            c.execute("UPDATE context_offloads SET text = ? WHERE ref = ?", (text, ref))
        c.execute(f"DELETE FROM context_offloads WHERE ref IN {IN_IDS}", (json.dumps(drop),))
        return {"archive_rows": len(history), "offloads": len(change) + len(drop)}


def scrub_state(state: dict, scope: Scope) -> dict | None:
    """A compaction state without the facts and summary lines that repeat what is forgotten
    (None when nothing had to go)."""
    facts = [f for f in state.get("facts", []) if not reply_spans(str(f.get("value", "")), scope)]
    summary = str(state.get("summary", ""))
    lines = [ln for ln in summary.split("\n") if not reply_spans(ln, scope)]
    new_summary = "\n".join(lines)
    if facts == state.get("facts", []) and new_summary == summary:
        return None
    return {**state, "facts": facts, "summary": new_summary}


class Summaries:
    """The last word on compaction summaries, after the context layer rebuilt them (see
    :mod:`assistant.context.redact`): a fact or summary line still repeating a forgotten text
    or name is removed. With no context layer registered, this alone keeps them clean."""

    name = "summaries"

    def _changes(self, c: Connection, scope: Scope) -> list[tuple[str, dict]]:
        out: list[tuple[str, dict]] = []
        if not scope.request.redact_sources:
            return out  # the conversation, and so its summary, stays as it is
        for key, data in c.execute(f"SELECT session_key, state FROM context_state WHERE session_key IN {IN_IDS}",
                                   (json.dumps(_keys(scope)),)).fetchall():  # fmt: skip
            new = scrub_state(json.loads(data), scope)
            if new is not None:
                out.append((key, new))
        return out

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        return {"summaries": len(self._changes(c, scope))}

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        changes = self._changes(c, scope)
        for key, state in changes:
            c.execute("UPDATE context_state SET state = ?, updated_at = ? WHERE session_key = ?",
                      (json.dumps(state, ensure_ascii=False), ts_to_db(ctx.now), key))  # fmt: skip
        return {"summaries": len(changes)}


class NoteVersions:
    """Old versions of the person's note that repeat what is forgotten (the text, or a name
    only it mentioned) go. The current note is the person's own writing: never changed here;
    the report says when it still holds the text."""

    name = "note"

    def _old(self, c: Connection, scope: Scope) -> tuple[list[int], bool]:
        rows = c.execute("SELECT version, text FROM note_versions ORDER BY version").fetchall()
        if not rows or not scope.request.redact_sources:
            return [], False
        old = [int(v) for v, t in rows[:-1] if reply_spans(t, scope)]
        return old, bool(reply_spans(rows[-1][1], scope))

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        return {"note_versions": len(self._old(c, scope)[0])}

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        old, _current = self._old(c, scope)
        c.execute(f"DELETE FROM note_versions WHERE version IN {IN_IDS}", (ids_json(old),))
        return {"note_versions": len(old)}

    def notes(self, c: Connection, scope: Scope) -> tuple[str, ...]:
        if self._old(c, scope)[1]:
            return ("Your note (About me & instructions) still says this; it is your own text, so Keepsake leaves it: edit the note if it should go.",)
        return ()


class Sessions:
    """A deleted conversation: its messages, sources, archive, offloads, summary and row."""

    name = "sessions"

    @staticmethod
    def _titles(c: Connection, scope: Scope) -> list[tuple[int, str]]:
        """Titles of the conversations concerned that repeat what is forgotten (a title is often
        the first words of the first message): they lose those words."""
        out: list[tuple[int, str]] = []
        if not scope.request.redact_sources:
            return out
        for sid, title in c.execute(f"SELECT id, title FROM sessions WHERE id IN {IN_IDS} AND title != ''",
                                    (ids_json(scope.touched_sessions),)).fetchall():  # fmt: skip
            first = c.execute("SELECT min(id) FROM messages WHERE session_id = ? AND role = 'user'", (sid,)).fetchone()[0]
            made = scope.message_cuts.get(first) if first is not None else None
            if made is not None and made.text and title == title_from(made.text):  # named after it: follows the cut
                out.append((int(sid), title_from(made.kept)))
                continue
            spans = reply_spans(title, scope)
            if spans:
                out.append((int(sid), match.remove_spans(title, spans)))
        return out

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        titles = {"session_titles": len(self._titles(c, scope))}
        if scope.session_id is None:
            return titles
        key = str(scope.session_id)
        return {
            "sessions": 1,
            "archive_rows": count(c, "SELECT count(*) FROM context_history WHERE session_key = ?", key),
            "offloads": count(c, "SELECT count(*) FROM context_offloads WHERE session_key = ?", key),
            "summaries": count(c, "SELECT count(*) FROM context_state WHERE session_key = ?", key),
            **titles,
        }

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        counts = self.count(c, scope)
        for sid, title in self._titles(c, scope):
            c.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, sid))
        if scope.session_id is None:
            return counts
        sid, key = scope.session_id, str(scope.session_id)
        for table in ("context_history", "context_offloads", "context_state"):
            c.execute(f"DELETE FROM {table} WHERE session_key = ?", (key,))
        c.execute("DELETE FROM memory_sources WHERE session_id = ?", (sid,))
        c.execute(f"DELETE FROM file_refs WHERE session_id = ? OR message_id IN {IN_IDS}", (sid, ids_json(scope.session_messages)))
        c.execute("DELETE FROM messages WHERE session_id = ?", (sid,))  # trigger: FTS 'delete'
        c.execute("DELETE FROM sessions WHERE id = ?", (sid,))
        ctx.audit(c, actor=ctx.actor, action="delete_session", session_id=sid, at=ctx.now, details={"redacted": True})
        return counts


class Generation:
    """Bumps ``forget_generation``: an open chat session that sees it change rebuilds its
    context from the store before its next turn (even if every listener failed)."""

    name = "generation"

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        return {}

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        c.execute("INSERT INTO store_meta(key, value) VALUES ('forget_generation', '1') ON CONFLICT(key) "
                  "DO UPDATE SET value = CAST(value AS INTEGER) + 1")  # fmt: skip
        return {}
