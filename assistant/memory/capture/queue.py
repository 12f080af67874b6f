"""The capture queue: captures run on a background thread, never on the caller's.

    queue = CaptureQueue(lambda: open_store(), chat_model)   # the store is opened in the worker
    queue.submit(message.id)        # returns at once (a list append and a small journal line)
    queue.flush(timeout=30)         # True when everything submitted has been processed
    queue.stop()

The worker thread opens its own store through ``store_factory`` (one connection per thread) and
calls :meth:`Capturer.capture_message` for each id, in order. After each capture it publishes
``"capture"`` on :mod:`assistant.events` with the :class:`CaptureResult`; after a failure,
``"capture_failed"`` with a :class:`CaptureFailure`.

Nothing is lost, nothing is raised to the caller. Every submit, success and failure is appended
to a journal, ``journal`` (the app's is ``<data>/capture-journal.jsonl``; one JSON object a line:
``{"op": "submit"|"done"|"fail"|"drop", "id": message_id, ...}``; ids, attempt counts and error
summaries only -- never message text). A failed capture is retried with exponential backoff
(``retry_base`` * 2^(attempt-1) seconds, at most ``retry_max``); from the third attempt on it is
retried without the LLM. On start the journal is replayed: whatever was submitted and not done
(failed, or still queued when the process stopped) is captured again (captures are idempotent),
and the journal is rewritten with only those entries. A message that no longer exists (deleted)
is dropped. :meth:`CaptureQueue.failures` lists what is waiting for a retry (for ``doctor``/UI).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from assistant import events
from assistant.memory.capture.capturer import Capturer, SettingsSource
from assistant.memory.errors import NotFound
from assistant.memory.records import Trust

log = logging.getLogger(__name__)

JOURNAL_NAME = "capture-journal.jsonl"
NO_LLM_AFTER = 2  # failed attempts after which the LLM is left out
_COMPACT_BYTES = 256 * 1024


@dataclass(frozen=True)
class CaptureFailure:
    message_id: int
    attempts: int
    error: str
    retry_at: datetime | None

    def to_json(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "attempts": self.attempts, "error": self.error,
                "retry_at": self.retry_at.isoformat() if self.retry_at else None}  # fmt: skip


@dataclass
class _Job:
    message_id: int
    trust: str | None = None
    attempts: int = 0
    error: str = ""
    due: float = 0.0  # time.monotonic() when it may run


def _error_summary(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:200]}"


class CaptureQueue:
    """Background capture worker (see the module docstring).

    ``store_factory()`` is called on the worker thread and must return a store for it to use.
    ``capturer_factory(store) -> Capturer`` overrides how the capturer is made (default
    ``Capturer(store, chat_model, use_llm=use_llm)``)."""

    def __init__(self, store_factory: Callable[[], Any], chat_model: Any = None, *, journal: str | Path,
                 settings: SettingsSource, use_llm: bool = True, retry_base: float = 2.0, retry_max: float = 600.0,
                 capturer_factory: Callable[[Any], Capturer] | None = None, start: bool = True) -> None:  # fmt: skip
        self.journal = Path(journal)
        self.retry_base = retry_base
        self.retry_max = retry_max
        self._store_factory = store_factory
        self._capturer_factory = capturer_factory or (lambda store: Capturer(store, chat_model, use_llm=use_llm, settings=settings))
        self._cond = threading.Condition()
        self._ready: list[_Job] = []  # submitted, in order
        self._waiting: dict[int, _Job] = {}  # failed, waiting for a retry
        self._busy = 0  # jobs taken by the worker and not yet finished
        self._stopping = False
        self._file_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._recover()
        if start:
            self.start()

    # ------------------------------------------------------------------ caller side

    def submit(self, message_id: int, *, trust: Trust | str | None = None) -> None:
        """Queue a message for capture. Never blocks on the store or the model, never raises
        for a journal problem (it is logged; the capture still runs)."""
        job = _Job(int(message_id), Trust(trust).value if trust is not None else None)
        with self._cond:  # journal line and queue entry together (compaction holds this lock)
            self._append({"op": "submit", "id": job.message_id, "trust": job.trust})
            self._ready.append(job)
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every submitted message has been captured or its failure recorded (a
        recorded failure is retried later). False when ``timeout`` passed first."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._ready or self._busy:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is not None else 1.0)
            return True

    def idle(self, timeout: float | None = None) -> bool:
        """Like :meth:`flush`, and also wait for the retries of failed captures to succeed."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._ready or self._busy or self._waiting:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(min(left, 0.2) if left is not None else 0.2)
            return True

    def failures(self) -> list[CaptureFailure]:
        """Captures that failed and wait for a retry (also after a restart: from the journal)."""
        now_m, now = time.monotonic(), datetime.now(timezone.utc)
        with self._cond:
            jobs = list(self._waiting.values())
        return [
            CaptureFailure(j.message_id, j.attempts, j.error,
                           datetime.fromtimestamp(now.timestamp() + max(0.0, j.due - now_m), timezone.utc))  # fmt: skip
            for j in sorted(jobs, key=lambda j: j.message_id)
        ]

    @property
    def pending(self) -> int:
        with self._cond:
            return len(self._ready) + self._busy + len(self._waiting)

    def start(self) -> None:
        with self._cond:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="keepsake-capture", daemon=True)
            self._thread.start()

    def stop(self, timeout: float | None = 30.0) -> None:
        """Finish the capture in progress and stop. Queued captures stay in the journal and run
        on the next start."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    # ------------------------------------------------------------------ worker

    def _next(self) -> _Job | None:
        with self._cond:
            while not self._stopping:
                if self._ready:
                    job = self._ready.pop(0)
                    self._busy += 1
                    return job
                now = time.monotonic()
                due = [j for j in self._waiting.values() if j.due <= now]
                if due:
                    job = min(due, key=lambda j: j.due)
                    del self._waiting[job.message_id]
                    self._busy += 1
                    return job
                soonest = min((j.due for j in self._waiting.values()), default=None)
                self._cond.wait(min(1.0, max(0.01, soonest - now)) if soonest is not None else 1.0)
            return None

    def _run(self) -> None:
        store = capturer = None
        try:
            while True:
                job = self._next()
                if job is None:
                    return
                try:
                    if capturer is None:
                        store = self._store_factory()
                        capturer = self._capturer_factory(store)
                    result = capturer.capture_message(
                        job.message_id, trust=Trust(job.trust) if job.trust else None,
                        use_llm=False if job.attempts >= NO_LLM_AFTER else None,
                    )  # fmt: skip
                except NotFound:
                    self._finish(job, "drop", reason="message not found (deleted)")
                except Exception as exc:  # noqa: BLE001 - never lost, never raised: persisted and retried
                    self._failed(job, exc)
                else:
                    self._finish(job, "done")
                    events.publish("capture", result)
        finally:
            if store is not None and hasattr(store, "close"):
                try:
                    store.close()
                except Exception:  # noqa: BLE001
                    log.warning("capture: closing the worker's store failed", exc_info=True)

    def _finish(self, job: _Job, op: str, **extra: Any) -> None:
        self._append({"op": op, "id": job.message_id, **extra})
        with self._cond:
            self._busy -= 1
            quiet = not (self._ready or self._busy or self._waiting)
            self._cond.notify_all()
        if quiet:
            self._compact_if_large()

    def _failed(self, job: _Job, exc: BaseException) -> None:
        job.attempts += 1
        job.error = _error_summary(exc)
        delay = min(self.retry_max, self.retry_base * 2 ** (job.attempts - 1))
        job.due = time.monotonic() + delay
        log.warning("capture: message %s failed (attempt %d, retry in %.0fs): %s", job.message_id, job.attempts, delay, job.error)
        self._append({"op": "fail", "id": job.message_id, "attempts": job.attempts, "error": job.error})
        with self._cond:
            self._waiting[job.message_id] = job
            self._busy -= 1
            self._cond.notify_all()
        events.publish("capture_failed", CaptureFailure(job.message_id, job.attempts, job.error,
                                                         datetime.now(timezone.utc)))  # fmt: skip

    # ------------------------------------------------------------------ journal

    def _append(self, entry: dict[str, Any]) -> None:
        entry = {**entry, "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        try:
            with self._file_lock:
                self.journal.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")
        except OSError:
            log.error("capture: cannot write the capture journal %s", self.journal, exc_info=True)

    def _recover(self) -> None:
        """Replay the journal: re-queue what was submitted and not done; rewrite it compactly."""
        try:
            lines = self.journal.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return
        except OSError:
            log.error("capture: cannot read the capture journal %s", self.journal, exc_info=True)
            return
        open_jobs: dict[int, _Job] = {}
        for line in lines:
            try:
                e = json.loads(line)
                mid = int(e["id"])
            except (ValueError, KeyError, TypeError):
                continue  # a torn last line after a crash
            if e.get("op") == "submit":
                open_jobs.setdefault(mid, _Job(mid, e.get("trust")))
            elif e.get("op") == "fail" and mid in open_jobs:
                open_jobs[mid].attempts = int(e.get("attempts") or open_jobs[mid].attempts + 1)
                open_jobs[mid].error = str(e.get("error") or "")
            elif e.get("op") in ("done", "drop"):
                open_jobs.pop(mid, None)
        self._ready = [j for j in open_jobs.values() if not j.attempts]
        self._waiting = {j.message_id: j for j in open_jobs.values() if j.attempts}  # due now: retry at start
        self._rewrite(list(open_jobs.values()))

    def _rewrite(self, jobs: list[_Job]) -> None:
        lines = []
        for j in jobs:
            lines.append(json.dumps({"op": "submit", "id": j.message_id, "trust": j.trust}))
            if j.attempts:
                lines.append(json.dumps({"op": "fail", "id": j.message_id, "attempts": j.attempts, "error": j.error}))
        tmp = self.journal.with_name(self.journal.name + ".tmp")
        try:
            with self._file_lock:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write("".join(line + "\n" for line in lines))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.journal)
        except OSError:
            log.error("capture: cannot rewrite the capture journal %s", self.journal, exc_info=True)

    def _compact_if_large(self) -> None:
        try:
            large = self.journal.stat().st_size > _COMPACT_BYTES
        except OSError:
            return
        if large:
            with self._cond:
                if self._ready or self._busy or self._waiting:
                    return
                self._rewrite([])
