"""Background consolidation (docs/DESIGN.md §8): keep long-term memory clean, current and small
-- conservatively, reversibly and visibly.

    from assistant.memory.consolidation.consolidator import Consolidator
    report = Consolidator(store).run(dry_run=True)        # what it would do, and why
    report = Consolidator(store).run(trigger="idle")       # do it; report.run_id
    Consolidator(store).undo(report.run_id)                # take it back

A run is *plan* then *apply*:

1. plan (reads one snapshot, writes nothing; :mod:`assistant.memory.consolidation`):
   TTL purges -> duplicate merges (:mod:`.dedup`) -> contradictions decided by the interval
   algebra (:mod:`.contradictions`) -> episodic -> semantic facts (:mod:`.episodic`) -> decay
   (:mod:`.decay_ttl`). Each stage skips records an earlier stage already changed. Every
   change is a typed dataclass (:mod:`.changes`) with its reason.
2. apply (unless ``dry_run``; :mod:`.apply`): short transactions, ``expected_version`` on every
   write, conflicts retried then skipped and counted, every change audited with its
   ``update_type`` and the run id. Nothing is deleted except TTL-expired records.

Each run leaves a row in ``consolidation_runs`` (:mod:`.runs`): trigger, dry-run flag,
started/finished, counts by update_type, conflicts, undone flag. :meth:`Consolidator.undo`
reverts a run (:mod:`.undo`). A run is all or nothing: one that is killed or fails while
applying is rolled back (by itself, or by the next start: :mod:`.recover`).

The chat model is optional (``use_llm``): it may confirm paraphrases the rules could not, propose
contradictions between facts sharing an entity, and word consolidated facts; it only ever picks
integer ids from lists the code gave it, and code checks every pick.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable

from assistant.memory.store.sqlite.worklock import maintenance
from assistant.memory.store.tidying import runs as runs_mod
from assistant.memory.store.tidying.apply import ApplyResult, apply_changes, purge
from assistant.memory.store.tidying.changes import Candidate, Change, Invalidate, Merge, Purge
from assistant.memory.consolidation.plans.contradictions import ConflictConfig, plan_conflicts
from assistant.memory.consolidation.plans.decay_ttl import plan_decay, plan_ttl
from assistant.memory.consolidation.plans.dedup import DedupConfig, plan_dedup
from assistant.memory.consolidation.plans.episodic import EpisodicConfig, plan_episodic
from assistant.memory.consolidation.llm import LLMJudge
from assistant.memory.store.tidying.owner import executing
from assistant.memory.store.tidying.recover import Recovered, recover_stale, rollback
from assistant.memory.store.tidying.runs import RunRecord, new_run_id
from assistant.memory.store.tidying.snapshot import load_snapshot
from assistant.memory.store.tidying.undo import UndoReport, undo_run
from assistant.memory.consolidation.plans.decay import DEFAULT_POLICY, DecayPolicy
from assistant.memory.records import Actor
from assistant.memory.times import iso, to_utc

__all__ = [
    "ConsolidationConfig", "Consolidator", "Plan", "RunReport", "RunRecord", "UndoReport", "consolidate",
    "undo", "list_runs", "STAGES",
]  # fmt: skip

log = logging.getLogger(__name__)
STAGES = ("ttl", "dedup", "conflicts", "episodic", "decay")


@dataclass(frozen=True)
class ConsolidationConfig:
    stages: tuple[str, ...] = STAGES
    use_llm: bool = False  # needs a chat model
    dedup: DedupConfig = DedupConfig()
    conflicts: ConflictConfig = ConflictConfig()
    episodic: EpisodicConfig = EpisodicConfig()
    decay: DecayPolicy = DEFAULT_POLICY
    batch_max: int = 32  # changes per write transaction
    batch_seconds: float = 0.05  # ... or this much work, whichever first
    max_retries: int = 3
    #: plan in a child process (:mod:`.plan_apart`): the background runs of an interactive process
    apart: bool = False


@dataclass
class Plan:
    now: datetime
    changes: list[Change]
    candidates: list[Candidate]
    stats: dict[str, Any]
    timings: dict[str, float]

    def counts(self) -> dict[str, int]:
        """Records each update_type would give a new version (or create, or purge)."""
        c: Counter = Counter()
        for ch in self.changes:
            n = 1
            if isinstance(ch, Merge):
                n = len(ch.merged) + (ch.confidence is not None)
            elif isinstance(ch, Invalidate):
                n = 1 + len(ch.followers)
            c[ch.update_type.value] += n
        return dict(c)


@dataclass
class RunReport:
    run_id: str
    trigger: str
    dry_run: bool
    started_at: datetime
    finished_at: datetime | None = None
    changes: list[Change] = field(default_factory=list)  # proposed (dry run) or applied
    proposed: dict[str, int] = field(default_factory=dict)  # update_type -> records
    applied: dict[str, int] = field(default_factory=dict)  # update_type -> records (empty for a dry run)
    conflicts: int = 0
    retried: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    recovered: list[Recovered] = field(default_factory=list)  # interrupted runs rolled back before this one

    @property
    def counts(self) -> dict[str, int]:
        return self.proposed if self.dry_run else self.applied

    def summary(self) -> dict[str, Any]:
        """Small, text-free: what goes out on the ``consolidation`` event and into the runs table."""
        return {
            "run_id": self.run_id, "trigger": self.trigger, "dry_run": self.dry_run,
            "started_at": iso(self.started_at), "finished_at": iso(self.finished_at), "counts": dict(self.counts),
            "conflicts": self.conflicts, "retried": self.retried, "skipped": self.skipped,
            "errors": len(self.errors), "wall_s": round(sum(self.timings.values()), 3),
        }  # fmt: skip

    def to_json(self, *, changes: bool = True) -> dict[str, Any]:
        out = self.summary()
        out.update(proposed=dict(self.proposed), applied=dict(self.applied), stats=self.stats,
                   timings={k: round(v, 3) for k, v in self.timings.items()}, error_messages=list(self.errors),
                   rolled_back=[r.to_json() for r in self.recovered])  # fmt: skip
        if changes:
            out["changes"] = [ch.to_json() for ch in self.changes]
            out["candidates"] = [c.to_json() for c in self.candidates]
        return out


class Consolidator:
    """``Consolidator(store, *, chat_model=None, config=None, clock=None)``; see the module doc."""

    def __init__(self, store: Any, *, chat_model: Any = None, config: ConsolidationConfig | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:  # fmt: skip
        self.store = store
        self.chat_model = chat_model
        self.config = config or ConsolidationConfig()
        self._clock = clock
        self._cancel: threading.Event | None = None

    def now(self) -> datetime:
        return to_utc(self._clock()) if self._clock is not None else self.store.now()

    def _judge(self) -> LLMJudge | None:
        if not self.config.use_llm or self.chat_model is None:
            return None
        return LLMJudge(self.chat_model, cancel=self._cancel)

    # ------------------------------------------------------------------ plan

    def plan(self) -> Plan:
        """Everything a run would change, with reasons. Writes nothing. With ``config.apart``
        (and no chat model to ask) it is made in a child process when one can be used."""
        cfg = self.config
        now = self.now()
        if cfg.apart and self._judge() is None:
            from assistant.memory.consolidation.plan_apart import plan_apart  # deferred: multiprocessing

            made = plan_apart(self.store, now, replace(cfg, apart=False))
            if made is not None:
                return made
        timings: dict[str, float] = {}
        t = time.perf_counter()
        snap = self.store.read(lambda c: load_snapshot(c, now, self.store.dim))
        timings["load"] = time.perf_counter() - t
        judge = self._judge()
        changes: list[Change] = []
        candidates: list[Candidate] = []
        stats: dict[str, Any] = {"memories": len(snap.recs), "vectors": int(snap.vectors.shape[0])}
        touched: set[int] = {r.id for r in snap.expired_ttl}

        def take(new: list[Change]) -> None:
            changes.extend(new)
            for ch in new:
                touched.update(ch.ids())

        def stage(name: str, fn: Callable[[], None]) -> None:
            if name in cfg.stages:
                t0 = time.perf_counter()
                fn()
                timings[name] = time.perf_counter() - t0

        def ttl() -> None:
            changes.extend(plan_ttl(snap))
            stats["ttl"] = {"expired": len(snap.expired_ttl)}

        def dedup() -> None:
            res = plan_dedup(snap, exclude=touched, judge=judge, config=cfg.dedup)
            take(res.merges)  # type: ignore[arg-type]
            candidates.extend(res.candidates)
            stats["dedup"] = res.stats

        def conflicts() -> None:
            res = plan_conflicts(snap, exclude=touched, judge=judge, config=cfg.conflicts)
            take(res.changes)  # type: ignore[arg-type]
            candidates.extend(res.candidates)
            stats["conflicts"] = res.stats

        def episodic() -> None:
            res = plan_episodic(snap, exclude=touched, judge=judge, config=cfg.episodic)
            take(res.changes)  # type: ignore[arg-type]
            candidates.extend(res.candidates)
            stats["episodic"] = res.stats

        def decay() -> None:
            res = plan_decay(snap, exclude=touched, policy=cfg.decay)
            take(res)  # type: ignore[arg-type]
            stats["decay"] = {"archived": len(res)}

        for name, fn in (("ttl", ttl), ("dedup", dedup), ("conflicts", conflicts), ("episodic", episodic), ("decay", decay)):
            stage(name, fn)
        if judge is not None:
            stats["llm"] = {"calls": judge.calls, "failures": judge.failures}
        return Plan(now, changes, candidates, stats, timings)

    # ------------------------------------------------------------------ run

    def run(self, *, dry_run: bool = False, trigger: str = "manual", cancel: threading.Event | None = None) -> RunReport:
        """Plan, then (unless ``dry_run``) apply. Always recorded in ``consolidation_runs``.

        All or nothing (:mod:`~assistant.memory.store.tidying.recover`): runs left ``running``
        by a process that is gone are rolled back first; a run that raises while applying rolls
        itself back before the error propagates. A cancelled run finishes with what it applied
        (undoable like any run)."""
        with maintenance(self.store.path):  # a forget waits for the run (and the run for a forget)
            return self._locked_run(dry_run=dry_run, trigger=trigger, cancel=cancel)

    def _locked_run(self, *, dry_run: bool, trigger: str, cancel: threading.Event | None) -> RunReport:
        self._cancel = cancel
        recovered = recover_stale(self.store)
        started = self.now()
        run_id = new_run_id(started)
        report = RunReport(run_id, trigger, dry_run, started, recovered=recovered)
        with executing(run_id):
            runs_mod.start_run(self.store, run_id, trigger, dry_run, started)
            try:
                self._run(report, cancel)
            except BaseException as exc:
                report.finished_at = self.now()
                self._failed(report, exc)
                raise
            report.finished_at = self.now()
            runs_mod.finish_run(
                self.store, run_id, status="finished", now=report.finished_at, counts=report.counts,
                conflicts=report.conflicts, skipped=report.skipped, errors=len(report.errors),
                details={"timings": {k: round(v, 4) for k, v in report.timings.items()}, "stats": report.stats,
                         "proposed": report.proposed, "retried": report.retried},
            )  # fmt: skip
        return report

    def _run(self, report: RunReport, cancel: threading.Event | None) -> None:
        run_id = report.run_id
        plan = self.plan()
        report.timings.update({f"plan_{k}": v for k, v in plan.timings.items()})
        report.stats, report.candidates, report.proposed = plan.stats, plan.candidates, plan.counts()
        if report.dry_run:
            report.changes = plan.changes
            return
        t = time.perf_counter()
        purged = purge(self.store, [ch for ch in plan.changes if isinstance(ch, Purge)], run_id)
        report.timings["apply_ttl"] = time.perf_counter() - t
        t = time.perf_counter()
        res: ApplyResult = apply_changes(
            self.store, plan.changes, run_id, batch_max=self.config.batch_max,
            batch_seconds=self.config.batch_seconds, max_retries=self.config.max_retries, cancel=cancel,
            on_batch=lambda c: runs_mod.heartbeat(c, run_id, self.now()),
        )  # fmt: skip
        report.timings["apply"] = time.perf_counter() - t
        applied = dict(res.counts)
        if purged:
            applied["ttl"] = len(purged)
        report.applied = applied
        report.changes = [ch for ch in plan.changes if isinstance(ch, Purge) and ch.memory_id in set(purged)] + res.applied
        report.conflicts, report.retried, report.skipped = res.conflicts, res.retried, len(res.skipped)
        report.errors = res.errors
        report.stats["transactions"] = res.transactions
        report.stats["cancelled"] = bool(cancel is not None and cancel.is_set())
        report.stats["new_vectors"] = self._embed_created(run_id)

    def _embed_created(self, run_id: str) -> dict[str, int]:
        """Every memory the run created gets its vector now (one embed call for those the plan
        could not embed, e.g. when the embedder failed mid-plan), so vector search finds them
        right after the run; FTS rows come with the insert (triggers). Without an embedder they
        stay in ``missing`` (logged) and are embedded by the next run that has one."""
        created = sorted({e.memory_id for e in self.store.audit(run_id=run_id) if e.action == "add" and e.memory_id})
        done = self.store.vectors.backfill(ids=created) if created and self.store.vectors.embed is not None else 0
        have = self.store.vectors.having(created)
        missing = [mid for mid in created if mid not in have]
        if missing:
            log.warning("consolidation run %s: %d new memories have no vector yet (no embedder)", run_id, len(missing))
        return {"created": len(created), "embedded_after_apply": done, "missing": len(missing)}

    def _failed(self, report: RunReport, exc: BaseException) -> None:
        """Roll back what the failed run applied and record it. If even that fails (the disk is
        full, the file is damaged), the row stays ``running`` and, once this run is no longer
        executing, is stale: the next start rolls it back."""
        error = f"{type(exc).__name__}: {exc}"
        try:
            if report.dry_run:
                runs_mod.finish_run(self.store, report.run_id, status="failed", now=report.finished_at, counts=report.counts,
                                    details={"error": error, "timings": report.timings})  # fmt: skip
            else:
                rollback(self.store, runs_mod.get_run(self.store, report.run_id), report.finished_at, reason=error, claimed=True)
        except Exception:  # noqa: BLE001 - the original error is what the caller must see
            log.exception("could not roll back consolidation run %s; the next start will", report.run_id)

    def undo(self, run_id: str, *, actor: Actor | str = Actor.USER, cascade: bool = False) -> UndoReport:
        return undo_run(self.store, run_id, actor=actor, cascade=cascade)

    def runs(self, limit: int | None = 20) -> list[RunRecord]:
        return runs_mod.list_runs(self.store, limit=limit)


def consolidate(store: Any, *, dry_run: bool = False, trigger: str = "manual", chat_model: Any = None,
                config: ConsolidationConfig | None = None) -> RunReport:  # fmt: skip
    """One run (see :class:`Consolidator`)."""
    return Consolidator(store, chat_model=chat_model, config=config).run(dry_run=dry_run, trigger=trigger)


def undo(store: Any, run_id: str, *, actor: Actor | str = Actor.USER, cascade: bool = False) -> UndoReport:
    """Revert run ``run_id`` (see :mod:`assistant.memory.store.tidying.undo`); ``cascade``:
    undo the later runs that touched the same memories first."""
    return undo_run(store, run_id, actor=actor, cascade=cascade)


def list_runs(store: Any, limit: int | None = 20) -> list[RunRecord]:
    """Recorded runs, newest first."""
    return runs_mod.list_runs(store, limit=limit)



