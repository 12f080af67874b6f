"""``keepsake bench startup [--json]``: how long each command takes from a cold process, next to
the floor llama.cpp and Python set on the same machine, measured in the same run.

Every figure is the median of ``--runs`` launches, each a new process (default 3 for speed; the
issue's figures use ``--runs 5``). Keepsake's launch and its floor's alternate, so a change in
the machine's load falls on both. Two profiles are built in a temporary folder: an empty one
and one with ``--n`` (10,000) memories with vectors (texts from the retrieval benchmark's
templates; the first 256 embedded for real, the rest perturbed copies of those vectors: the
search costs the same). Untimed warm-up launches come first (page cache, byte code, MiniLM
converted once and shared by hard link, the GGUF verdicts cached). The database is stamped
healthy when the build closes it, as every Keepsake process that checked it leaves it
(:mod:`assistant.memory.store.sqlite.integrity`): the integrity check before a first write is not
timed here; it runs again after a change from outside or once a day (~0.13 s at 10,000 memories).

=================  =======================================  ===========================================
command            Keepsake                                 floor
=================  =======================================  ===========================================
``version``        ``keepsake --version``                   ``python -c pass``
``memory_list``    ``keepsake memory list --json --limit    Python + sqlite3 reading as many rows from a
                   100`` (a page, as the app shows)         plain FTS5 copy of the texts, printed as JSON
``memory_search``  ``keepsake memory search "kettle         Python + loading the embedder + one
                   broke"``                                 embedding + an FTS5 query on the plain copy
``chat_once``      ``keepsake chat --once "What is 2+2?"    a script that loads both GGUF files with
                   --max-tokens 16``                        ``llama_cpp.Llama`` (same threads and context
                                                            size), embeds the question, generates the
                                                            reply (16 tokens)
``app``            the desktop app (offscreen) until both   PySide6 window shown, then both models loaded
                   models are loaded (``python -m           with ``llama_cpp`` on two threads
                   tools.ui_bench ready``)
=================  =======================================  ===========================================

Per command: ``seconds`` and ``floor_seconds`` (empty profile), ``ratio`` = seconds / floor,
the same with ``_10k`` for the large profile, and ``ratio_10k_vs_empty`` = seconds_10k / seconds;
``floor_10k_vs_empty`` = floor_seconds_10k / floor_seconds shows how far the machine drifted
between the two profiles (the floors do the same work on both, but for the FTS5 copy's size).
For the app also ``after_window_seconds`` (window shown -> both models loaded). The 1-minute
load average is recorded before and after: other work on the machine skews every timing.
Targets (issue 31): chat_once ratio <= 1.5, memory_search <= 2, version <= 0.3 s, the app's
models ready <= 1.5 s after the window, every ratio_10k_vs_empty <= 1.2.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from assistant.cli.argtypes import decimal, whole

CHECKOUT = Path(__file__).resolve().parents[2]
COMMANDS = ("version", "memory_list", "memory_search", "chat_once", "app")
QUESTION = "What is 2+2?"
SEARCH = "kettle broke"
LIST_LIMIT = 100
POOL = 256  # texts embedded for real for the large profile
TARGETS = {"chat_once_ratio": 1.5, "memory_search_ratio": 2.0, "version_seconds": 0.3, "app_after_window_seconds": 1.5,
           "ratio_10k_vs_empty": 1.2}  # fmt: skip

# -- floors: the least any program doing the same job pays (argv: see _floor_argv) ---------------
_EMBEDDER = ("llama_cpp.Llama(model_path={p!r}, embedding=True, n_ctx=512, n_batch=512, n_ubatch=512, "
             "n_threads=1, n_threads_batch=1, verbose=False)")  # fmt: skip
_CHAT = "llama_cpp.Llama(model_path={p!r}, n_ctx={ctx}, n_threads={t}, n_threads_batch={t}, verbose=False)"

FLOOR_LIST = """
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
rows = con.execute("SELECT rowid, text FROM fts ORDER BY rowid DESC LIMIT ?", (int(sys.argv[2]),)).fetchall()
print(json.dumps([{"id": r[0], "text": r[1]} for r in rows]))
"""
FLOOR_SEARCH = """
import sqlite3, sys, llama_cpp
emb = {embedder}
vec = emb.embed(sys.argv[2])
con = sqlite3.connect(sys.argv[1])
q = " OR ".join('"' + w + '"' for w in sys.argv[2].split())
print(con.execute("SELECT rowid, text FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT 10", (q,)).fetchall(), len(vec))
"""
FLOOR_CHAT = """
import sys, llama_cpp
emb = {embedder}
llm = {chat}
vec = emb.embed(sys.argv[1])
out = llm.create_chat_completion(messages=[{{"role": "user", "content": sys.argv[1]}}], max_tokens=16, temperature=0.2)
print(out["choices"][0]["message"]["content"], len(vec))
"""
FLOOR_APP = """
import json, os, sys, threading, time
out = os.dup(1)  # llama_cpp points fd 1 at /dev/null while it loads (verbose=False), per thread
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow
app = QApplication(sys.argv[:1])
w = QMainWindow(); w.setCentralWidget(QLabel("floor")); w.resize(900, 640); w.show(); app.processEvents()
window_ns = time.monotonic_ns()
import llama_cpp
loaded = []
jobs = [threading.Thread(target=lambda: loaded.append({embedder})), threading.Thread(target=lambda: loaded.append({chat}))]
for j in jobs: j.start()
while any(j.is_alive() for j in jobs):
    app.processEvents(); time.sleep(0.002)
ready_ns = time.monotonic_ns()
os.write(out, (json.dumps({{"window_ns": window_ns, "ready_ns": ready_ns, "models": len(loaded)}}) + "\\n").encode())
os._exit(0)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=whole(1, 100, "--runs"), default=3,
                        help="cold launches per command and per floor, median (default 3 for speed; the issue's figures: 5)")  # fmt: skip
    parser.add_argument("--n", type=whole(1, 1_000_000, "--n"), default=10_000, help="memories in the large profile (default 10000)")
    parser.add_argument("--skip", choices=COMMANDS, action="append", default=[], help="leave a command out (repeatable)")
    parser.add_argument("--timeout", type=decimal(1.0, 3600.0, "--timeout"), default=300.0, help="seconds per launch")


def _load_avg() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


# -- profiles ------------------------------------------------------------------------------------
def _prepare(home: Path, n: int, shared_embedder: Path | None) -> dict[str, Any]:
    """A profile at ``home`` with ``n`` memories (vectors included) and the plain FTS5 copy of
    their texts for the floors; returns its model paths and settings."""
    from assistant.engine.names import DEFAULT_EMBEDDER_FILE
    from assistant.profile import Profile
    from assistant.services import Services

    profile = Profile.load(home)
    models = profile.paths.ensure().models
    if shared_embedder is not None and not (models / DEFAULT_EMBEDDER_FILE).exists():
        try:
            os.link(shared_embedder, models / DEFAULT_EMBEDDER_FILE)  # converted once per run
        except OSError:
            shutil.copy2(shared_embedder, models / DEFAULT_EMBEDDER_FILE)
    texts: list[str] = []
    with Services(profile) as services:
        embed_path = services.embedder_path()
        chat_path = services.chat_model().path
        store = services.open_store(with_embedder=False)
        try:
            if n:
                texts = _fill(services, store, n)
        finally:
            store.close()
        settings = services.settings
    floor_db = home / "floor-fts.db"
    con = sqlite3.connect(floor_db)
    con.execute("CREATE VIRTUAL TABLE fts USING fts5(text)")
    con.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", enumerate(texts, 1))
    con.commit()
    con.close()
    return {"home": str(home), "embed": str(embed_path), "chat": str(chat_path), "floor_db": str(floor_db),
            "threads": settings.threads, "context_size": settings.context_size, "memories": len(texts)}  # fmt: skip


def _fill(services, store, n: int) -> list[str]:
    """``n`` memories written with precomputed vectors (add_many, no embedder call per row)."""
    from datetime import UTC, datetime, timedelta

    import numpy as np

    from assistant.bench.retrieval import make_texts, size_vectors
    from assistant.memory.records import NewMemory

    texts = list(dict.fromkeys(make_texts(n * 2, seed=31)))[:n]  # distinct: the store dedups equal texts
    texts += [f"Note {i}: nothing in particular happened." for i in range(n - len(texts))]
    pool = np.asarray(services.embedder().embed(texts[:POOL]), dtype=np.float32)
    vectors = size_vectors(pool, n, seed=31)
    base = datetime(2021, 1, 1, tzinfo=UTC)
    items = [NewMemory(t, valid_at=base + timedelta(hours=4 * i), created_at=base + timedelta(hours=4 * i),
                       embedding=tuple(float(x) for x in vectors[i])) for i, t in enumerate(texts)]  # fmt: skip
    store.add_many(items, embed=False, batch=2000)
    return texts


# -- launches ------------------------------------------------------------------------------------
def _env(home: str) -> dict[str, str]:
    """The child's environment: its profile, offscreen Qt, and byte code cached (under the run's
    temporary folder) as in an installed Keepsake, even where PYTHONDONTWRITEBYTECODE is set."""
    env = dict(os.environ, KEEPSAKE_HOME=home, QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(home).parent / "pycache")
    env["PYTHONPATH"] = os.pathsep.join([str(CHECKOUT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def _keepsake_argv(command: str) -> list[str]:
    cli = [sys.executable, "-m", "assistant.cli"]
    return {
        "version": [*cli, "--version"],
        "memory_list": [*cli, "memory", "list", "--json", "--limit", str(LIST_LIMIT)],
        "memory_search": [*cli, "memory", "search", SEARCH],
        "chat_once": [*cli, "chat", "--once", QUESTION, "--max-tokens", "16"],
        "app": [sys.executable, "-m", "tools.ui_bench", "ready"],
    }[command]


def _floor_argv(command: str, prof: dict[str, Any]) -> list[str]:
    emb = _EMBEDDER.format(p=prof["embed"])
    chat = _CHAT.format(p=prof["chat"], ctx=prof["context_size"], t=prof["threads"])
    py = [sys.executable, "-c"]
    return {
        "version": [*py, "pass"],
        "memory_list": [*py, FLOOR_LIST, prof["floor_db"], str(LIST_LIMIT)],
        "memory_search": [*py, FLOOR_SEARCH.format(embedder=emb), prof["floor_db"], SEARCH],
        "chat_once": [*py, FLOOR_CHAT.format(embedder=emb, chat=chat), QUESTION],
        "app": [*py, FLOOR_APP.format(embedder=emb, chat=chat)],
    }[command]


def _launch(argv: list[str], home: str, timeout: float, app: bool) -> dict[str, float]:
    """One cold launch: wall seconds to exit, or for the app to both models loaded (and from
    the window to then), from the child's monotonic clock (the same clock on Linux)."""
    spawn = time.monotonic_ns()
    proc = subprocess.run(argv, env=_env(home), cwd=str(CHECKOUT), capture_output=True, text=True, timeout=timeout)
    wall = (time.monotonic_ns() - spawn) / 1e9
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-4:])
        raise RuntimeError(f"{' '.join(argv[1:4])} exited {proc.returncode}: {tail}")
    if not app:
        return {"seconds": wall}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"{' '.join(argv[1:4])[:60]} printed no result: {' | '.join(proc.stderr.strip().splitlines()[-3:])}")
    marks = json.loads(lines[-1])
    if "error" in marks:
        raise RuntimeError(f"the app did not get ready: {marks['error']}")
    return {"seconds": (marks["ready_ns"] - spawn) / 1e9, "after_window_seconds": (marks["ready_ns"] - marks["window_ns"]) / 1e9}


def _median(samples: list[dict[str, float]], key: str) -> float:
    return round(statistics.median(s[key] for s in samples), 3)


def _measure(command: str, prof: dict[str, Any], runs: int, timeout: float) -> dict[str, Any]:
    app = command == "app"
    mine, floor = _keepsake_argv(command), _floor_argv(command, prof)
    _launch(mine, prof["home"], timeout, app)  # warm-up: page cache, byte code, verdicts
    _launch(floor, prof["home"], timeout, app)
    ks, fs = [], []
    for _ in range(runs):
        ks.append(_launch(mine, prof["home"], timeout, app))
        fs.append(_launch(floor, prof["home"], timeout, app))
    out = {"seconds": _median(ks, "seconds"), "floor_seconds": _median(fs, "seconds")}
    if app:
        out["after_window_seconds"] = _median(ks, "after_window_seconds")
        out["floor_after_window_seconds"] = _median(fs, "after_window_seconds")
    out["ratio"] = round(out["seconds"] / out["floor_seconds"], 2) if out["floor_seconds"] else None
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    commands = [c for c in COMMANDS if c not in args.skip]
    if "app" in commands and not (CHECKOUT / "tools" / "ui_bench.py").is_file():
        commands.remove("app")  # a developer tool of the source checkout
    load_before = _load_avg()
    tmp = Path(tempfile.mkdtemp(prefix="keepsake-bench-startup-"))
    try:
        t0 = time.perf_counter()
        empty = _prepare(tmp / "empty", 0, None)
        large = _prepare(tmp / "large", args.n, Path(empty["embed"]))
        build_s = round(time.perf_counter() - t0, 1)
        results: dict[str, Any] = {}
        for command in commands:
            try:
                e = _measure(command, empty, args.runs, args.timeout)
                big = _measure(command, large, args.runs, args.timeout)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:  # the other commands are still measured
                results[command] = {"error": str(exc)}
                continue
            row = dict(e)
            row.update({f"{k}_10k": v for k, v in big.items()})
            row["ratio_10k_vs_empty"] = round(big["seconds"] / e["seconds"], 2) if e["seconds"] else None
            row["floor_10k_vs_empty"] = round(big["floor_seconds"] / e["floor_seconds"], 2) if e["floor_seconds"] else None
            results[command] = row
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "runs": args.runs,
        "memories_large": args.n,
        "build_seconds": build_s,
        "load_average_before": load_before,
        "load_average_after": _load_avg(),
        "commands": results,
        "targets": TARGETS,
        "met": _met(results),
    }


def _met(r: dict[str, Any]) -> dict[str, bool | None]:
    def get(cmd: str, key: str):
        return r.get(cmd, {}).get(key)

    def at_most(value, limit):
        return None if value is None else value <= limit

    ratios = [row.get("ratio_10k_vs_empty") for row in r.values() if "error" not in row]
    return {
        "chat_once_ratio": at_most(get("chat_once", "ratio"), TARGETS["chat_once_ratio"]),
        "memory_search_ratio": at_most(get("memory_search", "ratio"), TARGETS["memory_search_ratio"]),
        "version_seconds": at_most(get("version", "seconds"), TARGETS["version_seconds"]),
        "app_after_window_seconds": at_most(get("app", "after_window_seconds"), TARGETS["app_after_window_seconds"]),
        "ratio_10k_vs_empty": None if not ratios or None in ratios else max(ratios) <= TARGETS["ratio_10k_vs_empty"],
    }


def format_text(result: dict[str, Any]) -> str:
    lines = [f"cold start, median of {result['runs']} launches; load average {result['load_average_before']} -> "
             f"{result['load_average_after']}", "",
             f"{'command':<15} {'keepsake':>9} {'floor':>7} {'ratio':>6}   {'10k':>7} {'floor':>7} {'ratio':>6}   {'10k/empty':>9} {'(floor)':>7}"]  # fmt: skip
    for name, row in result["commands"].items():
        if "error" in row:
            lines.append(f"{name:<15} error: {row['error']}")
            continue
        lines.append(f"{name:<15} {row['seconds']:>8.3f}s {row['floor_seconds']:>6.3f}s {row['ratio']:>6}   "
                     f"{row['seconds_10k']:>6.3f}s {row['floor_seconds_10k']:>6.3f}s {row['ratio_10k']:>6}   {row['ratio_10k_vs_empty']:>9} {row['floor_10k_vs_empty']:>7}")  # fmt: skip
    if "after_window_seconds" in result["commands"].get("app", {}):
        a = result["commands"]["app"]
        lines.append(f"app: models ready {a['after_window_seconds']:.3f}s after the window (floor {a['floor_after_window_seconds']:.3f}s; "
                     f"10k: {a['after_window_seconds_10k']:.3f}s)")  # fmt: skip
    lines.append("met: " + ", ".join(f"{k}={v}" for k, v in result["met"].items()))
    return "\n".join(lines)
