"""Work off the UI thread: a :class:`Runner` runs plain Python callables on its own
``QThreadPool`` and hands results back to the UI thread **only through signals**.

    runner.submit(store.list, limit=200, on_done=model.add_rows, on_error=show_error)

Callbacks run on the thread that owns the runner (the UI thread): the worker emits a queued
signal of the runner, and the runner's slot calls the callback. A callable that wants to report
progress declares a ``progress`` keyword argument and is given a function to call with any value;
each call arrives as ``on_progress(value)`` on the UI thread (used to stream reply pieces).

The pool's threads never expire, so a store opened once keeps one SQLite connection per worker
thread (the store makes per-thread connections itself).
"""

from __future__ import annotations

import itertools
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, QThread, QThreadPool, Signal, Slot

from ui.services.errors import is_user_error

log = logging.getLogger(__name__)

Callback = Callable[[Any], None]


@dataclass
class _Pending:
    on_done: Callback | None
    on_error: Callback | None
    on_progress: Callback | None
    name: str
    started: float


class Runner(QObject):
    """Runs callables on worker threads; results, errors and progress come back as signals."""

    _finished = Signal(int, bool, object)
    _progressed = Signal(int, object)
    #: an error no caller handled (the main window shows it in the status bar)
    unhandledError = Signal(object)
    #: number of tasks in flight changed (for a busy indicator)
    busyChanged = Signal(int)

    def __init__(self, parent: QObject | None = None, max_threads: int = 4) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self.pool.setExpiryTimeout(-1)  # keep threads (and their store connections) alive
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._lock = threading.Lock()
        self._closing = False
        self._finished.connect(self._on_finished, Qt.ConnectionType.QueuedConnection)
        self._progressed.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)

    # ------------------------------------------------------------------ API
    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callback | None = None,
        on_error: Callback | None = None,
        on_progress: Callback | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> int:
        """Run ``fn(*args, **kwargs)`` on a worker thread. Returns a task id."""
        if self._closing:
            return 0
        tid = next(self._ids)
        with self._lock:
            self._pending[tid] = _Pending(on_done, on_error, on_progress, name or getattr(fn, "__name__", "task"), time.perf_counter())
            count = len(self._pending)
        if on_progress is not None:
            kwargs["progress"] = lambda value, tid=tid: self._emit_progress(tid, value)
        self.pool.start(lambda: self._run(tid, fn, args, kwargs))
        self.busyChanged.emit(count)
        return tid

    @property
    def busy(self) -> int:
        with self._lock:
            return len(self._pending)

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        """Stop accepting work and wait for running tasks (True when all finished)."""
        self._closing = True
        return self.pool.waitForDone(timeout_ms)

    # ------------------------------------------------------------------ worker side
    def _run(self, tid: int, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
        if not getattr(_thread_state, "lowered", False):
            lower_thread_priority()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the UI as a value
            ok, payload = False, exc
        else:
            ok, payload = True, result
        try:
            self._finished.emit(tid, ok, payload)
        except RuntimeError:  # the runner was deleted while this task ran (app closing)
            log.debug("task %d finished after shutdown", tid)

    def _emit_progress(self, tid: int, value: object) -> None:
        try:
            self._progressed.emit(tid, value)
        except RuntimeError:  # runner deleted (app closing)
            pass

    # ------------------------------------------------------------------ UI side
    @Slot(int, bool, object)
    def _on_finished(self, tid: int, ok: bool, payload: object) -> None:
        with self._lock:
            pending = self._pending.pop(tid, None)
            count = len(self._pending)
        self.busyChanged.emit(count)
        if pending is None:
            return
        if ok:
            if pending.on_done is not None:
                self._call(pending.on_done, payload, pending.name)
            return
        if not isinstance(payload, Exception):  # KeyboardInterrupt/SystemExit in a worker
            log.warning("task %s interrupted: %r", pending.name, payload)
            return
        if not _is_expected(payload):
            log.error("task %s failed", pending.name, exc_info=(type(payload), payload, payload.__traceback__))
        if pending.on_error is not None:
            self._call(pending.on_error, payload, pending.name)
        else:
            self.unhandledError.emit(payload)

    @Slot(int, object)
    def _on_progress(self, tid: int, value: object) -> None:
        with self._lock:
            pending = self._pending.get(tid)
        if pending is not None and pending.on_progress is not None:
            self._call(pending.on_progress, value, pending.name)

    def _call(self, cb: Callback, value: object, name: str) -> None:
        try:
            cb(value)
        except Exception as exc:  # noqa: BLE001 - a broken callback must not kill the event loop
            log.exception("callback of task %s failed", name)
            self.unhandledError.emit(exc)


_thread_state = threading.local()

#: Worker threads yield the CPU to the UI thread: on a 2-core machine a query, the model and the
#: UI thread compete, and at equal priority the event loop waited up to ~100 ms for a core
#: (measured by ``keepsake bench ui``). Threads started from a worker (llama.cpp's, the capture
#: queue's, the job scheduler's) inherit it on Linux.
WORKER_NICE = 8


def lower_thread_priority() -> None:
    """Lower the calling worker thread's scheduling priority (best effort, once per thread)."""
    _thread_state.lowered = True
    if sys.platform.startswith("linux"):
        try:  # Linux: nice is per thread
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICE)
        except (OSError, AttributeError):
            pass
        return
    # Windows, macOS. Not on Linux: QThread.currentThread() adopts a Python thread into Qt, and two
    # workers adopting at the same moment crashed PySide6 once (a segfault under heavy load).
    try:
        QThread.currentThread().setPriority(QThread.Priority.LowPriority)
    except Exception:  # noqa: BLE001
        pass


def _is_expected(exc: BaseException) -> bool:
    """Errors meant for the person (no traceback in the log)."""

    return is_user_error(exc)
