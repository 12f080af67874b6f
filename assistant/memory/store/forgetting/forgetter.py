"""The Forgetter: one owner for "forget", with every holder of a copy registered with it.

    report = store.forgetter.preview(ForgetRequest.memories([12]))   # what would go, per holder
    report = store.forgetter.forget(ForgetRequest.memories([12]))    # for real
    report.ok, report.errors, report.holders                          # one report, nothing swallowed

A forget runs in three steps:

1. **Plan and apply in one write transaction** (:func:`scope.plan`, then every database holder
   in order: audit text, the injection log, memory rows, memory cuts, messages, the context
   archive, holders registered by the layers above - e.g. the compaction summaries rebuilt by
   :mod:`assistant.context.redact` -, the summary scrub, the note's old versions, a deleted
   conversation, the generation counter). A holder that raises rolls the whole transaction
   back: nothing is half-done, and the report (``executed=False``) names the holder and error.
2. **Rewrite and checkpoint**: ``VACUUM`` writes every page anew from the live rows
   (:mod:`~assistant.memory.store.sqlite.rewrite`: ``secure_delete`` alone leaves stale copies
   in rebalanced pages), then ``wal_checkpoint(TRUNCATE)``, so the text leaves the database
   file, its free pages and the WAL.
3. **After holders** (the chat models' prompt caches, open sessions, the retrieval cache,
   ``store.on_delete`` callbacks): each runs even if another failed; a failure is an error in
   the report (the delete itself stands, and open sessions also see ``forget_generation``
   change, so the next turn never sends the forgotten text).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Callable, Iterable

from assistant.memory.store.forgetting.holders import AfterHolder, ApplyContext, AuditText, Holder, InjectionLog, MemoryCuts, MemoryRows
from assistant.memory.store.forgetting.holders_text import Archive, Generation, Messages, NoteVersions, Sessions, Summaries
from assistant.memory.store.forgetting.report import ForgetReport, ForgetRequest, HolderResult, ProposedCopy, TextCut
from assistant.memory.store.forgetting.scope import Scope, memory_texts, plan
from assistant.memory.records import Actor
from assistant.memory.store.sqlite.rewrite import rewrite_pages
from assistant.memory.store.sqlite.worklock import maintenance

log = logging.getLogger(__name__)


class HolderFailed(Exception):
    def __init__(self, name: str, exc: BaseException) -> None:
        super().__init__(f"{name}: {exc}")
        self.name, self.exc = name, exc


class Listener:
    """An after-holder from a plain callback (``store.on_delete(fn)``)."""

    def __init__(self, fn: Callable[[Any], Any], name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", None) or repr(fn)

    def after(self, report: ForgetReport) -> dict[str, int] | None:
        self.fn(report)
        return None


class Forgetter:
    """``Forgetter(core, audit, vectors)``: the store's core (transactions, clock, checkpoint), its
    audit log (holders write their audit rows through it) and its vectors (re-embedding a cut memory)."""

    def __init__(self, core: Any, audit: Any, vectors: Any) -> None:
        self.core = core
        self._audit_log, self._vectors = audit, vectors
        self._notes = NoteVersions()
        # audit text first: the holders after it write their own (text-free) audit rows
        self._first: list[Holder] = [AuditText(), InjectionLog(), MemoryRows(), MemoryCuts(), Messages(), Archive()]
        self._registered: list[Holder] = []
        self._last: list[Holder] = [Summaries(), self._notes, Sessions(), Generation()]
        self._after: list[AfterHolder] = []

    # ------------------------------------------------------------------ registration
    def register(self, holder: Holder | AfterHolder) -> None:
        """A database holder (``count``/``apply``, runs in the delete's transaction, after the
        archive) or an after holder (``after``, runs once the delete is committed)."""
        if hasattr(holder, "apply"):
            self._registered.append(holder)  # type: ignore[arg-type]
        elif hasattr(holder, "after"):
            self._after.append(holder)  # type: ignore[arg-type]
        else:
            raise TypeError(f"{holder!r} is neither a database holder nor an after holder")

    def on_delete(self, callback: Callable[[Any], Any], name: str | None = None) -> None:
        self.register(Listener(callback, name))

    @property
    def db_holders(self) -> list[Holder]:
        return [*self._first, *self._registered, *self._last]

    # ------------------------------------------------------------------ preview / forget
    def preview(self, request: ForgetRequest) -> ForgetReport:
        """What :meth:`forget` would remove, from each holder; changes nothing."""

        def run(c: Any) -> ForgetReport:
            scope = plan(c, request)
            results = [HolderResult(h.name, h.count(c, scope)) for h in self.db_holders]
            return self._report(scope, results, notes=self._notes.notes(c, scope), proposed=_proposed(c, scope))

        return self.core.read(run)

    def forget(self, request: ForgetRequest, *, actor: Actor | str = Actor.USER) -> ForgetReport:
        """Forget for real (see the module docstring). Unknown ids raise NotFound before
        anything changes; a holder failure is reported, never raised."""
        ctx = ApplyContext(now=self.core.now(), actor=Actor(actor), embed=self._embed, audit=self._audit_log.add)

        def run(c: Any) -> tuple[Scope, list[HolderResult], tuple[str, ...], tuple[ProposedCopy, ...]]:
            scope = plan(c, request)
            notes = self._notes.notes(c, scope)
            proposed = _proposed(c, scope)
            results = []
            for h in self.db_holders:
                try:
                    results.append(HolderResult(h.name, h.apply(c, scope, ctx)))
                except Exception as exc:
                    raise HolderFailed(h.name, exc) from exc
            return scope, results, notes, proposed

        try:
            with maintenance(self.core.path):  # never in the middle of a tidy-up (see worklock)
                scope, results, notes, proposed = self.core.write(run)
        except HolderFailed as failed:
            log.error("forget failed in holder %s; nothing was changed", failed.name, exc_info=failed.exc)
            preview = self.preview(request)
            return replace(preview, errors=(f"{failed.name} failed, so nothing was deleted: {failed.exc}",),
                           holders=tuple(HolderResult(h.name, h.counts, error=str(failed.exc) if h.name == failed.name else None)
                                         for h in preview.holders))  # fmt: skip
        rewritten = rewrite_pages(self.core.conn)
        truncated = self.core.checkpoint()
        report = replace(self._report(scope, results, notes=notes, proposed=proposed), executed=True, wal_truncated=truncated)
        if not rewritten:
            notes += ("The database file could not be rewritten yet (it was busy); it is rewritten on the next delete.",)
        if not truncated:
            notes += ("The write-ahead log could not be emptied yet (the database was busy); it is retried on the next delete and on close.",)
        report = replace(report, notes=notes)
        errors: list[str] = []
        after = []
        for h in self._after:
            try:
                after.append(HolderResult(h.name, h.after(report) or {}))
            except Exception as exc:  # noqa: BLE001 - reported in the result, never swallowed
                log.exception("after a delete: %s failed", h.name)
                after.append(HolderResult(h.name, error=f"{type(exc).__name__}: {exc}"))
                errors.append(f"{h.name} failed after the delete: {type(exc).__name__}: {exc}")
        return replace(report, holders=report.holders + tuple(after), errors=tuple(errors))

    def forget_note_history(self) -> int:
        """"Forget the old wording" of the person's note: every version but the current one
        goes (SQL, then the WAL checkpoint). Returns how many versions went."""
        n = self.core.write(lambda c: c.execute(
            "DELETE FROM note_versions WHERE version < (SELECT max(version) FROM note_versions)").rowcount)  # fmt: skip
        rewrite_pages(self.core.conn)
        self.core.checkpoint()
        return int(n)

    def _embed(self, text: str) -> bytes | None:
        try:
            return self._vectors.embed_one(text)
        except Exception:  # noqa: BLE001 - no vector now: backfilled later, the old one is gone anyway
            log.warning("after a forget: could not embed the kept text; its vector is added later", exc_info=True)
            return None

    @staticmethod
    def _report(scope: Scope, results: Iterable[HolderResult], *, notes: tuple[str, ...] = (),
                proposed: tuple[ProposedCopy, ...] = ()) -> ForgetReport:  # fmt: skip
        results = tuple(results)
        counts: dict[str, int] = {}
        for r in results:
            for k, v in r.counts.items():
                counts[k] = counts.get(k, 0) + int(v)
        return ForgetReport(
            requested_ids=tuple(sorted(scope.requested)),
            memory_ids=tuple(sorted(scope.doomed)),
            derived_ids=tuple(sorted(scope.derived)),
            regenerate_ids=tuple(sorted(scope.rebuilt - scope.doomed)),
            detached_ids=tuple(sorted(scope.detached - scope.doomed)),
            redacted_message_ids=tuple(sorted(scope.message_cuts)),
            deleted_message_ids=tuple(sorted(scope.session_messages)),
            session_ids=(scope.session_id,) if scope.session_id is not None else (),
            counts=counts,
            memory_edits=tuple(scope.memory_cuts[k] for k in sorted(scope.memory_cuts)),
            message_edits=tuple(scope.message_cuts[k] for k in sorted(scope.message_cuts)),
            memories_removed=tuple(TextCut("memory", k, (t,), "") for k, t in sorted(scope.removed_texts.items())),
            holders=results,
            exports=tuple(scope.exports),
            notes=notes,
            proposed=proposed,
        )


def _proposed(c: Any, scope: Scope) -> tuple[ProposedCopy, ...]:
    texts = memory_texts(c, scope.proposed)
    return tuple(ProposedCopy(mid, texts[mid], why) for mid, why in sorted(scope.proposed.items()) if mid in texts)
