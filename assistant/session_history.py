"""A stored session's history for the model, rebuilt from the store (after a restart, a model
change, a delete).

- Only answered turns, and not those code refused ("I don't know that yet: ..."): its wording in
  the history teaches a small model to refuse later questions memory answers (issue 28.5). The
  same turns the live session leaves out (:func:`assistant.answering.for_history`), so a rebuilt
  history is the one sent and a server's prompt cache still holds its prefix.
- Only answered turns: a message of the person that got no reply (the model failed) is left out,
  so the history keeps alternating user/assistant (several chat templates require it) and a
  retried message is not sent twice.
- ``count_tokens`` given (a model server, whose prompt cache outlives this process): each user
  turn is rebuilt *as it was sent*, with the memory block injected then - the same memories (by
  the injection log), formatted by the same :func:`assistant.memory.retrieval.inject.format_block` - so
  the next request shares its prefix with the server's cache and only the new tokens are
  evaluated. A memory deleted or changed since gives another block (and a cache miss from
  there), never deleted text. Reminders (remember/forget commands) are not rebuilt.
"""

from __future__ import annotations

from typing import Any, Callable

from assistant.memory.retrieval.reply_check import CODE_FILLERS, CODE_REFUSALS
from assistant.context.state import ContextMessage
from assistant.memory.records import Role


def answered_history(store, session_id: int, *, count_tokens: Callable[[str], int] | None = None,
                     clip: Callable[[str], str] = lambda text: text) -> list[ContextMessage]:  # fmt: skip
    """The session's answered user/assistant messages as :class:`ContextMessage` (module doc)."""
    messages = [m for m in store.messages(session_id) if m.role in (Role.USER, Role.ASSISTANT)]
    kept = [m for i, m in enumerate(messages)
            if m.role == Role.ASSISTANT or (i + 1 < len(messages) and messages[i + 1].role == Role.ASSISTANT)]  # fmt: skip
    # a code refusal or stand-in never teaches the model to copy it into later turns (issue 28.5): such a turn is left out
    refused = {i for i, m in enumerate(kept) if m.role == Role.ASSISTANT and m.content.strip() in CODE_REFUSALS + CODE_FILLERS}
    kept = [m for i, m in enumerate(kept) if i not in refused and i + 1 not in refused]
    blocks = _sent_blocks(store, session_id, count_tokens) if count_tokens is not None else {}
    out = []
    for m in kept:
        block, lead = blocks.get(m.id, (None, None)) if m.role == Role.USER else (None, None)
        if block:
            from assistant.memory.retrieval import inject  # deferred: rapidfuzz

            text = inject.with_lead(clip(m.content).strip(), lead)  # the lead as it was sent (None: none)
            out.append(ContextMessage("user", f"{block.strip()}\n\n{text}", m.id, raw=m.content))
        else:
            out.append(ContextMessage(m.role.value, m.content, m.id))
    return out


def _sent_blocks(store, session_id: int, count_tokens: Callable[[str], int]) -> dict[int, tuple[str, Any]]:
    """{user message id: (the memory block injected into it, the memory answer stated before the
    question or None)}, rebuilt from the injection log, so the rebuilt turn is the one sent (a
    prefix-caching server still holds it)."""
    from assistant.memory.retrieval import answer as memanswer  # deferred with inject: rapidfuzz
    from assistant.memory.retrieval import inject  # deferred: rapidfuzz
    from assistant.memory.retrieval.retriever import Hit

    by_message: dict[int, list] = {}
    for row in store.injections(session_id=session_id):
        if row.message_id is not None:
            by_message.setdefault(row.message_id, []).append(row)
    ids = sorted({r.memory_id for rows in by_message.values() for r in rows})
    memories = {m.id: m for m in store.get_many(ids)} if ids else {}
    blocks = {}
    for message_id, rows in by_message.items():
        hits = [Hit(memories[r.memory_id], r.score, (), True) for r in sorted(rows, key=lambda r: r.rank) if r.memory_id in memories]
        block = inject.format_block(hits, count_tokens=count_tokens)
        answers = (memanswer.from_log(memories[r.memory_id], r.signals) for r in rows if r.memory_id in memories)
        lead = next((a for a in answers if a is not None), None)
        if block.text:
            blocks[message_id] = (block.text, lead)
    return blocks
