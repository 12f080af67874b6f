"""The cascade of a forget: from the removed memories to every other copy of their text.

Run by :func:`assistant.memory.store.forgetting.scope.plan` until nothing changes (a copy found in one
round can have its own source message, whose removed sentence is looked for in the next):

1. :func:`source_messages` - the sentences of each source message that carry a removed memory
   (or a removed part) are cut from it; the rest of the message stays;
2. :func:`copies` - (unless the person keeps the conversation: ``redact_sources=False``) any
   other memory that holds a removed text (found by FTS phrase query,
   confirmed by :func:`match.find_spans` after normalisation, at any length; and every memory of
   a cut message, e.g. its verbatim episode) loses those sentences, or goes when nothing stays;
3. :func:`derived` - a memory derived from a removed one (``evolve_to``/``derived_from``) is
   rebuilt at once from what remains: its sentences holding a removed text, or a name only the
   removed material mentioned, go; nothing left, or every input gone and no source of its own:
   it goes. Nothing is left ``resolving``.

Then :func:`replies`: assistant messages in the conversations concerned lose the sentences that
repeat what was removed (the text itself, a name only it mentioned, or a sentence carrying a
removed memory: :func:`match.support` >= ``REPLY_SUPPORT``).
"""

from __future__ import annotations

import re
from typing import Any

from assistant.memory.store.archive.context import OFFLOAD_CHARS, pointer_text
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.language import match
from assistant.memory.language.text import key_tokens
from assistant.memory.store.forgetting.report import TextCut
from assistant.memory.store.forgetting.scope import _POINTER, Scope, cut, ids, memory_texts, pieces_of, pieces_with_origin
from assistant.memory.store.rows import IN_IDS, ids_json

MAX_ROUNDS = 8
REPLY_SUPPORT = 0.75
CLAIM_MAX_CHARS = 400
NAMES_MAX_CHARS = 2000  # a longer text (a pasted document) gives no names: only its words verbatim
FTS_TERMS = 8
_FTS_WORD = re.compile(r"\w+", re.UNICODE)


def spread(c: Connection, scope: Scope) -> None:
    for _ in range(MAX_ROUNDS):
        changed = False
        if scope.request.redact_sources:  # else the person keeps the conversation and its verbatim copies
            changed = source_messages(c, scope)
            _collect_needles(c, scope)
            changed = copies(c, scope) or changed
        else:
            _collect_needles(c, scope)
        changed = derived(c, scope) or changed
        if not changed:
            break
    _collect_needles(c, scope)
    for mid in scope.changed_memories:
        scope.proposed.pop(mid, None)  # taken after all (a derived or linked copy): not a proposal
    scope.claims = _claims(c, scope)
    scope.names = _names(c, scope)
    replies(c, scope)


# -------------------------------------------------------------------------------- messages
def _message(c: Connection, mid: int) -> Any:
    return c.execute("SELECT id, session_id, role, content FROM messages WHERE id = ?", (mid,)).fetchone()


def cut_message(c: Connection, scope: Scope, mid: int, spans: list[match.Span]) -> bool:
    row = _message(c, mid)
    if row is None or not spans or not row[3]:
        return False
    merged = match.merge_spans([*scope.message_spans.get(mid, []), *spans])
    if merged == scope.message_spans.get(mid):
        return False
    scope.message_spans[mid] = merged
    text = row[3]
    scope.message_cuts[mid] = TextCut("message", mid, tuple(text[s:e] for s, e in merged), match.remove_spans(text, merged), row[2], text)
    scope.touched_sessions.add(int(row[1]))
    return True


def source_messages(c: Connection, scope: Scope) -> bool:
    changed = False
    for mid in sorted(scope.changed_memories - scope.direct):
        pieces = pieces_of(c, mid) if mid in scope.doomed else list(scope.memory_cuts[mid].removed)
        rows = c.execute(
            f"SELECT DISTINCT s.message_id, m.content FROM memory_sources s JOIN messages m ON m.id = s.message_id "
            f"WHERE s.memory_id = ? AND m.content != '' AND m.id NOT IN {IN_IDS}",
            (mid, ids_json(scope.session_messages)),
        ).fetchall()  # fmt: skip
        for msg_id, content in rows:
            if mid in scope.doomed and _still_said(c, scope, mid, int(msg_id)):
                continue
            spans = [sp for p in pieces for sp in match.supporting_sentences(content, p)]
            changed = cut_message(c, scope, int(msg_id), spans) or changed
    return changed


def _still_said(c: Connection, scope: Scope, mid: int, msg_id: int) -> bool:
    """A memory that stays, from the same message, holds every word of removed memory ``mid``
    ("User works as a nurse at the children's hospital." for "User works as a nurse."): the
    message's sentence is its source too, so it is not cut (new-user trial: taking back the
    shorter duplicate on a Saved line cut the sentence the kept one came from)."""
    gone = key_tokens(memory_texts(c, [mid]).get(mid, ""))
    words = gone.content | gone.proper | gone.numbers
    if not words:
        return False
    others = ids(c, "SELECT s.memory_id FROM memory_sources s JOIN memories m ON m.id = s.memory_id "
                    "WHERE s.message_id = ? AND s.memory_id != ? AND m.kind != 'episode' AND m.status = 'active'", msg_id, mid)
    others -= scope.changed_memories
    for text in memory_texts(c, others).values():
        kept = key_tokens(text)
        if words <= kept.content | kept.proper | kept.numbers:
            return True
    return False


# -------------------------------------------------------------------------------- memories
def _collect_needles(c: Connection, scope: Scope) -> None:
    for mid in sorted(scope.doomed - scope.direct):
        for text, origin in pieces_with_origin(c, mid):
            scope.add_needles([text] if text.strip() else [], origin)
    for mid, cut_ in sorted(scope.memory_cuts.items()):
        scope.add_needles([s for s in cut_.removed if s.strip()], f"a removed part of #{mid}")
    for mid, cut_ in sorted(scope.message_cuts.items()):
        if cut_.role == "user":
            scope.add_needles([s for s in cut_.removed if s.strip()], f"a sentence removed from your message #{mid}")


def _fts_candidates(c: Connection, needles: list[str]) -> set[int]:
    found: set[int] = set()
    for n in needles:
        terms = _FTS_WORD.findall(n)[:FTS_TERMS]
        if not terms:
            continue
        phrase = '"' + " ".join(terms).replace('"', '""') + '"'
        try:
            found |= ids(c, "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?", phrase)
        except Exception:  # noqa: BLE001 - an odd token the FTS parser refuses: the other paths still look
            continue
    return found


def _replace_offloaded(c: Connection, scope: Scope, mid: int, text: str) -> bool:
    """An episode holding a preview + pointer to an offloaded message that was cut: it points
    at the cut message's remaining text (or goes when nothing of it remains)."""
    m = _POINTER.search(text)
    row = c.execute("SELECT message_id FROM context_offloads WHERE ref = ?", (m.group(1),)).fetchone() if m else None
    if row is None or row[0] is None or int(row[0]) not in scope.message_cuts:
        return False
    msg_cut = scope.message_cuts[int(row[0])]
    kept = msg_cut.kept
    if not match.normalize(kept):
        changed = mid not in scope.doomed
        scope.doomed.add(mid)
        scope.memory_cuts.pop(mid, None)
        return changed
    new = kept if len(kept) <= OFFLOAD_CHARS else pointer_text(kept, m.group(1))
    old = scope.memory_cuts.get(mid)
    if old is not None and old.kept == new:
        return False
    scope.memory_cuts[mid] = TextCut("memory", mid, msg_cut.removed, new)
    return True


def copies(c: Connection, scope: Scope) -> bool:
    """Memories of a cut message (its verbatim episode, what was extracted from it) lose the
    removed sentences. Other memories found only by their text are copies the person did not
    name: they are proposed with the reason (:func:`_reason`), and taken only when the request
    names them (``ForgetRequest.copies``)."""
    linked = ids(c, f"SELECT DISTINCT memory_id FROM memory_sources WHERE message_id IN {IN_IDS}", ids_json(scope.message_cuts))
    confirmed = set(scope.request.copies)
    cands = linked | _fts_candidates(c, scope.needles)
    changed = False
    for mid, text in sorted(memory_texts(c, cands - scope.doomed).items()):
        if _POINTER.search(text):
            changed = _replace_offloaded(c, scope, mid, text) or changed
            continue
        found = [(n, sp) for n in scope.needles for sp in match.covering_sentences(text, match.find_spans(text, n))]
        if not found:
            continue
        if mid not in linked and mid not in confirmed:
            if mid not in scope.memory_cuts:
                scope.proposed.setdefault(mid, _reason(scope, text, found[0][0]))
            continue
        if cut(scope, mid, text, [sp for _, sp in found]):
            if mid in scope.doomed:
                scope.copies.add(mid)
            changed = True
    return changed


def _reason(scope: Scope, text: str, needle: str) -> str:
    """Why a memory is proposed as a copy: "same text as an old version of #1", or "holds a
    sentence of the text of #4"."""
    origin = scope.origins.get(match.normalize(needle), "a removed text")
    same = match.normalize(text) == match.normalize(needle)
    return f"{'same text as' if same else 'holds a sentence of'} {origin}"


def _inputs(c: Connection, mid: int) -> set[int]:
    return ids(
        c,
        "SELECT src_id FROM memory_links WHERE type = 'evolve_to' AND dst_id = ? "
        "UNION SELECT dst_id FROM memory_links WHERE type = 'derived_from' AND src_id = ?",
        mid, mid,
    )  # fmt: skip


def _own_sources_left(c: Connection, scope: Scope, mid: int) -> list[str]:
    """Texts of ``mid``'s source messages that stay (after the cuts); [] when none stays."""
    out = []
    for msg_id, session_id, content in c.execute(
        "SELECT s.message_id, s.session_id, m.content FROM memory_sources s LEFT JOIN messages m ON m.id = s.message_id "
        "WHERE s.memory_id = ?", (mid,),
    ).fetchall():  # fmt: skip
        if msg_id is None:
            if session_id is None or session_id != scope.session_id:
                out.append("")  # a source without a message (manual entry): it stays
            continue
        if msg_id in scope.session_messages or content is None:
            continue
        kept = scope.message_cuts[msg_id].kept if msg_id in scope.message_cuts else content
        if match.normalize(kept):
            out.append(kept)
    return out


def derived(c: Connection, scope: Scope) -> bool:
    d = ids_json(scope.doomed | set(scope.memory_cuts))
    cands = ids(
        c,
        f"SELECT dst_id FROM memory_links WHERE type = 'evolve_to' AND src_id IN {IN_IDS} "
        f"UNION SELECT src_id FROM memory_links WHERE type = 'derived_from' AND dst_id IN {IN_IDS}",
        d, d,
    ) - scope.doomed  # fmt: skip
    changed = False
    gone = needle_names(scope)
    for mid, text in sorted(memory_texts(c, cands).items()):
        remaining = _inputs(c, mid) - scope.doomed
        own = _own_sources_left(c, scope, mid)
        if not remaining and not own:
            scope.doomed.add(mid)
            scope.memory_cuts.pop(mid, None)
            changed = True
            continue
        left_texts = [scope.memory_cuts[i].kept if i in scope.memory_cuts else t for i, t in memory_texts(c, remaining).items()] + own
        names = gone - match.names_in(left_texts, gone)
        spans = [sp for n in scope.needles for sp in match.covering_sentences(text, match.find_spans(text, n))]
        spans += match.clauses_mentioning(text, names)
        if cut(scope, mid, text, spans):
            if mid not in scope.doomed:
                scope.rebuilt.add(mid)
            changed = True
    return changed


def needle_names(scope: Scope) -> set[str]:
    """Identifiers of the removed texts (short ones: a pasted document's names are not what the
    person said about themselves, and its words are matched verbatim anyway)."""
    return match.identifiers("\n".join(n for n in scope.needles if len(n) <= NAMES_MAX_CHARS))


# -------------------------------------------------------------------------------- replies
def _claims(c: Connection, scope: Scope) -> list[str]:
    texts = [t for mid, t in memory_texts(c, scope.doomed - scope.direct).items() if len(t) <= CLAIM_MAX_CHARS]
    texts += [s for cut_ in scope.memory_cuts.values() for s in cut_.removed if len(s) <= CLAIM_MAX_CHARS]
    return list(dict.fromkeys(texts))


def _names(c: Connection, scope: Scope) -> set[str]:
    """Identifiers of the removed texts that nothing kept nearby still mentions (the rest of
    the cut messages and memories, and the other memories of those messages)."""
    gone = needle_names(scope)
    kept = [cut_.kept for cut_ in (*scope.message_cuts.values(), *scope.memory_cuts.values())]
    others = ids(c, f"SELECT DISTINCT memory_id FROM memory_sources WHERE message_id IN {IN_IDS}", ids_json(scope.message_cuts))
    kept += [t for mid, t in memory_texts(c, others - scope.doomed - set(scope.memory_cuts)).items()]
    return gone - match.names_in(kept, gone)


def replies(c: Connection, scope: Scope) -> None:
    mids = ids_json(scope.changed_memories)
    scope.touched_sessions |= ids(c, f"SELECT DISTINCT session_id FROM injection_log WHERE memory_id IN {IN_IDS}", mids)
    scope.touched_sessions.discard(scope.session_id)  # type: ignore[arg-type]
    if not scope.request.redact_sources:
        return  # the person keeps the conversation: its replies stay as they are
    for mid, content in c.execute(
        f"SELECT id, content FROM messages WHERE role = 'assistant' AND content != '' AND session_id IN {IN_IDS}",
        (ids_json(scope.touched_sessions),),
    ).fetchall():  # fmt: skip
        spans = reply_spans(content, scope)
        cut_message(c, scope, int(mid), spans)


def reply_spans(text: str, scope: Scope) -> list[match.Span]:
    """Sentences of Keepsake-written text (a reply, an injected block, a summary) that repeat
    what was removed."""
    spans = [sp for n in scope.needles for sp in match.covering_sentences(text, match.find_spans(text, n))]
    for s, e in match.sentence_spans(text):
        sentence = text[s:e]
        if match.mentions(sentence, set(), scope.names, near=True) or any(
            match.support(sentence, claim) >= REPLY_SUPPORT and len(match.topic_stems(claim)) >= 2 for claim in scope.claims
        ):
            spans.append((s, e))
    return spans
