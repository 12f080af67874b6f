"""``keepsake bench ui [--json]``: desktop-app responsiveness.

- ``window_visible_ms``: from launching a fresh process to the first paint of the main window
  (median of ``--runs``); the models load afterwards, in the background.
- ``max_stall_ms``: the longest UI-thread stall while a reply streams, its capture runs and a
  consolidation runs, measured with a 5 ms timer probe on the UI thread.
- ``max_stall_loaded_ms``: the same with a CPU hog in the background (``--hog N`` busy processes,
  default one per core, at normal priority: other programs the person runs meanwhile).
- ``inspector_100k_filter_ms``: the slowest filter in the memory inspector over ``--n`` (100k)
  memories, from changing the filter to the first page shown; sort and scroll timings alongside.

Targets: window visible <= 1500 ms, max stall <= 50 ms. Qt is never imported here (the core
package must stay Qt-free, and never imports ``ui``): every measurement runs the checkout's
developer tool ``python -m tools.ui_bench PART`` in a child process, each in its own temporary
KEEPSAKE_HOME (a source checkout only: ``make bench``).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from assistant.cli.argtypes import decimal, tokens, whole
from assistant.engine.names import DEFAULT_EMBEDDER_FILE

CHECKOUT = Path(__file__).resolve().parents[2]
TOOL = "tools.ui_bench"
TARGET_VISIBLE_MS = 1500.0
TARGET_STALL_MS = 50.0


def add_arguments(parser) -> None:
    parser.add_argument("--n", type=whole(1, 10_000_000, "--n"), default=100_000, help="memories in the inspector test (default 100000)")
    parser.add_argument("--runs", type=whole(1, 1000, "--runs"), default=3, help="launches for window_visible_ms (median)")
    parser.add_argument("--max-tokens", type=tokens, default=160, help="reply length in the stall test")
    parser.add_argument("--skip", choices=("visible", "stall", "inspector"), action="append", default=[],
                        help="leave a part out (repeatable)")  # fmt: skip
    parser.add_argument("--hog", type=whole(0, 256, "--hog"), default=os.cpu_count() or 1,
                        help="busy processes for the loaded stall run (default: one per core; 0: no loaded run)")
    parser.add_argument("--timeout", type=decimal(1.0, 86_400.0, "--timeout"), default=1800.0, help="seconds per part")


def _child(part: str, home: Path, extra: list[str], timeout: float) -> tuple[dict[str, Any], float]:
    env = dict(os.environ, KEEPSAKE_HOME=str(home), QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    spawn_ns = time.monotonic_ns()
    if not (CHECKOUT / "tools" / "ui_bench.py").is_file():
        return {"error": f"{TOOL} is a developer tool of the source checkout (make bench); it is not installed here"}, spawn_ns
    proc = subprocess.run([sys.executable, "-m", TOOL, part, *extra], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=str(CHECKOUT))  # fmt: skip
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        return {"error": f"{TOOL} {part} exited {proc.returncode}: " + " | ".join(tail)}, spawn_ns
    return json.loads(lines[-1]), spawn_ns


def _seed_models(home: Path, models: Path) -> None:
    """Reuse the converted embedder in ``models`` (the running profile's) so the child does not
    convert it again."""
    try:
        src = models / DEFAULT_EMBEDDER_FILE
        if src.is_file():
            dst = home / "data" / "models" / DEFAULT_EMBEDDER_FILE
            dst.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)
    except Exception:  # noqa: BLE001 - the child converts it itself
        pass


def _visible(runs: int, timeout: float) -> dict[str, Any]:
    samples, inproc, errors = [], [], []
    for _ in range(max(1, runs)):
        with tempfile.TemporaryDirectory(prefix="keepsake-bench-ui-") as tmp:
            res, spawn_ns = _child("visible", Path(tmp), [], timeout)
        if "error" in res:
            errors.append(res["error"])
            continue
        samples.append((res["first_paint_ns"] - spawn_ns) / 1e6)
        inproc.append(res["qapplication_to_paint_ms"])
    if not samples:
        return {"window_visible_ms": None, "errors": errors}
    return {
        "window_visible_ms": round(statistics.median(samples), 1),
        "launch_to_paint_ms": [round(x, 1) for x in samples],
        "qapplication_to_paint_ms": round(statistics.median(inproc), 1),
        **({"errors": errors} if errors else {}),
    }


HOG = "import os, signal; signal.signal(signal.SIGTERM, lambda *_: os._exit(0))\nwhile True: pass"


class CpuHog:
    """``n`` busy processes (one pure-Python spin loop each) for the duration of a ``with``."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> CpuHog:
        self.procs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(self.n)]
        return self

    def __exit__(self, *_exc: Any) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def _stall(args, hog: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="keepsake-bench-ui-") as tmp:
        _seed_models(Path(tmp), args.services.profile.paths.models)
        with CpuHog(hog):
            stall, _ = _child("stall", Path(tmp), ["--max-tokens", str(args.max_tokens)], args.timeout)
    return {**stall, "hog_processes": hog}


def run(args) -> dict[str, Any]:
    skip = set(getattr(args, "skip", []) or [])
    result: dict[str, Any] = {"window_visible_ms": None, "max_stall_ms": None, "max_stall_loaded_ms": None,
                              "inspector_100k_filter_ms": None}  # fmt: skip
    details: dict[str, Any] = {}
    if "visible" not in skip:
        vis = _visible(args.runs, args.timeout)
        result["window_visible_ms"] = vis.get("window_visible_ms")
        details["visible"] = vis
    if "stall" not in skip:
        stall = _stall(args, 0)
        result["max_stall_ms"] = stall.get("max_stall_ms")
        details["stall"] = stall
        hog = getattr(args, "hog", os.cpu_count() or 1)
        if hog:
            loaded = _stall(args, hog)
            result["max_stall_loaded_ms"] = loaded.get("max_stall_ms")
            details["stall_loaded"] = loaded
    if "inspector" not in skip:
        with tempfile.TemporaryDirectory(prefix="keepsake-bench-ui-") as tmp:
            insp, _ = _child("inspector", Path(tmp), ["--n", str(args.n)], args.timeout)
        result["inspector_100k_filter_ms"] = insp.get("inspector_100k_filter_ms")
        details["inspector"] = insp
    result["targets"] = {"window_visible_ms": TARGET_VISIBLE_MS, "max_stall_ms": TARGET_STALL_MS}
    result["cpus"] = os.cpu_count()
    try:
        result["load_avg_1m"] = round(os.getloadavg()[0], 2)
    except OSError:
        pass
    result["details"] = details
    return result


def _fmt(value: Any, unit: str = "ms") -> str:
    return "n/a" if value is None else f"{value:,.1f} {unit}"


def format_text(r: dict[str, Any]) -> str:
    d = r.get("details", {})
    lines = [
        f"window visible        {_fmt(r.get('window_visible_ms'))}   (target <= {TARGET_VISIBLE_MS:.0f} ms; launch -> first paint)",
        f"max UI stall          {_fmt(r.get('max_stall_ms'))}   (target <= {TARGET_STALL_MS:.0f} ms; reply + capture + consolidation)",
        f"  with a CPU hog      {_fmt(r.get('max_stall_loaded_ms'))}   "
        f"({d.get('stall_loaded', {}).get('hog_processes', 0)} busy processes in the background)",
        f"inspector filter      {_fmt(r.get('inspector_100k_filter_ms'))}   (slowest filter over {d.get('inspector', {}).get('n', '?')} memories)",
    ]
    insp = d.get("inspector", {})
    if insp and "error" not in insp:
        lines.append(f"  filters             {', '.join(f'{k} {v:.0f}' for k, v in insp.get('filters_ms', {}).items())} ms")
        sp = insp.get("scroll_page_ms", {})
        lines.append(f"  scroll              page median {sp.get('median')} ms, max {sp.get('max')} ms ({sp.get('rows_loaded')} rows loaded)")
        lines.append(f"  sort loaded rows    {', '.join(f'{k} {v:.0f}' for k, v in insp.get('sort_loaded_rows_ms', {}).items())} ms")
        lines.append(f"  UI stall meanwhile  {_fmt(insp.get('max_stall_ms'))}")
    for key, tag in (("stall", ""), ("stall_loaded", "+hog ")):
        lines += _stall_lines(d.get(key, {}), tag)
    for part, res in d.items():
        if isinstance(res, dict) and res.get("error"):
            lines.append(f"  {part}: {res['error']}")
    if r.get("load_avg_1m") is not None:
        lines.append(f"machine: {r.get('cpus')} CPUs, load average {r['load_avg_1m']}")
    return "\n".join(lines)


def _stall_lines(stall: dict[str, Any], tag: str) -> list[str]:
    lines: list[str] = []
    if stall and "error" not in stall:
        for t in stall.get("turns", []):
            w = t.get("stalls", {})
            lines.append(f"  {tag + t['label']:<19} max stall {w.get('max_stall_ms')} ms, p99 gap {w.get('p99_gap_ms')} ms, "
                         f"{w.get('stalls_over_50ms')} stalls > 50 ms ({t.get('reply_tokens')} tokens, "
                         f"capture {'on' if t.get('captured') else 'off'}, consolidation {'on' if t.get('consolidation') else 'off'})")  # fmt: skip
        lines.append(f"  {tag + 'idle baseline':<19} max stall {stall.get('baseline_idle', {}).get('max_stall_ms')} ms")
    return lines
