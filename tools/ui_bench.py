"""The Qt side of ``keepsake bench ui`` (run in a child process by ``assistant/bench/ui.py``, which
cannot import Qt). A developer tool: it lives in the checkout's ``tools/``, outside the installed
package. Each part prints one JSON line on stdout.

    python -m tools.ui_bench visible              # first paint of the main window
    python -m tools.ui_bench stall                # UI-thread stalls: reply streaming + capture + consolidation
    python -m tools.ui_bench inspector --n 100000 # inspector filter/sort/scroll over n memories
    python -m tools.ui_bench ready                # window shown, then both models loaded (bench startup)

:func:`main` is this child process's edge: it loads the profile (``KEEPSAKE_HOME``) and owns the
services the parts use. Qt and the app's modules are imported inside the parts, after the clock
of the part that times start-up has started.

Stalls are measured with a 5 ms ``QTimer`` probe on the UI thread: a gap between two ticks longer
than the interval means the event loop was blocked (or starved) for that long.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from assistant.memory.records import NewMemory
from assistant.services import Services
from tools.stall_probe import StallProbe, baseline as _baseline, run_until
from ui.tidyup.consolidation_service import available

T_START = time.monotonic_ns()  # as early as possible: the parent compares it with its spawn time


def _emit(result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------- parts
def part_visible(_args) -> dict[str, Any]:
    """Process start -> first paint of the main window (the model loads afterwards)."""
    t_app = time.perf_counter()
    from PySide6.QtCore import QEvent, QObject, QTimer  # deferred: Qt

    from ui.app import create_app  # deferred: Qt

    app = create_app([sys.argv[0]])
    t_app_created = time.perf_counter()
    from ui.main_window import MainWindow  # deferred: Qt

    seen: dict[str, float] = {}

    class FirstPaint(QObject):
        def eventFilter(self, obj, event):  # noqa: N802
            if "paint" not in seen and event.type() == QEvent.Type.Paint:
                seen["paint"] = time.perf_counter()
                seen["paint_ns"] = time.monotonic_ns()
                QTimer.singleShot(0, app.quit)
            return False

    from ui.services.backend import Backend, Provider  # deferred: Qt

    window = MainWindow(Backend(Provider(_args.services)))
    filt = FirstPaint()
    window.installEventFilter(filt)
    window.centralWidget().installEventFilter(filt)
    window.show()
    QTimer.singleShot(10_000, app.quit)
    app.exec()
    t_end = time.perf_counter()
    window.close()
    if "paint" not in seen:
        raise RuntimeError("the window was never painted")
    return {
        "process_start_ns": T_START,
        "first_paint_ns": seen["paint_ns"],
        "app_to_paint_ms": round((seen["paint"] - t_app) * 1000, 1),
        "qapplication_to_paint_ms": round((seen["paint"] - t_app_created) * 1000, 1),
        "in_process_total_ms": round((t_end - t_app) * 1000, 1),
    }


def part_ready(args) -> dict[str, Any]:
    """The app as ``ui.app.main`` starts it, until the embedder-backed memory and the chat model
    are both ready (the first reply can stream); marks on the system's monotonic clock."""
    from ui.app import create_app, setup_logging  # deferred: Qt
    from ui.services.backend import Backend, Provider
    from ui.main_window import MainWindow

    app = create_app([sys.argv[0]])
    setup_logging(args.services.profile.paths.logs)
    backend = Backend(Provider(args.services))
    window = MainWindow(backend)
    window.show()
    window_ns = time.monotonic_ns()
    failed: list[str] = []
    backend.modelFailed.connect(failed.append)
    run_until(lambda: failed or (backend.memory_ready and backend.model_ready), args.timeout, "both models")
    if failed:
        raise RuntimeError(f"the chat model did not load: {failed[0]}")
    marks = dict(backend.marks)
    result = {"process_start_ns": T_START, "window_ns": window_ns, "ready_ns": max(marks["memory"], marks["model"]),
              "memory_ns": marks["memory"], "model_ns": marks["model"], "search_available": backend.search_available}
    app.processEvents()
    return result


def part_stall(args) -> dict[str, Any]:
    """Two turns, each streaming a reply while its capture runs and a consolidation runs, with
    the consolidation panel and then the inspector on screen. The first turn after start-up also
    pays one-time costs in background threads (the capture worker opens its store, first
    consolidation); both are reported, ``max_stall_ms`` is the worst of the two."""
    from ui.app import create_app  # deferred: Qt
    from ui.services.backend import Backend, Provider
    from ui.main_window import MainWindow

    create_app([sys.argv[0]])
    _seed_for_consolidation(args.services, args.seed)
    t0 = time.perf_counter()
    window = MainWindow(Backend(Provider(args.services)))
    window.resize(1280, 800)
    window.show()
    probe = StallProbe()
    probe.start()
    probe.mark("startup")
    run_until(lambda: window.backend.model_ready and window.backend.memory_ready, 600, "the models")
    ready_s = time.perf_counter() - t0
    run_until(lambda: window.backend.jobs is not None or not _jobs_available(), 60, "the job scheduler")
    run_until(lambda: not window.backend.runner.busy, 120, "start-up work")
    baseline = _baseline(probe)
    window.controller.max_tokens = args.max_tokens
    prompts = ("I moved to Porto last week and started a new job at Hospital de São João. "
               "Can you suggest three things to do in Porto on a weekend?",
               "My sister Ana is visiting from Berlin in May. What should we eat in Porto?")  # fmt: skip
    turns = []
    for i, prompt in enumerate(prompts):
        turns.append(_stall_turn(window, probe, f"turn{i}", prompt))
    probe.mark("end")
    probe.stop()
    phases = {t["label"]: probe.phase(t["label"], t["end"]) for t in turns}
    worst = max(p["max_stall_ms"] for p in phases.values())
    result = {
        "max_stall_ms": worst,
        "turns": [{**t, "stalls": phases[t["label"]]} for t in turns],
        "during_startup": probe.phase("startup", "baseline"),
        "baseline_idle": baseline,
        "models_ready_s": round(ready_s, 2),
        "stall_sites": probe.top_sites(),  # what the UI thread ran during gaps over 40 ms
    }
    window.close()
    return result


def _stall_turn(window, probe: StallProbe, label: str, prompt: str) -> dict[str, Any]:
    done: list[Any] = []
    window.controller.replyFinished.connect(done.append)
    window.controller.replyFailed.connect(done.append)
    window.tabs.setCurrentIndex(0)
    probe.mark(label)
    t = time.perf_counter()
    window.composer.edit.setPlainText(prompt)
    window.composer._submit()
    consolidation = False
    if window.backend.jobs is not None:
        window.tabs.setCurrentWidget(window.consolidation)  # its refreshes run too
        window.consolidation.run_now()
        consolidation = True
    run_until(lambda: bool(done), 900, "the reply")
    reply_s = time.perf_counter() - t
    turn = done[0]
    window.tabs.setCurrentWidget(window.inspector)  # reloads as captured memories arrive
    cap = window.backend.capture
    run_until(lambda: cap is None or cap.flush(timeout=0), 900, "the capture")
    if consolidation:
        run_until(lambda: "Tidying" not in window.consolidation.message.text(), 900, "consolidation")
    run_until(lambda: not window.backend.runner.busy, 120, "the workers")
    end = f"{label}_end"
    probe.mark(end)
    window.controller.replyFinished.disconnect(done.append)
    window.controller.replyFailed.disconnect(done.append)
    stats = getattr(turn, "stats", None)
    return {
        "label": label, "end": end, "reply_s": round(reply_s, 2), "work_s": round(time.perf_counter() - t, 2),
        "reply_tokens": getattr(stats, "generated_tokens", None), "reply_ok": bool(getattr(turn, "reply", "")),
        "captured": bool(getattr(turn, "captured", False)), "consolidation": consolidation,
        "consolidation_message": window.consolidation.message.text() if consolidation else None,
    }  # fmt: skip


def _jobs_available() -> bool:
    return available()


def _seed_for_consolidation(services, n: int) -> None:
    """Some memories (duplicates, a contradiction, old unused ones) so a run has work to do."""
    if n <= 0:
        return

    store = services.open_store(with_embedder=False)
    old = datetime.now(timezone.utc) - timedelta(days=400)
    items = [NewMemory(f"User read book number {i} about topic {i % 50}.", created_at=old) for i in range(n)]
    items += [NewMemory("User lives in Lisbon.", kind="profile", slot="home_city", valid_at=datetime(2019, 1, 1, tzinfo=timezone.utc)),
              NewMemory("User lives in Braga.", kind="profile", slot="home_city", valid_at=datetime(2023, 1, 1, tzinfo=timezone.utc))]  # fmt: skip
    store.add_many(items, embed=False, batch=2000)
    store.close()


def part_inspector(args) -> dict[str, Any]:
    """Filter, sort and scroll the inspector over ``n`` memories."""
    from PySide6.QtWidgets import QAbstractItemView  # deferred: Qt

    from ui.app import create_app  # deferred: Qt
    from ui.services.backend import Backend, NoModelsProvider
    from ui.inspector.memory_model import COLUMN
    from ui.main_window import MainWindow

    app = create_app([sys.argv[0]])
    insert_s = _bulk_insert(args.services, args.n)

    window = MainWindow(Backend(NoModelsProvider(args.services)))
    window.resize(1280, 800)
    window.show()
    insp = window.inspector
    probe = StallProbe()
    probe.start()
    run_until(lambda: window.backend.memory_ready, 60, "the store")
    window.tabs.setCurrentWidget(insp)
    t = time.perf_counter()
    insp.apply_filters()
    run_until(lambda: insp.model.rowCount() > 0 and not insp.model.loading, 60, "the first page")
    first_page_ms = (time.perf_counter() - t) * 1000
    run_until(lambda: insp.count_label.text().endswith("memories"), 60, "the count")
    baseline = _baseline(probe)
    probe.mark("filters")

    def timed_filter(apply: Callable[[], None]) -> float:
        t = time.perf_counter()
        apply()
        run_until(lambda: not insp.model.loading, 60, "a filter")
        rows_ms = (time.perf_counter() - t) * 1000
        run_until(lambda: insp.count_label.text().endswith(("memory", "memories")), 60, "the count")
        counts_ms.append((time.perf_counter() - t) * 1000)
        return rows_ms

    filters: dict[str, float] = {}
    counts_ms: list[float] = []
    filters["kind=episode"] = timed_filter(lambda: insp.kind.setCurrentIndex(insp.kind.findData("episode")))
    filters["trust=imported"] = timed_filter(lambda: insp.trust.setCurrentIndex(insp.trust.findData("imported")))
    filters["status=any"] = timed_filter(lambda: (insp.trust.setCurrentIndex(0), insp.kind.setCurrentIndex(0),
                                                  insp.status.setCurrentIndex(insp.status.findData("any"))))  # fmt: skip
    filters["include history"] = timed_filter(lambda: insp.time.setCurrentIndex(2))
    filters["reset"] = timed_filter(lambda: (insp.time.setCurrentIndex(0), insp.status.setCurrentIndex(0)))

    def timed_search(text: str) -> float:
        t = time.perf_counter()
        insp.search.setText(text)
        insp.run_search()
        run_until(lambda: insp.model.search_mode and insp.count_label.text().endswith(("result", "results")), 60, "search")
        return (time.perf_counter() - t) * 1000

    filters["text 'topic 42'"] = timed_search("topic 42")
    filters["text 'no such words'"] = timed_search("no such words")
    insp.search.clear()
    filters["clear search"] = timed_filter(insp.run_search)
    probe.mark("scroll")
    view = insp.table
    pages: list[float] = []
    for _ in range(args.pages):
        before = insp.model.rowCount()
        t = time.perf_counter()
        view.scrollToBottom()
        run_until(lambda: insp.model.rowCount() > before or insp.model.exhausted, 30, "the next page")
        run_until(lambda: not insp.model.loading, 30, "the page")
        pages.append((time.perf_counter() - t) * 1000)
    loaded = insp.model.rowCount()
    probe.mark("sort")
    sorts: dict[str, float] = {}
    for key in ("text", "learned", "uses"):
        t = time.perf_counter()
        view.sortByColumn(COLUMN[key], view.horizontalHeader().sortIndicatorOrder())
        app.processEvents()
        sorts[key] = round((time.perf_counter() - t) * 1000, 1)
    view.scrollTo(insp.proxy.index(loaded // 2, 0), QAbstractItemView.ScrollHint.PositionAtCenter)
    app.processEvents()
    probe.mark("end")
    probe.stop()
    window.close()
    worst_filter = max(filters.values())
    return {
        "n": args.n,
        "insert_s": round(insert_s, 1),
        "first_page_ms": round(first_page_ms, 1),
        "inspector_100k_filter_ms": round(worst_filter, 1),
        "filters_ms": {k: round(v, 1) for k, v in filters.items()},
        "filter_with_count_max_ms": round(max(counts_ms), 1) if counts_ms else None,
        "scroll_page_ms": {"median": round(statistics.median(pages), 1), "max": round(max(pages), 1), "pages": len(pages),
                           "rows_loaded": loaded},  # fmt: skip
        "sort_loaded_rows_ms": sorts,
        "max_stall_ms": probe.phase("filters", "end")["max_stall_ms"],
        "baseline_idle": baseline,
        "stalls": {"filters": probe.phase("filters", "scroll"), "scroll": probe.phase("scroll", "sort"),
                   "sort": probe.phase("sort", "end")},  # fmt: skip
    }


def _bulk_insert(services, n: int) -> float:
    from assistant.memory.records import Kind, NewMemory, Trust  # like every import here: after the timed start-up

    t = time.perf_counter()
    store = services.open_store(with_embedder=False)
    have = store.count(include_all=True)
    if have >= n:  # a reused home already holds them
        store.close()
        return 0.0
    kinds, trusts = list(Kind), [Trust.USER_STATED, Trust.ASSISTANT_INFERRED, Trust.IMPORTED]
    base = datetime(2020, 1, 1, tzinfo=timezone.utc)
    batch = 10_000
    for start in range(0, n, batch):
        items = [
            NewMemory(f"Memory {i}: the person mentioned topic {i % 997} on day {i % 365}.", kind=kinds[i % 4],
                      trust=trusts[i % 3], valid_at=base + timedelta(hours=i), created_at=base + timedelta(hours=i))
            for i in range(start, min(n, start + batch))
        ]  # fmt: skip
        store.add_many(items, embed=False, batch=batch)
    store.close()
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.ui_bench")
    parser.add_argument("part", choices=("visible", "stall", "inspector", "ready"))
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2000, help="memories seeded for the consolidation run (stall)")
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds the ready part waits for the models")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    part = {"visible": part_visible, "stall": part_stall, "inspector": part_inspector, "ready": part_ready}[args.part]
    from assistant.profile import Profile  # after T_START: part of what the visible part times

    args.services = Services(Profile.load())
    try:
        result = part(args)
    except Exception as exc:  # noqa: BLE001 - reported to the parent as JSON

        traceback.print_exc()
        _emit({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    _emit(result)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown (llama.cpp objects freed at exit are not part of the figures)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
