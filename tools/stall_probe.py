"""A UI-thread stall probe for ``tools/ui_bench.py``: a precise 5 ms ``QTimer`` on the UI thread
records the gaps between its ticks (a gap longer than the interval: the event loop was blocked or
starved that long), and a watchdog thread records what the UI thread was running when a gap passes
``WATCH_MS`` (its Python stack), so a stall names its cause -- and what the other threads were
running then (:meth:`StallProbe.top_others`): the UI thread often waits for the GIL, which a worker
thread holds while it runs Python (a worker that is not parked in a wait is the suspect)."""

from __future__ import annotations

import faulthandler
import os
import statistics
import sys
import threading
import time
import traceback
from collections import Counter
from typing import Any, Callable

PROBE_MS = 5
#: ``KEEPSAKE_STALL_DUMP=FILE``: faulthandler's C watchdog (it needs no GIL) writes every thread's
#: Python stack to FILE whenever the UI thread has not ticked for DUMP_MS -- taken *during* the
#: stall, while the GIL holder still holds it (the Python watchdog below only runs once it is free).
#: A diagnostic only: faulthandler reads other threads' frames unlocked, and once crashed the probe.
DUMP_MS = 45
WATCH_MS = 40  # a gap this long gets the UI thread's stack recorded
#: Innermost functions of a thread that waits (holds no GIL): left out of the other threads' list.
PARKED = {"wait", "_wait_for_tstate_lock", "select", "poll", "get", "sleep", "_worker", "accept", "recv", "read"}


def _stack(frame, depth: int) -> str:
    stack = traceback.extract_stack(frame)[-depth:]
    return " < ".join(f"{'/'.join(f.filename.rsplit('/', 2)[-2:])}:{f.lineno} {f.name}" for f in reversed(stack))


class StallProbe:
    """Records the gaps between ticks of a precise 5 ms timer on the UI thread."""

    def __init__(self, interval_ms: int = PROBE_MS) -> None:
        from PySide6.QtCore import Qt, QTimer  # deferred: Qt

        self.interval = interval_ms / 1000
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[float] = []
        self._last: float | None = None
        self.marks: list[tuple[str, int]] = []
        self.sites: list[str] = []
        self.others: list[str] = []  # "thread: innermost frames" of threads running Python during a stall
        dump = os.environ.get("KEEPSAKE_STALL_DUMP")
        self._dump = open(dump, "a") if dump else None  # noqa: SIM115 - open while the probe runs

    def _tick(self) -> None:
        now = time.perf_counter()
        self._stalled = False
        if self._last is not None:
            self.gaps.append(now - self._last)
            if self._dump is not None and now - self._last > DUMP_MS / 1000:
                self._dump.write(f"GAP {self._last:.4f} {now:.4f}\n")
        self._last = now
        if self._dump is not None:
            faulthandler.dump_traceback_later(DUMP_MS / 1000, file=self._dump)

    def start(self) -> None:
        self._last = None
        self._ui = threading.get_ident()
        self._stalled = False
        self._stop = threading.Event()
        self._watch = threading.Thread(target=self._watchdog, name="stall-watchdog", daemon=True)
        self._watch.start()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self._dump is not None:
            faulthandler.cancel_dump_traceback_later()
            self._dump.write("".join(f"THREAD 0x{t.ident:016x} {t.native_id} {t.name}\n" for t in threading.enumerate()))
            self._dump.flush()
        self._stop.set()

    def _watchdog(self) -> None:
        """Every 10 ms: when the UI thread has not ticked for WATCH_MS, record its stack (once per gap)."""
        while not self._stop.wait(0.010):
            last = self._last
            if last is None or self._stalled or time.perf_counter() - last < WATCH_MS / 1000:
                continue
            self._stalled = True
            frame = sys._current_frames().get(self._ui)
            frames = sys._current_frames()
            frame = frames.get(self._ui)
            if frame is not None:
                self.sites.append(_stack(frame, 6))
            names = {t.ident: t.name for t in threading.enumerate()}
            for ident, other in frames.items():
                if ident in (self._ui, threading.get_ident()) or other.f_code.co_name in PARKED:
                    continue
                self.others.append(f"{names.get(ident, ident)}: {_stack(other, 3)}")

    def top_others(self, n: int = 8) -> list[dict[str, Any]]:
        """The other threads' innermost frames seen most often during stalls, parked ones left out."""
        return [{"stalls": k, "thread": site} for site, k in Counter(self.others).most_common(n)]

    def top_sites(self, n: int = 8) -> list[dict[str, Any]]:
        """The UI thread's stacks seen most often during gaps over WATCH_MS (innermost first)."""
        return [{"stalls": k, "stack": site} for site, k in Counter(self.sites).most_common(n)]

    def mark(self, label: str) -> None:
        self.marks.append((label, len(self.gaps)))
        if self._dump is not None:
            self._dump.write(f"MARK {label} {time.perf_counter():.3f}\n")
            self._dump.flush()

    def stats(self, gaps: list[float] | None = None) -> dict[str, Any]:
        g = sorted(self.gaps if gaps is None else gaps)
        if not g:
            return {"ticks": 0, "max_gap_ms": 0.0, "max_stall_ms": 0.0, "p99_gap_ms": 0.0, "stalls_over_50ms": 0}
        p99 = g[min(len(g) - 1, int(len(g) * 0.99))]
        return {
            "ticks": len(g),
            "max_gap_ms": round(g[-1] * 1000, 1),
            "max_stall_ms": round(max(0.0, g[-1] - self.interval) * 1000, 1),
            "p99_gap_ms": round(p99 * 1000, 1),
            "median_gap_ms": round(statistics.median(g) * 1000, 2),
            "stalls_over_50ms": sum(1 for x in g if x - self.interval > 0.050),
        }

    def phase(self, start_label: str, end_label: str | None = None) -> dict[str, Any]:
        idx = {label: i for label, i in self.marks}
        a = idx[start_label]
        b = idx[end_label] if end_label else len(self.gaps)
        return self.stats(self.gaps[a:b])


def baseline(probe: StallProbe, seconds: float = 2.0) -> dict[str, Any]:
    """Probe gaps while the app does nothing: what the machine's load alone costs."""
    probe.mark("baseline")
    end = time.perf_counter() + seconds
    run_until(lambda: time.perf_counter() >= end, seconds + 5)
    probe.mark("baseline_end")
    return probe.phase("baseline", "baseline_end")


def run_until(cond: Callable[[], Any], timeout: float, what: str = "condition") -> float:
    """Run the real event loop (no sleeping on the UI thread) until ``cond()``; returns seconds."""
    from PySide6.QtCore import QEventLoop, QTimer  # deferred: Qt

    start = time.perf_counter()
    if cond():
        return 0.0
    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(2)
    state = {"timeout": False}

    def check() -> None:
        if cond():
            loop.quit()
        elif time.perf_counter() - start > timeout:
            state["timeout"] = True
            loop.quit()

    poll.timeout.connect(check)
    poll.start()
    loop.exec()
    poll.stop()
    if state["timeout"]:
        raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
    return time.perf_counter() - start


