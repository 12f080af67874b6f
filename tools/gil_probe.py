"""Why the UI thread stalls under load when workers run Python: a 5 ms Qt timer on the main thread
(like ``tools/stall_probe.py``) while ``--workers`` threads run pure Python and ``--hogs`` busy
processes take the cores, for each worker niceness and with or without a voluntary GIL release
(``time.sleep(0)`` every ~0.2 ms of work). A developer tool, not installed.

    QT_QPA_PLATFORM=offscreen python -m tools.gil_probe [--seconds 12] [--hogs 2] [--workers 2]

Measured on the 2-CPU dev box (load ~4, 2 hogs, 2 workers, 12 s each): nice 8 (the app's
WORKER_NICE) max gap 112 ms, nice 0 70 ms; with the voluntary release 15 ms / 14 ms. The worker
that holds the GIL while the OS has it descheduled keeps the UI thread waiting; a lower priority
makes that longer.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import threading
import time


def _hog(stop) -> None:
    while not stop.is_set():
        pass


def _worker(nice: int, stop: threading.Event, release: bool) -> None:
    if nice:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    x = 0
    while not stop.is_set():
        for i in range(2000):
            x += i * i % 7
        if release:
            time.sleep(0)


def run(nice: int, release: bool, seconds: float, hogs: int, workers: int) -> dict[str, float]:
    from PySide6.QtCore import QCoreApplication, Qt, QTimer  # deferred: Qt

    app = QCoreApplication.instance() or QCoreApplication(sys.argv)
    stop, pstop = threading.Event(), multiprocessing.Event()
    procs = [multiprocessing.Process(target=_hog, args=(pstop,)) for _ in range(hogs)]
    for p in procs:
        p.start()
    for _ in range(workers):
        threading.Thread(target=_worker, args=(nice, stop, release), daemon=True).start()
    gaps: list[float] = []
    last: list[float] = []

    def tick() -> None:
        now = time.perf_counter()
        if last:
            gaps.append((now - last[0]) * 1000)
            last[0] = now
        else:
            last.append(now)

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    QTimer.singleShot(int(seconds * 1000), app.quit)
    app.exec()
    timer.stop()
    stop.set()
    pstop.set()
    for p in procs:
        p.join()
    gaps.sort()
    return {"nice": nice, "release": release, "max_gap_ms": round(gaps[-1], 1),
            "p99_gap_ms": round(gaps[int(len(gaps) * 0.99)], 1), "gaps_over_50ms": sum(g > 50 for g in gaps)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=12.0)
    ap.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    for nice, release in ((8, False), (0, False), (8, True), (0, True)):
        print(run(nice, release, args.seconds, args.hogs, args.workers), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
