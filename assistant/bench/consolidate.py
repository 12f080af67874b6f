"""`keepsake bench consolidate --n 10000 [--json]`: wall time and peak memory of one full
consolidation run (TTL purge, dedup, contradictions, episodic -> semantic, decay, all applied).

Build (not timed): :mod:`assistant.bench.synthetic_store` (a long-lived profile's mix).

Run (timed): a child process opens the store the way the app does and runs
``Consolidator(store).run()``; ``wall_s`` is its wall time and ``peak_rss_mb`` the child's peak
resident set (Linux ``VmHWM``; psutil samples elsewhere), Python and libraries included
(``rss_before_run_mb``: after imports and opening the store). Target: 10k in <= 60 s, <= 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import subprocess
import sys
import threading
import time
from typing import Any

import psutil

from assistant.cli.argtypes import seed, whole
from assistant.bench.synthetic_store import build_home
from assistant.profile import Profile

TARGET_S = 60.0
TARGET_MB = 1024.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=whole(10, 10_000_000, "--n"), default=10000, help="memories in the store (default 10000)")
    parser.add_argument("--pool", type=whole(1, 100_000, "--pool"), default=300, help="texts embedded for real with MiniLM (default 300)")
    parser.add_argument("--seed", type=seed, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the temporary KEEPSAKE_HOME (path printed; key in bench.key)")


class _PeakRSS:
    """Peak resident set of this process in MB: ``VmHWM`` on Linux (the high-water mark of this
    process's own address space; ``ru_maxrss`` would also count the parent it was forked from),
    else the max of ``psutil`` samples every 10 ms."""

    def __init__(self) -> None:

        self._proc = psutil.Process()
        self._max = self._proc.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self._max = max(self._max, self._proc.memory_info().rss)

    def now_mb(self) -> float:
        return self._proc.memory_info().rss / 2**20

    def peak_mb(self) -> float:
        self._stop.set()
        self._thread.join()
        try:
            with open("/proc/self/status", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return max(int(line.split()[1]) / 1024.0, self._max / 2**20)
        except OSError:
            pass
        return self._max / 2**20


def _child() -> None:
    """Runs in a fresh process: open the store, consolidate once, print JSON on stdout."""
    key = sys.stdin.readline().strip()
    from assistant.memory.consolidation.consolidator import Consolidator  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.facade import MemoryStore

    rss = _PeakRSS()
    store = MemoryStore(Profile.load().database, key=key)  # this child process is an edge: its KEEPSAKE_HOME
    base = rss.now_mb()
    t0 = time.perf_counter()
    report = Consolidator(store).run(trigger="bench")
    wall = time.perf_counter() - t0
    peak = rss.peak_mb()
    after = store.count()
    store.close()
    print(json.dumps({
        "wall_s": round(wall, 2), "peak_rss_mb": round(peak, 1), "rss_before_run_mb": round(base, 1),
        "changes": report.applied, "proposed": report.proposed, "conflicts": report.conflicts, "skipped": report.skipped,
        "errors": len(report.errors), "timings": {k: round(v, 2) for k, v in report.timings.items()},
        "transactions": report.stats.get("transactions"), "visible_after": after, "run_id": report.run_id,
    }))  # fmt: skip


def run(args: argparse.Namespace) -> dict[str, Any]:
    key = secrets.token_hex(32)  # explicit key: the bench never touches the OS keyring
    home, env, info = build_home("keepsake-bench-consolidate-", args.n, args.pool, args.seed, key, args.services.profile.paths.models)
    proc = subprocess.run([sys.executable, "-c", "from assistant.bench.consolidate import _child; _child()"],
                          input=key + "\n", capture_output=True, text=True, env=env, timeout=1800)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"consolidation child failed:\n{proc.stderr[-4000:]}")
    child = json.loads(proc.stdout.strip().splitlines()[-1])
    if args.keep:  # so the store can be opened and inspected: MemoryStore(path, key=...)
        key_file = home / "bench.key"
        key_file.write_text(key + "\n", encoding="ascii")
        key_file.chmod(0o600)
    else:
        shutil.rmtree(home, ignore_errors=True)
    return {
        "n": args.n,
        "wall_s": child["wall_s"],
        "peak_rss_mb": child["peak_rss_mb"],
        "changes": child["changes"],
        "proposed": child["proposed"],
        "conflicts": child["conflicts"],
        "skipped": child["skipped"],
        "errors": child["errors"],
        "visible_after": child["visible_after"],
        "rss_before_run_mb": child["rss_before_run_mb"],
        "timings_s": child["timings"],
        "transactions": child["transactions"],
        "store": info,
        "vectors": (f"real MiniLM (all-MiniLM-L6-v2 via llama.cpp) for {info['pool']} pool texts spread over every "
                    "template; every other memory takes a pool vector of its own template rotated to a set cosine "
                    "(0.985 paraphrases/twins, 0.95 near misses, 0.80-0.90 other facts of the template), normalized"),
        "target": {"wall_s": TARGET_S, "peak_rss_mb": TARGET_MB},
        "passed": child["wall_s"] <= TARGET_S and child["peak_rss_mb"] <= TARGET_MB,
        "home": str(home) if args.keep else None,
    }  # fmt: skip


def format_text(result: dict[str, Any]) -> str:
    changes = ", ".join(f"{k} {v}" for k, v in sorted(result["changes"].items())) or "none"
    return (
        f"consolidate {result['n']} memories: {result['wall_s']:.1f} s, peak RSS {result['peak_rss_mb']:.0f} MB "
        f"(target <= {TARGET_S:.0f} s, <= {TARGET_MB:.0f} MB: {'ok' if result['passed'] else 'MISSED'})\n"
        f"changes: {changes}; conflicts {result['conflicts']}, skipped {result['skipped']}, errors {result['errors']}\n"
        f"stages: " + ", ".join(f"{k} {v}s" for k, v in result["timings_s"].items()) + "\n"
        f"vectors: {result['vectors']}"
    )
