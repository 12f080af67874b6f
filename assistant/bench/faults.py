"""`keepsake bench faults --kills 25 --n 3000 [--json]`: SIGKILL ``keepsake consolidate`` at
random moments and check that every run is all or nothing.

Build (not timed): a store of ``n`` memories like ``bench consolidate`` builds (duplicates,
contradictions, episodes, decay and TTL candidates) in a temporary ``KEEPSAKE_HOME``.
Baseline: one unkilled ``keepsake consolidate`` gives the run's wall time ``T`` (process start
included); it is undone (``keepsake consolidate undo RUN``), which must bring the store back.

Then ``kills`` rounds: start ``keepsake consolidate``, SIGKILL it after ``uniform(0, 1.1 T)``
(a round whose run already finished counts as "finished"), then *the next start*: ``keepsake
consolidate --dry-run`` (opening the store rolls back stale runs; it applies nothing). Checks after every round:

- ``running``: runs left ``running`` (must be 0);
- ``unowned``: changes no run owns (:func:`ownership_problems`, must be 0);
- ``rolled_back_exact``: the store equals its state before the round (:func:`store_digest`:
  every memory's fields, links, sources and entities; TTL-expired records excluded, since a
  purge is a real deletion that stays done) after a rollback, and after ``keepsake consolidate
  undo`` of a run that finished before the kill.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from assistant.cli.argtypes import seed, whole
from assistant.memory.store.sqlite import keys
from assistant.memory.times import ts_to_db

_BASE_RUN = ("CASE WHEN run_id LIKE 'undo:%' THEN substr(run_id, 6) WHEN run_id LIKE 'rollback:%' THEN substr(run_id, 10) "
             "ELSE run_id END")  # fmt: skip


def ownership_problems(conn: Any) -> dict[str, int]:
    """Changes no consolidation run owns (all must be 0):
    - ``audit``: audit rows by the consolidator without a run id, or with one (or the run an
      ``undo:``/``rollback:`` id names) missing from ``consolidation_runs``;
    - ``memories``: memories whose current version the consolidator wrote with no audit row of a
      recorded run for that version;
    - ``running``: runs still ``running``.
    """
    runs = "(SELECT run_id FROM consolidation_runs)"
    audit = conn.execute(
        f"SELECT count(*) FROM audit_log WHERE actor = 'consolidator' AND (run_id IS NULL OR {_BASE_RUN} NOT IN {runs})"
    ).fetchone()[0]
    memories = conn.execute(
        "SELECT count(*) FROM memories m WHERE m.actor = 'consolidator' AND NOT EXISTS (SELECT 1 FROM audit_log a "
        f"WHERE a.memory_id = m.id AND a.to_version = m.version AND a.run_id IS NOT NULL AND "
        f"{_BASE_RUN.replace('run_id', 'a.run_id')} IN {runs})"
    ).fetchone()[0]
    running = conn.execute("SELECT count(*) FROM consolidation_runs WHERE status = 'running'").fetchone()[0]
    return {"audit": int(audit), "memories": int(memories), "running": int(running)}


def store_digest(conn: Any, now_db: str) -> str:
    """A hash of what a person sees of every memory not TTL-expired at ``now_db``: its fields
    (versions and bookkeeping excluded), links, sources and entities."""
    h = hashlib.sha256()
    live = "SELECT id FROM memories WHERE expires_at IS NULL OR expires_at > ?"
    queries = [
        ("SELECT id, text, kind, scope, slot, status, valid_at, invalid_at, expired_at, trust, confidence, pinned, "
         f"expires_at FROM memories WHERE id IN ({live}) ORDER BY id"),
        f"SELECT src_id, dst_id, type FROM memory_links WHERE src_id IN ({live}) ORDER BY 1, 2, 3",
        f"SELECT memory_id, session_id, message_id, observed_at FROM memory_sources WHERE memory_id IN ({live}) ORDER BY 1, 2, 3, 4",
        f"SELECT memory_id, entity_id FROM memory_entities WHERE memory_id IN ({live}) ORDER BY 1, 2",
    ]  # fmt: skip
    for sql in queries:
        for row in conn.execute(sql, (now_db,)):
            h.update(repr(tuple(row)).encode())
        h.update(b"|")
    return h.hexdigest()


LOGICAL_TABLES = (
    ("memories", "SELECT * FROM memories ORDER BY id"),
    ("versions", "SELECT * FROM memory_versions ORDER BY memory_id, version"),
    ("links", "SELECT * FROM memory_links ORDER BY src_id, dst_id, type"),
    ("sources", "SELECT * FROM memory_sources ORDER BY id"),
    ("entities", "SELECT * FROM entities ORDER BY id"),
    ("memory_entities", "SELECT * FROM memory_entities ORDER BY memory_id, entity_id"),
    ("vectors", "SELECT rowid, embedding FROM memory_vec ORDER BY rowid"),
    ("fts", "SELECT rowid, * FROM memory_fts ORDER BY rowid"),
    ("fts_match", "SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'user OR i' ORDER BY rowid"),
)  # fmt: skip


def logical_state(conn: Any) -> dict[str, str]:
    """Per table, a hash of every row and column of the store's logical content: memories (all
    columns, version numbers and timestamps included), their version history, links, sources,
    entities, vectors and the full-text index (its rows, and what a MATCH finds through the
    index). Audit rows and the runs table are left out: they record the undo itself."""
    out = {}
    for name, sql in LOGICAL_TABLES:
        h = hashlib.sha256()
        for row in conn.execute(sql):
            h.update(repr(tuple(row)).encode())
        out[name] = h.hexdigest()[:16]
    try:  # the index agrees with the memories' text (external content: SELECT * reads the table)
        conn.execute("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)")
        out["fts_integrity"] = "ok"
    except Exception as exc:  # noqa: BLE001 - reported as the state
        out["fts_integrity"] = str(exc)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kills", type=whole(0, 10_000, "--kills"), default=25, help="SIGKILLs of keepsake consolidate (default 25)")
    parser.add_argument("--n", type=whole(10, 1_000_000, "--n"), default=3000, help="memories in the store (default 3000)")
    parser.add_argument("--pool", type=whole(1, 100_000, "--pool"), default=300, help="texts embedded for real with MiniLM (default 300)")
    parser.add_argument("--seed", type=seed, default=7)
    parser.add_argument("--all", action="store_true",
                        help="the whole fault suite at small sizes (kills, forget-vs-tidy-up races, bad inputs, server "
                             "misbehaviours): --kills 5 --n 400 unless given; see assistant/bench/faults_all.py")
    parser.add_argument("--races", type=whole(0, 1000, "--races"), default=20, help="--all / --races-only: forget-vs-tidy-up races (default 20)")
    parser.add_argument("--races-only", action="store_true",
                        help="only the forget-vs-tidy-up races: false 'damaged' reports, forgets that did not complete")
    parser.add_argument("--engine-timeout", type=float, default=3.0, help="--all: engine_timeout of the server trials (default 3 s)")


def _cli(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def _rolled_back(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Run id -> what its rollback took back, for every run rolled back after an interruption
    (on the store's open or by a run; :mod:`assistant.memory.consolidation.recover`)."""
    out = _cli(env, "consolidate", "runs", "--limit", "100", "--json")
    rows = json.loads(out.stdout) if out.returncode == 0 else []
    return {r["run_id"]: r["details"].get("rolled_back") or {} for r in rows if r.get("state") == "rolled back"}


def _check(db: Path, key: str) -> tuple[str, dict[str, int]]:
    from assistant.memory.store.facade import MemoryStore  # deferred: the store (SQLCipher, numpy)

    store = MemoryStore(db, key=key)
    try:
        return store_digest(store.conn, ts_to_db(store.now())), ownership_problems(store.conn)
    finally:
        store.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    from assistant.bench.consolidate import build_home  # deferred: numpy

    if getattr(args, "races_only", False):
        from assistant.bench import faults_all

        result = faults_all.races(args.races, args.services.profile.paths.models, args.seed)
        result["suite"] = "races"
        return result
    if getattr(args, "all", False):
        from assistant.bench import faults_all

        args.all = False  # the kill rounds below, at the suite's small sizes
        if args.kills == 25:
            args.kills = 5
        if args.n == 3000:
            args.n, args.pool = 400, 100
        result = faults_all.run_all(args)
        result["suite"] = "all"
        return result

    rng = random.Random(args.seed)
    key = secrets.token_hex(32)
    home, env, info = build_home("keepsake-bench-faults-", args.n, args.pool, args.seed, key, args.services.profile.paths.models)
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"  # the CLI never touches the OS keyring
    db = (home / "data" / "keepsake.db").resolve()
    keys._write_key_file(home / "config" / "db.key", {str(db): key})  # where the CLI finds it
    try:
        return _rounds(args, rng, env, db, key, info)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _rounds(args: argparse.Namespace, rng: random.Random, env: dict[str, str], db: Path, key: str,
            info: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    before, _ = _check(db, key)
    t0 = time.perf_counter()
    base = _cli(env, "consolidate", "--json")
    wall = time.perf_counter() - t0
    if base.returncode != 0:
        raise RuntimeError(f"baseline consolidate failed: {base.stderr[-2000:]}")
    baseline = json.loads(base.stdout)
    undo = _cli(env, "consolidate", "undo", baseline["run_id"])
    after_undo, problems = _check(db, key)
    rounds: list[dict[str, Any]] = []
    for i in range(args.kills):
        before, _ = _check(db, key)
        known = _rolled_back(env)  # before the round (listing runs opens the store: it is a start too)
        delay = rng.uniform(0.0, 1.1 * wall)
        proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "consolidate", "--json"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            proc.wait(timeout=delay)
            killed = False
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            killed = True
        out, _err = proc.communicate()
        finished_id = json.loads(out)["run_id"] if not killed and proc.returncode == 0 and out.strip() else None
        nxt = _cli(env, "consolidate", "--dry-run", "--json")  # the next start (its open rolls back a killed run)
        rolled = [r for rid, r in _rolled_back(env).items() if rid not in known] if nxt.returncode == 0 else []
        digest, owned = _check(db, key)
        outcome = "rolled back" if rolled else ("finished" if finished_id else "not started")
        undo_ok = None
        if finished_id is None:
            # a run killed during its final write may have committed "finished": then it is undone like any run
            runs = json.loads(_cli(env, "consolidate", "runs", "--limit", "3", "--json").stdout)
            finished_id = next((r["run_id"] for r in runs if r["status"] == "finished" and not r["dry_run"] and not r["undone"]), None)
            outcome = "finished" if finished_id else outcome
        if finished_id:
            undo_ok = _cli(env, "consolidate", "undo", finished_id).returncode == 0
            digest, owned = _check(db, key)
        rounds.append({"round": i, "delay_s": round(delay, 3), "killed": killed, "outcome": outcome,
                       "changes_rolled_back": sum(r.get("versions", 0) + r.get("unlinked", 0) + r.get("facts_removed", 0) for r in rolled),
                       "exact": digest == before, "undo_ok": undo_ok, **owned})  # fmt: skip
    return {
        "n": args.n, "kills": args.kills, "store": info, "run_wall_s": round(wall, 2),
        "baseline": {"applied": baseline["applied"], "undo_rc": undo.returncode, "undo_exact": after_undo == before, **problems},
        "rounds": rounds,
        "killed": sum(r["killed"] for r in rounds),
        "rolled_back": sum(r["outcome"] == "rolled back" for r in rounds),
        "finished_then_undone": sum(r["outcome"] == "finished" for r in rounds),
        "not_started": sum(r["outcome"] == "not started" for r in rounds),
        "left_running": sum(r["running"] for r in rounds),
        "unowned_changes": sum(r["audit"] + r["memories"] for r in rounds),
        "inexact": sum(not r["exact"] for r in rounds),
        "undo_failed": sum(r["undo_ok"] is False for r in rounds),
    }  # fmt: skip


def format_text(result: dict[str, Any]) -> str:
    if result.get("suite") == "races":
        from assistant.bench import faults_all

        return faults_all.race_text(result)
    if result.get("suite") == "all":
        from assistant.bench import faults_all

        return faults_all.format_text(result)
    ok = result["left_running"] == 0 and result["unowned_changes"] == 0 and result["inexact"] == 0 and result["undo_failed"] == 0
    return (
        f"consolidate SIGKILLed {result['killed']} of {result['kills']} times on {result['store']['memories']} memories "
        f"(one run: {result['run_wall_s']} s incl. process start)\n"
        f"outcomes: {result['rolled_back']} rolled back by the next start, {result['finished_then_undone']} finished "
        f"(then undone), {result['not_started']} killed before the run was recorded\n"
        f"left running: {result['left_running']}; changes no run owns: {result['unowned_changes']}; store not exactly "
        f"as before: {result['inexact']}; undo failures: {result['undo_failed']} -> {'ok' if ok else 'FAILED'}"
    )
