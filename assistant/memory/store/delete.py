"""Real deletion, as store methods: each one is a request to the Forgetter
(:mod:`assistant.memory.forget`), which owns the whole cascade and returns one report.

- :meth:`Deletes.delete` / :meth:`~Deletes.delete_preview`: memories, whole (their source
  messages lose the sentences they came from, unless ``redact_sources=False``);
- :meth:`Deletes.forget` / :meth:`~Deletes.forget_preview`: any :class:`ForgetRequest`,
  e.g. parts of memories (the sentences about what the person asked to forget);
- :meth:`Deletes.delete_session` / :meth:`~Deletes.delete_session_preview`: a conversation;
- :meth:`Deletes.purge_expired`: memories whose TTL passed (the background job);
- :meth:`Deletes.purge_versions`: "forget the old wording" of an edited memory.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from assistant.memory.store.forgetting.forgetter import Forgetter
from assistant.memory.store.core import Repository, StoreCore
from assistant.memory.store.forgetting.report import ForgetReport, ForgetRequest
from assistant.memory.records import Actor, UpdateType
from assistant.memory.times import ts_to_db

DeletePlan = ForgetReport  # the name this report had before the Forgetter


class Deletes(Repository):
    """Every delete is a request to the :class:`Forgetter`. ``store.deletes``."""

    def __init__(self, core: StoreCore, forgetter: Forgetter) -> None:
        super().__init__(core)
        self.forgetter = forgetter

    def delete_preview(self, ids: int | Sequence[int], *, redact_sources: bool = True, copies: Sequence[int] = ()) -> ForgetReport:
        """What :meth:`delete` would remove (per holder, per table, which sentences); changes
        nothing. ``report.proposed``: other memories holding the same text, not taken."""
        return self.forgetter.preview(ForgetRequest.memories(ids, redact_sources=redact_sources, copies=copies))

    def delete(self, ids: int | Sequence[int], *, actor: Actor | str = Actor.USER, redact_sources: bool = True,
               run_id: str | None = None, copies: Sequence[int] = ()) -> ForgetReport:  # fmt: skip
        """Delete memories for real; returns the Forgetter's report (``report.ok``). ``run_id``:
        the consolidation run (or its undo) the audit rows belong to. Exactly ``ids`` go whole
        (with what is linked to them: their source sentences, derived memories, merged
        duplicates); other memories that merely hold the same text go only when named in
        ``copies`` (the ids a preview proposed and the person confirmed)."""
        request = ForgetRequest.memories(ids, redact_sources=redact_sources, copies=copies)
        return self.forgetter.forget(replace(request, run_id=run_id), actor=actor)

    def forget_preview(self, request: ForgetRequest) -> ForgetReport:
        return self.forgetter.preview(request)

    def forget(self, request: ForgetRequest, *, actor: Actor | str = Actor.USER) -> ForgetReport:
        return self.forgetter.forget(request, actor=actor)

    def delete_session_preview(self, session_id: int) -> ForgetReport:
        return self.forgetter.preview(ForgetRequest(session_id=int(session_id), redact_sources=False))

    def delete_session(self, session_id: int, *, actor: Actor | str = Actor.USER) -> ForgetReport:
        """Delete a conversation, its messages, its archive, and the memories that have no other source."""
        return self.forgetter.forget(ForgetRequest(session_id=int(session_id), redact_sources=False), actor=actor)

    def purge_expired(self, *, actor: Actor | str = Actor.CONSOLIDATOR, redact_sources: bool = False,
                      run_id: str | None = None) -> ForgetReport:  # fmt: skip
        """Delete memories whose TTL (``expires_at``) has passed (the background job's purge).
        Audited as ``purge_ttl`` (update_type ``ttl``) with ``run_id``, in the same transaction."""
        now = ts_to_db(self.now())
        ids = sorted(int(r[0]) for r in self.conn.execute("SELECT id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?", (now,)))
        request = ForgetRequest(memory_ids=tuple(ids), redact_sources=redact_sources, run_id=run_id, action="purge_ttl",
                                update_type=UpdateType.TTL.value)  # fmt: skip
        return self.forgetter.forget(request, actor=actor)

    def purge_versions(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> ForgetReport:
        """Forget the old wording of a memory: its earlier versions go, with their text in the
        audit log and in the memory blocks archived with past turns."""
        return self.forgetter.forget(ForgetRequest(versions_of=(int(memory_id),), redact_sources=False), actor=actor)

    def purge_versions_preview(self, memory_id: int) -> ForgetReport:
        return self.forgetter.preview(ForgetRequest(versions_of=(int(memory_id),), redact_sources=False))
