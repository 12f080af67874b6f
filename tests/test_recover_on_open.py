"""A consolidation run killed by SIGKILL mid-apply is rolled back when the store is next opened
(issue 26.6), not at the next run: search and chat never see its half-applied state. The
rollback is logged once (a warning) and shown by `keepsake doctor`. Real SQLCipher store; the
child process kills itself with SIGKILL inside its 3rd apply batch (2 committed)."""

from __future__ import annotations

import logging
import os
import signal
import sys

import pytest

from assistant.bench.faults import logical_state
from assistant.memory.consolidation import runs as runs_mod
from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator, list_runs
from assistant.memory.store.facade import MemoryStore
from assistant.config import paths
from consolidate_support import Speaker, dt, minilm  # noqa: F401 - fixtures
from assistant.memory.records import Kind


def _killed_run(db) -> None:
    """In a forked child: a run with one change per batch that SIGKILLs itself in batch 3."""
    real, seen = runs_mod.heartbeat, [0]

    def heartbeat(c, run_id, now):
        seen[0] += 1
        if seen[0] == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        real(c, run_id, now)

    runs_mod.heartbeat = heartbeat
    Consolidator(MemoryStore(db), config=ConsolidationConfig(batch_max=1)).run(trigger="test")


@pytest.mark.skipif(sys.platform == "win32", reason="fork + SIGKILL are POSIX")
def test_a_killed_run_is_rolled_back_when_the_store_opens(minilm, services, caplog):
    db = paths().database
    store = MemoryStore(db, embed=minilm.embed)
    sp = Speaker(store)
    sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1))
    sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1))
    sp.fact("User lives in Beijing.", dt(2024, 1, 10), kind=Kind.PROFILE, slot="home_city")
    sp.fact("User lives in Shanghai.", dt(2025, 3, 20), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2025, 3, 10))
    sp.fact("I play tennis with Marco every Sunday.", dt(2024, 3, 3), kind=Kind.EPISODE)
    sp.fact("Every Sunday I play tennis with Marco.", dt(2024, 9, 8), kind=Kind.EPISODE)
    before = logical_state(store.conn)
    store.close()
    pid = os.fork()
    if pid == 0:
        try:
            _killed_run(db)
        finally:
            os._exit(0)  # only reached when the kill did not happen
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    raw = MemoryStore(db)  # what a kill leaves: a 'running' row and two batches applied
    [row] = list_runs(raw)
    assert row.status == "running" and logical_state(raw.conn) != before
    raw.close()

    with caplog.at_level(logging.WARNING):
        opened = services.open_store(with_embedder=False)  # what every command and the app do
    rec = runs_mod.get_run(opened, row.run_id)
    assert rec.state(opened.now()) == "rolled back" and rec.details["recovered_on"] == "open"
    assert logical_state(opened.conn) == before  # nothing of the half-applied run is left
    opened.close()
    warnings = [r for r in caplog.records if row.run_id in r.getMessage()]
    assert len(warnings) == 1 and "rolled back on open" in warnings[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        services.open_store(with_embedder=False).close()  # opened again: nothing more to say
    assert not [r for r in caplog.records if row.run_id in r.getMessage()]

    from assistant.doctor import run_checks

    [check] = [c for c in run_checks(services.profile)["checks"] if c["name"] == "database"]
    assert check["ok"] and f"last interrupted tidy-up run {row.run_id} was rolled back on open" in check["detail"]
    assert check["rolled_back_run"]["run_id"] == row.run_id
