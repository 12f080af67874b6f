"""Background jobs (APScheduler 3.x ``BackgroundScheduler``): when consolidation runs.

    jobs = ConsolidationJobs(store, settings=profile.settings)   # idle_minutes, nightly_hour
    jobs.start()
    jobs.note_activity()                     # call on every input (key press, send): cheap
    jobs.run_now()                           # "consolidate now" button / menu item
    jobs.status()                            # JobsStatus: running, last run, next run times
    jobs.shutdown()

Triggers (all end in one persistent scheduler job, id ``consolidation.run``, ``max_instances=1``,
``coalesce=True``, whose next run time a trigger sets to "now"; so two runs never overlap and a
burst of triggers makes one run):

- **idle**: no input for ``idle_seconds`` (``Settings.idle_minutes``). Debounced: every
  :meth:`note_activity` resets the idle clock, so it never fires while the person types; it fires
  once per idle period (activity re-arms it). An idle check job polls every ``check_interval``
  seconds, so it fires between ``idle_seconds`` and ``idle_seconds + check_interval`` after the
  last input. Input arriving during an idle-triggered run asks the run to stop early (the rest is
  picked up by the next run).
- **nightly**: every day at ``Settings.nightly_hour`` (local time; a missed run -- the computer
  was asleep -- runs when it wakes, within 6 hours).
- **after compaction**: subscribed to the ``"compaction"`` event (:mod:`assistant.events`).
- **run now**: :meth:`run_now`.

On :meth:`start`, runs a killed process left ``running`` are rolled back (one background job).

After the consolidation, a run (not one triggered by a compaction) also lets the chat model read
imported messages queued for it (``extract_model``; :mod:`assistant.memory.capture.importing.model_extraction`),
until the queue is empty or the run is cancelled; ``status().model_extraction_left`` says how many
are left.

A trigger arriving while a run is in progress is remembered (one pending run) and started when
the current run ends. Results go out on the ``"consolidation"`` event topic as a text-free dict
(:meth:`RunReport.summary` plus ``"ok"``/``"error"``); the UI turns it into a Qt signal. Jobs run
on the scheduler's worker threads and never touch widgets. Time is injectable for tests:
``idle_seconds``, ``check_interval`` and ``clock`` (a monotonic clock).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from assistant import events
from assistant.config import Settings
from assistant.memory.store.tidying.runs import last_run, list_runs

log = logging.getLogger(__name__)

TOPIC = "consolidation"
RUN_JOB = "consolidation.run"
IDLE_JOB = "consolidation.idle-check"
NIGHTLY_JOB = "consolidation.nightly"
RECOVER_JOB = "consolidation.recover"
TRIGGERS = ("idle", "nightly", "compaction", "manual")

RunFn = Callable[[str, threading.Event], Any]  # (trigger, cancel) -> report with .summary()


@dataclass(frozen=True)
class JobsStatus:
    scheduler_running: bool
    running: bool
    running_trigger: str | None
    pending_trigger: str | None
    last_run: dict[str, Any] | None  # summary of the last finished run (from memory or the runs table)
    next_nightly: datetime | None
    next_idle_in: float | None  # seconds until the idle trigger fires if no input arrives; None: not armed
    idle_seconds: float
    check_interval: float
    nightly_hour: int | None
    runs: int = 0  # runs finished by this scheduler
    interrupted: int = 0  # runs left "running" by a process that is gone (rolled back by the next run)
    model_extraction_left: int | None = None  # imported messages the chat model has yet to read

    def to_json(self) -> dict[str, Any]:
        return {
            "scheduler_running": self.scheduler_running, "running": self.running,
            "running_trigger": self.running_trigger, "pending_trigger": self.pending_trigger,
            "last_run": self.last_run,
            "next_nightly": self.next_nightly.isoformat() if self.next_nightly else None,
            "next_idle_in": None if self.next_idle_in is None else round(self.next_idle_in, 3),
            "idle_seconds": self.idle_seconds, "check_interval": self.check_interval,
            "nightly_hour": self.nightly_hour, "runs": self.runs, "interrupted": self.interrupted,
            "model_extraction_left": self.model_extraction_left,
        }  # fmt: skip


@dataclass
class _Outcome:
    """A consolidation report plus what the background model extraction did after it."""

    report: Any
    extraction: Any = None

    def summary(self) -> dict[str, Any]:
        out = dict(self.report.summary())
        if self.extraction is not None:
            out["model_extraction"] = self.extraction.to_json()
        return out


def _default_run(store: Any, chat_model: Any, use_llm: bool, extract_model: Callable[[], Any] | None, settings: Settings) -> RunFn:
    def run(trigger: str, cancel: threading.Event) -> Any:
        from assistant.memory.consolidation.consolidator import (  # deferred: the store (SQLCipher, numpy)
            ConsolidationConfig,
            Consolidator,
        )

        config = ConsolidationConfig(use_llm=use_llm and chat_model is not None, apart=True)  # planned in a child process
        outcome = _Outcome(Consolidator(store, chat_model=chat_model, config=config).run(trigger=trigger, cancel=cancel))
        if extract_model is not None and trigger != "compaction" and not cancel.is_set():
            from assistant.memory.capture.importing import model_extraction  # deferred: the store (SQLCipher, numpy)

            if model_extraction.status(store).left:
                outcome.extraction = model_extraction.run(store, extract_model(), cancel=cancel, settings=settings)
        return outcome

    return run


def next_nightly(hour: int, now: datetime | None = None, tz: Any = None) -> datetime:
    """The next ``hour``:00 after ``now`` (local time by default)."""
    from apscheduler.triggers.cron import CronTrigger  # deferred: APScheduler

    trigger = CronTrigger(hour=hour, minute=0, timezone=tz)
    now = now or datetime.now(trigger.timezone)
    return trigger.get_next_fire_time(None, now)


class ConsolidationJobs:
    """``ConsolidationJobs(store=None, *, run=None, chat_model=None, use_llm=False, settings=None,
    idle_seconds=None, check_interval=15.0, nightly_hour=UNSET, timezone=None, clock=time.monotonic,
    subscribe_compaction=True, extract_model=None)``

    ``run(trigger, cancel)`` replaces the consolidation itself (tests); by default a
    :class:`~assistant.memory.consolidation.consolidator.Consolidator` over ``store``, then -- when
    ``extract_model`` (a function returning the chat model) is given and imported messages wait
    for it -- the background model extraction (:mod:`assistant.memory.capture.importing.model_extraction`), which
    stops between messages when the run is cancelled (input during an idle run). ``nightly_hour=None``
    disables the nightly trigger; by default both it and ``idle_seconds`` come from ``settings``
    (the profile's :class:`~assistant.config.Settings`, required unless both are given)."""

    def __init__(
        self,
        store: Any = None,
        *,
        run: RunFn | None = None,
        chat_model: Any = None,
        use_llm: bool = False,
        settings: Any = None,
        idle_seconds: float | None = None,
        check_interval: float = 15.0,
        nightly_hour: int | None | str = "settings",
        timezone: Any = None,
        clock: Callable[[], float] = time.monotonic,
        subscribe_compaction: bool = True,
        extract_model: Callable[[], Any] | None = None,
    ) -> None:
        if run is None and store is None:
            raise ValueError("ConsolidationJobs needs a store (or a run function)")
        if settings is None and (idle_seconds is None or nightly_hour == "settings"):
            raise ValueError("ConsolidationJobs needs settings (or both idle_seconds and nightly_hour)")
        self.store = store
        self._run_fn = run or _default_run(store, chat_model, use_llm, extract_model, settings or Settings())
        self.idle_seconds = float(idle_seconds if idle_seconds is not None else settings.idle_minutes * 60)
        self.check_interval = float(check_interval)
        self.nightly_hour: int | None = settings.nightly_hour if nightly_hour == "settings" else nightly_hour  # type: ignore[assignment]
        self._tz = timezone
        self._clock = clock
        self._subscribe_compaction = subscribe_compaction
        self._lock = threading.Lock()
        self._last_activity = clock()
        self._idle_armed = True
        self._running: str | None = None
        self._scheduled: str | None = None
        self._pending: str | None = None
        self._cancel = threading.Event()
        self._last: dict[str, Any] | None = None
        self._runs = 0
        self._unsubscribe: Callable[[], None] | None = None
        self._scheduler: Any = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> "ConsolidationJobs":
        from apscheduler.executors.pool import ThreadPoolExecutor  # deferred: APScheduler
        from apscheduler.schedulers.background import BackgroundScheduler
        from apscheduler.triggers.cron import CronTrigger
        from apscheduler.triggers.interval import IntervalTrigger

        if self._scheduler is not None:
            return self
        sched = BackgroundScheduler(
            executors={"default": ThreadPoolExecutor(max_workers=2)},
            job_defaults={"max_instances": 1, "coalesce": True},
            timezone=self._tz,
        )  # fmt: skip
        sched.add_job(self._idle_tick, IntervalTrigger(seconds=self.check_interval, timezone=self._tz), id=IDLE_JOB,
                      max_instances=1, coalesce=True, misfire_grace_time=None)  # fmt: skip
        # The run itself: one persistent job that only runs when a trigger sets its next run time
        # (it is never removed and re-added, so a trigger can never race its removal).
        sched.add_job(self._job, IntervalTrigger(days=3650, timezone=self._tz), id=RUN_JOB, next_run_time=None,
                      max_instances=1, coalesce=True, misfire_grace_time=None)  # fmt: skip
        if self.nightly_hour is not None:
            sched.add_job(self._fire, CronTrigger(hour=self.nightly_hour, minute=0, timezone=self._tz), args=["nightly"],
                          id=NIGHTLY_JOB, max_instances=1, coalesce=True, misfire_grace_time=6 * 3600)  # fmt: skip
        if self.store is not None:  # runs a killed process left half-applied are rolled back now
            sched.add_job(self._recover, id=RECOVER_JOB, misfire_grace_time=None)
        sched.start()
        self._scheduler = sched
        if self._subscribe_compaction:
            self._unsubscribe = events.subscribe("compaction", self._on_compaction)
        return self

    def shutdown(self, wait: bool = True) -> None:
        """Stop triggering; ``wait``: let a run in progress finish (it is asked to stop early)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        sched, self._scheduler = self._scheduler, None
        if sched is not None:
            self._cancel.set()
            sched.shutdown(wait=wait)

    def __enter__(self) -> "ConsolidationJobs":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # ------------------------------------------------------------------ triggers

    def note_activity(self) -> None:
        """The person typed or sent something: reset (and re-arm) the idle trigger. Cheap and
        thread-safe: call it on every input event. An idle-triggered run in progress is asked
        to stop early."""
        with self._lock:
            self._last_activity = self._clock()
            self._idle_armed = True
            if self._running == "idle":
                self._cancel.set()

    def run_now(self) -> str:
        """Start a run as soon as possible. Returns ``"scheduled"`` or ``"queued"`` (a run is in
        progress; this one starts right after it)."""
        return self._fire("manual")

    def _on_compaction(self, _event: Any) -> None:
        self._fire("compaction")

    def _idle_tick(self) -> None:
        with self._lock:
            due = self._idle_armed and self._running is None and self._clock() - self._last_activity >= self.idle_seconds
            if due:
                self._idle_armed = False
        if due:
            self._fire("idle")

    def _fire(self, trigger: str) -> str:
        with self._lock:
            sched = self._scheduler
            if sched is None:
                raise RuntimeError("the job scheduler is not started")
            if self._running is not None:
                if self._pending is None or trigger == "manual":
                    self._pending = trigger
                return "queued"
            if self._scheduled is not None:
                return "coalesced"  # a run is about to start: it will see everything this one would
            self._scheduled = trigger
        sched.modify_job(RUN_JOB, next_run_time=datetime.now(timezone.utc))
        return "scheduled"

    # ------------------------------------------------------------------ the run

    def _job(self) -> None:
        with self._lock:
            trigger, self._scheduled = self._scheduled, None
            if trigger is None:
                return
            if self._running is not None:  # belt and braces: max_instances=1 already prevents it
                self._pending = self._pending or trigger
                return
            self._running = trigger
            self._cancel = threading.Event()
            cancel = self._cancel
        started = time.perf_counter()
        try:
            report = self._run_fn(trigger, cancel)
            summary = dict(report.summary()) if hasattr(report, "summary") else dict(report or {})
            summary.update(ok=True, trigger=trigger)
        except Exception as exc:  # noqa: BLE001 - a failed run is reported, never raised into the scheduler
            log.exception("consolidation run (%s) failed", trigger)
            summary = {"ok": False, "trigger": trigger, "error": f"{type(exc).__name__}: {exc}"}
        summary["job_seconds"] = round(time.perf_counter() - started, 3)
        with self._lock:
            self._running = None
            self._last = summary
            self._runs += 1
            pending, self._pending = self._pending, None
        events.publish(TOPIC, summary)
        if pending is not None and self._scheduler is not None:
            with contextlib.suppress(RuntimeError, LookupError):  # shut down meanwhile
                self._fire(pending)

    def _recover(self) -> None:
        """Roll back runs whose process is gone (:mod:`assistant.memory.store.tidying.recover`)."""
        from assistant.memory.store.tidying.recover import recover_stale  # deferred: the store (SQLCipher, numpy)

        try:
            done = recover_stale(self.store)
        except Exception:  # noqa: BLE001 - the next run tries again
            log.exception("rolling back interrupted consolidation runs failed")
            return
        if done:
            events.publish(TOPIC, {"ok": True, "trigger": "recover", "rolled_back": [r.to_json() for r in done]})

    # ------------------------------------------------------------------ status

    def status(self) -> JobsStatus:
        sched = self._scheduler
        nightly = None
        if sched is not None and self.nightly_hour is not None:
            job = sched.get_job(NIGHTLY_JOB)
            nightly = job.next_run_time if job is not None else None
        elif self.nightly_hour is not None:
            nightly = next_nightly(self.nightly_hour, tz=self._tz)
        with self._lock:
            idle_in = None
            if self._idle_armed:
                idle_in = max(0.0, self.idle_seconds - (self._clock() - self._last_activity))
            last = dict(self._last) if self._last is not None else None
            running, pending, runs = self._running, self._pending, self._runs
        if last is None and self.store is not None:
            last = _last_from_store(self.store)
        return JobsStatus(
            scheduler_running=sched is not None, running=running is not None, running_trigger=running,
            pending_trigger=pending, last_run=last, next_nightly=nightly, next_idle_in=idle_in,
            idle_seconds=self.idle_seconds, check_interval=self.check_interval, nightly_hour=self.nightly_hour, runs=runs,
            model_extraction_left=_extraction_left(self.store) if self.store is not None else None,
        )  # fmt: skip

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no run is in progress or pending (tests, shutdown). True if idle."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                busy = self._running is not None or self._pending is not None or self._scheduled is not None
            if not busy:
                return True
            time.sleep(0.02)
        return False


def _last_from_store(store: Any) -> dict[str, Any] | None:
    try:
        rec = last_run(store)
    except Exception:  # noqa: BLE001 - an old database without the table
        return None
    return rec.to_json() if rec is not None else None


def _extraction_left(store: Any) -> int | None:
    try:
        from assistant.memory.capture.importing import model_extraction  # deferred: the store (SQLCipher, numpy)

        return model_extraction.status(store).left
    except Exception:  # noqa: BLE001 - status must not fail for it
        log.warning("could not read the model extraction queue", exc_info=True)
        return None


def status_from_store(store: Any, settings: Any, *, now: datetime | None = None) -> JobsStatus:
    """What ``keepsake jobs status`` shows from another process: the last recorded run, whether a
    run is in progress (a ``running`` row whose process is alive, :mod:`~assistant.memory.
    consolidation.owner`), how many were interrupted, and the configured triggers."""

    rows = list_runs(store, limit=10)
    now = now or store.now()
    states = [(r, r.state(now)) for r in rows]
    running = next((r for r, state in states if state == "running"), None)
    interrupted = sum(1 for _r, state in states if state == "interrupted")
    last = next((r for r in rows if r.status != "running"), None)
    return JobsStatus(
        scheduler_running=False, running=running is not None, running_trigger=running.trigger if running else None,
        pending_trigger=None, last_run=last.to_json() if last else None,
        next_nightly=next_nightly(settings.nightly_hour), next_idle_in=None,
        idle_seconds=float(settings.idle_minutes * 60), check_interval=15.0, nightly_hour=settings.nightly_hour,
        interrupted=interrupted,
        model_extraction_left=_extraction_left(store),
    )  # fmt: skip
