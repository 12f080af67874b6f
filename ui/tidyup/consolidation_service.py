"""The consolidation panel's view of background tidying: a small interface and its adapter over
``assistant.jobs`` (the scheduler) and ``assistant.memory.consolidation.consolidator`` (runs, preview, undo).

No Qt here: the panel calls these on worker threads. When the modules are missing (an older
build) :func:`make_service` returns :class:`Unavailable` and the panel says so calmly.
"""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

from assistant.jobs import ConsolidationJobs
from assistant.next_run import next_run
from ui.format import ACTION_LABELS

log = logging.getLogger(__name__)

RUN_WAIT_S = 900.0
AUDIT_ROWS = 300


@dataclass
class ChangeView:
    kind: str  # update type: duplicate, conflict, consolidate, decay, ttl
    description: str
    memory_ids: list[int] = field(default_factory=list)


@dataclass
class RunView:
    run_id: str
    at: Any  # datetime or ISO string
    applied: bool  # False: proposed only (a dry run)
    counts: dict[str, int] = field(default_factory=dict)
    changes: list[ChangeView] | None = None  # None: not loaded yet
    undone: bool = False
    trigger: str = ""
    status: str = "finished"

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class StatusView:
    available: bool
    reason: str = ""
    last_run: Any = None
    next_run: Any = None
    running: bool = False
    runs: list[RunView] = field(default_factory=list)
    model_extraction_left: int = 0  # imported messages the chat model has yet to read


class ConsolidationService(Protocol):
    def status(self) -> StatusView: ...
    def preview(self) -> RunView: ...
    def run_now(self) -> RunView: ...
    def changes(self, run_id: str) -> list[ChangeView]: ...
    def undo(self, run_id: str) -> Any: ...


class Unavailable:
    def __init__(self, reason: str) -> None:
        self.reason = reason

    def status(self) -> StatusView:
        return StatusView(False, self.reason)

    def _no(self, *_a: Any) -> Any:
        raise RuntimeError(self.reason)

    preview = run_now = changes = undo = _no


NOT_AVAILABLE = ("Background tidying of memories (merging duplicates, resolving contradictions, fading unused "
                 "memories) is not available in this build.")  # fmt: skip


def available() -> bool:
    return importlib.util.find_spec("assistant.jobs") is not None and importlib.util.find_spec("assistant.memory.consolidation.consolidator") is not None


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return " — ".join(lines[:3]) if lines else ""


def change_view(ch: Any) -> ChangeView:
    data = ch.to_json() if hasattr(ch, "to_json") else dict(ch)
    desc = ch.describe() if hasattr(ch, "describe") else str(data)
    ids = list(ch.ids()) if hasattr(ch, "ids") else []
    return ChangeView(str(data.get("update_type") or data.get("type") or ""), _first_line(desc), ids)


def run_view(rec: Any, now: datetime | None = None) -> RunView:
    """From a ``RunRecord`` (the runs table); ``status`` is what to show (``RunRecord.state``)."""

    status = rec.state(now or datetime.now(timezone.utc)) if hasattr(rec, "state") else rec.status
    return RunView(run_id=rec.run_id, at=rec.finished_at or rec.started_at, applied=not rec.dry_run,
                   counts=dict(rec.counts), undone=rec.undone, trigger=rec.trigger, status=status)  # fmt: skip




def audit_change(entry: Any, texts: dict[int, str]) -> ChangeView:
    action = ACTION_LABELS.get(entry.action, entry.action.replace("_", " ")).lower()
    mid = entry.memory_id
    text = texts.get(mid, "") if mid is not None else ""
    target = f"#{mid}" + (f" “{text[:90]}”" if text else "") if mid is not None else ""
    kind = entry.update_type.value if entry.update_type else ""
    return ChangeView(kind, f"{target} {action}".strip(), [mid] if mid is not None else [])


class JobsService:
    """Adapter over a running ``ConsolidationJobs`` and the consolidation module."""

    def __init__(self, jobs: Any, store: Any) -> None:
        self.jobs = jobs
        self.store = store

    def status(self) -> StatusView:
        from assistant.memory.consolidation.consolidator import list_runs  # deferred: the store (SQLCipher, numpy)

        st = self.jobs.status()
        runs = [run_view(r) for r in list_runs(self.store, limit=15)]
        last = (st.last_run or {}).get("finished_at") or (st.last_run or {}).get("started_at")
        nxt = next_run(st, datetime.now(timezone.utc))
        return StatusView(True, "", last, nxt, bool(st.running), runs, st.model_extraction_left or 0)

    def preview(self) -> RunView:
        from assistant.memory.consolidation.consolidator import consolidate  # deferred: the store (SQLCipher, numpy)

        report = consolidate(self.store, dry_run=True, trigger="preview")
        view = RunView(report.run_id, report.finished_at or report.started_at, False, dict(report.proposed),
                       trigger="preview")  # fmt: skip
        view.changes = [change_view(ch) for ch in report.changes]
        return view

    def run_now(self) -> RunView:
        from assistant.memory.consolidation.consolidator import list_runs  # deferred: the store (SQLCipher, numpy)

        before = {r.run_id for r in list_runs(self.store, limit=5)}
        self.jobs.run_now()
        self.jobs.wait_idle(RUN_WAIT_S)
        fresh = [r for r in list_runs(self.store, limit=5) if r.run_id not in before and not r.dry_run]
        if not fresh:
            raise RuntimeError("the tidy-up run did not finish in time; it continues in the background")
        view = run_view(fresh[0])
        view.changes = self.changes(view.run_id)
        return view

    def changes(self, run_id: str) -> list[ChangeView]:
        entries = [e for e in self.store.audit(run_id=run_id, limit=AUDIT_ROWS)]
        ids = sorted({e.memory_id for e in entries if e.memory_id is not None})
        texts = {m.id: m.text for m in self.store.get_many(ids)} if ids else {}
        return [audit_change(e, texts) for e in entries]

    def undo(self, run_id: str) -> Any:
        from assistant.memory.consolidation.consolidator import undo  # deferred: the store (SQLCipher, numpy)

        return undo(self.store, run_id)


def start_jobs(store: Any, services: Any) -> Any:
    """Start the background scheduler for ``store`` with ``services``' settings. Consolidation is
    rule-based; the chat model is used only to read imported messages queued for it, after a
    run, while idle."""

    return ConsolidationJobs(store, settings=services.settings, use_llm=False, extract_model=services.chat_model).start()
