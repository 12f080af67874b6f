"""One session's short-term memory, end to end: the history as sent, assembly, compaction.

The chat session uses it like this (one :class:`SessionContext` per open session)::

    ctx = SessionContext(session_id, model, archive=store.context_archive, messages=stored)  # stored: ContextMessages by id
    assembled = ctx.prepare(text, memories_block=block)          # compacts first when due
    reply = model.complete(assembled.messages, ...)
    ctx.record(assembled, text, reply, user_id=..., reply_id=...)
    ctx.maintain()                                               # optional, off the hot path

``record`` appends the user turn *as sent* (with its memory block) and the reply (offloaded when
over 8000 chars), so the next turn's messages start with this turn's. After a restart the
history is rebuilt from stored messages with :func:`compaction.apply_state` (the KV cache is
cold then anyway). ``archive`` is the store's encrypted context archive (``store.context_archive``):
offloads, the archived history, the compaction state and the note all live there.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from assistant.context import offload
from assistant.context.assembler import DEFAULT_SYSTEM_PROMPT, Assembled, Assembler
from assistant.context.budget import compaction_threshold
from assistant.context.compaction import (
    SUMMARY_EVERY,
    CompactionResult,
    Compactor,
    ContextMessage,
    StateArchive,
    apply_state,
    load_state,
)
from assistant.context.note import NoteStore

TARGET_FRACTION = 0.5  # after a compaction, prefix + history use at most this much of the threshold


class ContextModel(Protocol):
    def count_tokens(self, text: str) -> int: ...
    def complete(self, messages, **kw): ...


class SessionContext:
    def __init__(
        self,
        session_id: int | str,
        model: ContextModel,
        *,
        archive: StateArchive,
        window: int | None = None,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        notes: NoteStore | None = None,
        messages: Sequence[ContextMessage] = (),
        summarize: bool = True,
    ) -> None:
        self.session_id = str(session_id)
        self.model = model
        self.window = window or int(getattr(model, "context_size", 4096))
        self.assembler = Assembler(model.count_tokens, self.window, system_prompt)
        summary_tokens = min(4096, max(256, self.window // 8))
        self.archive = archive
        self.compactor = Compactor(self.assembler._count, model if summarize else None, archive=archive, summary_tokens=summary_tokens)
        self.notes = notes if notes is not None else NoteStore(archive)
        self.state = load_state(archive, self.session_id)
        self.history: list[ContextMessage] = apply_state(archive, self.state, messages)
        self.last_compaction: CompactionResult | None = None
        self._messages = 0  # messages recorded by this object
        self._attempted_at: int | None = None

    def _assemble(self, user_input: str, **kw) -> Assembled:
        return self.assembler.assemble(
            history=self.history, user_input=user_input, note=self.notes.text(), summary=self.state.summary or None, **kw
        )

    def prepare(self, user_input: str, *, memories_block: str | None = None, reminders: str | None = None, max_output_tokens: int = 512) -> Assembled:
        """This turn's messages; runs the compaction ladder first when the window reached the
        compaction threshold (the one moment the prefix may change)."""
        kw = dict(memories_block=memories_block, reminders=reminders, max_output_tokens=max_output_tokens)
        assembled = self._assemble(user_input, **kw)
        if self._due(assembled):
            result = self.compact()
            if result.changed:
                assembled = self._assemble(user_input, **kw)
        return assembled

    def maintain(self, *, warm: bool = True, max_output_tokens: int = 512) -> CompactionResult | None:
        """Call after a reply, while the person reads and types: compacts now if the window is
        due (so the next ``prepare`` does not), and with ``warm`` evaluates the new prefix once
        so the next turn's TTFT is not paid for the re-evaluation."""
        if not self._due(self._assemble("", max_output_tokens=max_output_tokens)):
            return None
        result = self.compact()
        if result.changed and warm:
            self.model.complete(self._assemble("", max_output_tokens=max_output_tokens).messages[:-1], max_tokens=1, temperature=0.0)
        return result

    def _due(self, assembled: Assembled) -> bool:
        """Compaction is due at the threshold - but at most once every ``SUMMARY_EVERY``
        messages unless history had to be cut (hysteresis: a ladder step that frees little must
        not break the prefix turn after turn)."""
        if not assembled.needs_compaction:
            return False
        recent = self._attempted_at is not None and self._messages - self._attempted_at < SUMMARY_EVERY
        return assembled.history_start > 0 or not recent

    def compact(self, *, force_summary: bool = False) -> CompactionResult:
        self._attempted_at = self._messages
        system = self.assembler.system_text(note=self.notes.text())
        target = int(compaction_threshold(self.window) * TARGET_FRACTION) - self.assembler._count(system)
        result = self.compactor.compact(self.session_id, self.history, target_tokens=max(0, target), force_summary=force_summary)
        self.history, self.state, self.last_compaction = result.history, result.state, result
        return result

    def record(self, assembled: Assembled, user_input: str, reply: str, *, user_id: int | None = None, reply_id: int | None = None) -> None:
        """Append this turn: the user message as sent (``raw`` keeps the person's own text) and
        the reply. Ids are the store's message ids (a local sequence when not stored)."""
        last = max([m.id for m in self.history] + [self.state.archived_up_to or 0])
        user_id = user_id if user_id is not None else last + 1
        reply_id = reply_id if reply_id is not None else user_id + 1
        self.history.append(ContextMessage("user", assembled.user_message.content, user_id, raw=user_input))
        self.history.append(ContextMessage("assistant", offload.offload_text(self.archive, reply, self.session_id, kind="assistant",
                                                                             message_id=reply_id), reply_id))
        self._messages += 2
