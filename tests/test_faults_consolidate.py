"""A consolidation run is all or nothing (issue 19.1).

A run killed (SIGKILL: no cleanup at all) at any point is rolled back by the next start, never
left "running"; no change is left that no run owns; a run that finished is undone exactly; a
run that raises rolls itself back; a stale "running" row is told apart from a live one.

The store is the ``bench consolidate`` mix (duplicates, contradictions, episodes, decay and TTL
candidates) built once per module with the real MiniLM for a small pool of texts.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from store_fakes import TEST_KEY

from assistant.bench.faults import ownership_problems, store_digest
from assistant.config import Settings
from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator, list_runs, undo
from assistant.memory.consolidation import owner as owner_mod
from assistant.memory.consolidation import runs as runs_mod
from assistant.memory.consolidation.owner import Owner, is_alive
from assistant.memory.consolidation.undo import AlreadyUndone
from assistant.memory.times import ts_to_db
from assistant.memory.store.facade import MemoryStore

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="fork + SIGKILL are POSIX")
KILLS = int(os.environ.get("KEEPSAKE_FAULT_KILLS", "10"))


@pytest.fixture(scope="module")
def template(tmp_path_factory, converted_embedder_path, session_home) -> Path:
    """A ~600-memory store (explicit test key), built once; tests work on copies."""
    from assistant.bench.consolidate import build

    home = tmp_path_factory.mktemp("faults-template")
    old = os.environ.get("KEEPSAKE_HOME")
    os.environ["KEEPSAKE_HOME"] = str(session_home)  # where the converted MiniLM lives
    try:
        build(home, 600, 60, 11, TEST_KEY)
    finally:
        if old is None:
            os.environ.pop("KEEPSAKE_HOME", None)
        else:
            os.environ["KEEPSAKE_HOME"] = old
    return home / "data" / "keepsake.db"


@pytest.fixture
def db(template, tmp_path) -> Path:
    path = tmp_path / "keepsake.db"
    shutil.copy(template, path)
    return path


def _open(db: Path) -> MemoryStore:
    return MemoryStore(db, key=TEST_KEY)


def _look(db: Path) -> tuple[str, dict[str, int]]:
    store = _open(db)
    try:
        return store_digest(store.conn, ts_to_db(store.now())), ownership_problems(store.conn)
    finally:
        store.close()


def _fork(fn) -> int:
    """Run ``fn()`` in a forked child that never returns into pytest."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            fn()
            code = 0
        finally:
            os._exit(code)
    return pid


def _child_run(db: Path, die_at_batch: int | None = None) -> None:
    """A consolidation run in this (child) process; ``die_at_batch``: end the process right
    there, inside that batch's transaction, as abruptly as a kill (``os._exit``: no cleanup)."""
    if die_at_batch is not None:
        real = runs_mod.heartbeat
        seen = [0]

        def heartbeat(c, run_id, now):
            seen[0] += 1
            if seen[0] == die_at_batch:
                os._exit(9)
            real(c, run_id, now)

        runs_mod.heartbeat = heartbeat
    Consolidator(_open(db)).run(trigger="test")


@posix_only
def test_a_run_killed_mid_apply_is_rolled_back_by_the_next_start(db):
    before, clean = _look(db)
    assert clean == {"audit": 0, "memories": 0, "running": 0}
    pid = _fork(lambda: _child_run(db, die_at_batch=6))  # 5 batches committed, the 6th never
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 9
    store = _open(db)
    [row] = list_runs(store)
    assert row.status == "running" and row.state(store.now()) == "interrupted"  # its process is gone
    assert store_digest(store.conn, ts_to_db(store.now())) != before  # half-applied right now
    from assistant.jobs import status_from_store

    st = status_from_store(store, Settings())
    assert not st.running and st.interrupted == 1
    report = Consolidator(store).run(dry_run=True)  # the next start
    [recovered] = report.recovered
    assert recovered.run_id == row.run_id and recovered.report.versions > 0
    assert store_digest(store.conn, ts_to_db(store.now())) == before  # exactly as before the run
    assert ownership_problems(store.conn) == {"audit": 0, "memories": 0, "running": 0}
    rec = runs_mod.get_run(store, row.run_id)
    assert rec.status == "failed" and rec.undone and rec.interrupted and rec.state(store.now()) == "rolled back"
    with pytest.raises(AlreadyUndone, match="rolled back"):
        undo(store, row.run_id)
    store.close()


@posix_only
def test_undo_of_a_stale_run_rolls_it_back_and_the_cli_says_so(db, monkeypatch, capsys):
    before, _ = _look(db)
    pid = _fork(lambda: _child_run(db, die_at_batch=3))
    os.waitpid(pid, 0)
    store = _open(db)
    [row] = list_runs(store)
    store.close()
    from assistant.cli import main

    monkeypatch.setattr("assistant.services.Services.open_store", lambda *a, **k: _open(db))
    assert main(["consolidate", "runs"]) == 0
    assert "interrupted (the next start of Keepsake rolls it back)" in capsys.readouterr().out
    assert main(["consolidate", "undo", row.run_id]) == 0
    assert f"run {row.run_id} had been interrupted; rolled back:" in capsys.readouterr().out
    assert _look(db) == (before, {"audit": 0, "memories": 0, "running": 0})


def test_a_run_that_raises_while_applying_rolls_itself_back(db, monkeypatch):
    import assistant.memory.consolidation.apply as apply_mod

    before, _ = _look(db)
    real, calls = apply_mod.apply_one, [0]

    def flaky(*a, **k):
        calls[0] += 1
        if calls[0] == 70:  # past two committed batches
            raise KeyboardInterrupt  # escapes the per-change handler, like Ctrl-C in the CLI
        return real(*a, **k)

    monkeypatch.setattr(apply_mod, "apply_one", flaky)
    store = _open(db)
    with pytest.raises(KeyboardInterrupt):
        Consolidator(store, config=ConsolidationConfig(batch_max=32)).run()
    [row] = list_runs(store)
    assert row.status == "failed" and row.undone and row.interrupted and "KeyboardInterrupt" in row.details["error"]
    assert row.details["rolled_back"]["versions"] > 0
    assert store_digest(store.conn, ts_to_db(store.now())) == before
    assert ownership_problems(store.conn) == {"audit": 0, "memories": 0, "running": 0}
    store.close()


def test_a_finished_run_is_undone_exactly_and_owns_every_change(db):
    before, _ = _look(db)
    store = _open(db)
    report = Consolidator(store).run()
    # the mix gives every kind of change, TTL purges included (they stay done)
    assert {"duplicate", "conflict", "consolidate", "decay", "ttl"} <= set(report.applied)
    assert ownership_problems(store.conn) == {"audit": 0, "memories": 0, "running": 0}
    purges = [e for e in store.audit(run_id=report.run_id) if e.action == "purge_ttl"]
    assert len(purges) == report.applied["ttl"]  # written with the deletion, carrying the run id
    u = undo(store, report.run_id)
    assert u.not_undoable == report.applied["ttl"]
    assert store_digest(store.conn, ts_to_db(store.now())) == before
    store.close()


@posix_only
def test_a_live_run_holds_the_lock_and_a_dead_one_does_not(db):
    store = _open(db)
    now = store.now()
    # a live process (our parent) "runs" consolidation: a second applying run is refused
    parent = Owner(Owner.current().host, Owner.current().boot, os.getppid(), owner_mod._start_ticks(os.getppid()))
    store.write(lambda c: c.execute(
        "INSERT INTO consolidation_runs(run_id, trigger, dry_run, status, started_at, details) VALUES (?,?,?,?,?,?)",
        ("c-live", "idle", 0, "running", ts_to_db(now), f'{{"owner": {__import__("json").dumps(parent.to_json())}, "heartbeat": "{ts_to_db(now)}"}}'),
    ))  # fmt: skip
    with pytest.raises(runs_mod.RunInProgress, match="c-live"):
        Consolidator(store).run()
    assert Consolidator(store).run(dry_run=True).dry_run  # a preview changes nothing: allowed
    assert runs_mod.get_run(store, "c-live").status == "running"  # a live run is never rolled back
    # the same row owned by a process that has exited is stale and cleared by the next start
    pid = _fork(lambda: None)
    os.waitpid(pid, 0)
    dead = Owner(parent.host, parent.boot, pid, parent.started)
    store.write(lambda c: c.execute("UPDATE consolidation_runs SET details = json_set(details, '$.owner', json(?)) WHERE run_id = 'c-live'",
                                    (__import__("json").dumps(dead.to_json()),)))  # fmt: skip
    Consolidator(store).run(dry_run=True)
    assert runs_mod.get_run(store, "c-live").state(store.now()) == "rolled back"
    store.close()


def test_liveness_rules_worked_examples():
    from datetime import datetime, timedelta, timezone

    now = datetime(2025, 3, 25, 12, tzinfo=timezone.utc)
    me = Owner("host-a", "boot-1", 4242, 1000)
    # another boot of this host: every process of that boot is gone
    assert not is_alive(Owner("host-a", "boot-0", 4242, 1000), "r", now, now, me=me)
    # another host: only the heartbeat tells; fresh (29 min) -> alive, old (31 min) -> stale
    far = Owner("host-b", "boot-9", 17, 5)
    assert is_alive(far, "r", now - timedelta(minutes=29), now, me=me)
    assert not is_alive(far, "r", now - timedelta(minutes=31), now, me=me)
    # this very process: alive only while it executes the run
    assert not is_alive(me, "r", now, now, me=me)
    with owner_mod.executing("r"):
        assert is_alive(me, "r", now, now, me=me)
        with owner_mod.executing("r"):  # nested (a failed run rolling itself back)
            pass
        assert is_alive(me, "r", now, now, me=me)
    assert not is_alive(me, "r", now, now, me=me)
    # a row from before owners were recorded: the heartbeat decides
    assert not is_alive(None, "r", None, now, me=me)


@posix_only
def test_the_pid_of_a_reused_process_id_is_not_the_owner():
    me = Owner.current()
    if me.started is None:
        pytest.skip("process start times need /proc")
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc)
    parent = os.getppid()
    reused = Owner(me.host, me.boot, parent, (owner_mod._start_ticks(parent) or 0) + 1)  # same id, other start
    assert not is_alive(reused, "r", None, now)
    assert is_alive(Owner(me.host, me.boot, parent, owner_mod._start_ticks(parent)), "r", None, now)


def test_the_app_scheduler_rolls_back_interrupted_runs_when_it_starts(db):
    from assistant.jobs import ConsolidationJobs

    store = _open(db)
    before = store_digest(store.conn, ts_to_db(store.now()))
    now = store.now()
    gone = Owner("another-host", None, 1, None)  # heartbeat 2 h old: stale
    old = ts_to_db(now.replace(year=now.year - 1))
    store.write(lambda c: c.execute(
        "INSERT INTO consolidation_runs(run_id, trigger, dry_run, status, started_at, details) VALUES (?,?,?,?,?,?)",
        ("c-old", "idle", 0, "running", old, f'{{"owner": {__import__("json").dumps(gone.to_json())}, "heartbeat": "{old}"}}'),
    ))  # fmt: skip
    jobs = ConsolidationJobs(store, idle_seconds=3600, nightly_hour=None, check_interval=3600).start()
    try:
        deadline = time.monotonic() + 60
        while runs_mod.get_run(store, "c-old").status == "running" and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        jobs.shutdown()
    assert runs_mod.get_run(store, "c-old").state(store.now()) == "rolled back"
    assert store_digest(store.conn, ts_to_db(store.now())) == before
    store.close()


@pytest.mark.slow
@posix_only
def test_sigkill_consolidation_at_random_moments(db):
    """KEEPSAKE_FAULT_KILLS rounds (default 10; `keepsake bench faults` does 25 on 3,000
    memories through the real CLI): kill a run at a random moment, start the next one."""
    rng = random.Random(19)
    # one unkilled run gives the duration to aim in; it is undone
    t0 = time.perf_counter()
    pid = _fork(lambda: _child_run(db))
    os.waitpid(pid, 0)
    wall = time.perf_counter() - t0
    store = _open(db)
    [first] = list_runs(store)
    assert first.status == "finished"
    undo(store, first.run_id)
    store.close()
    outcomes = {"rolled back": 0, "finished": 0, "not started": 0}
    changed_rollbacks = 0
    for i in range(KILLS):
        before, _ = _look(db)
        pid = _fork(lambda: _child_run(db))
        time.sleep(wall * (0.1 + 0.9 * (i + rng.random()) / KILLS))  # spread over the whole run
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        store = _open(db)
        known = {r.run_id for r in list_runs(store, limit=None)}
        report = Consolidator(store).run(dry_run=True)  # the next start
        latest = [r for r in list_runs(store, limit=None) if not r.dry_run and r.run_id in known]
        assert ownership_problems(store.conn) == {"audit": 0, "memories": 0, "running": 0}, f"round {i}"
        if report.recovered:
            outcomes["rolled back"] += 1
            changed_rollbacks += any(r.report.versions for r in report.recovered)
        elif latest and latest[0].status == "finished" and not latest[0].undone:
            outcomes["finished"] += 1
            undo(store, latest[0].run_id)  # undo works for every finished run
        else:
            outcomes["not started"] += 1
        assert store_digest(store.conn, ts_to_db(store.now())) == before, f"round {i}: not exactly as before"
        store.close()
    print(f"\n{KILLS} kills: {outcomes}, {changed_rollbacks} rollbacks of half-applied runs")
    assert changed_rollbacks >= 1, outcomes  # the kills did land mid-apply
