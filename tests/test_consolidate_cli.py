"""`keepsake consolidate [--dry-run] [--json]`, `consolidate undo RUN_ID`, `consolidate runs`,
`keepsake jobs status`."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from assistant.cli import main
from assistant.memory.records import Kind, Status
from assistant.memory.store.facade import MemoryStore
from assistant.config import paths
from consolidate_support import Speaker, dt, minilm  # noqa: F401 - fixtures


def _seed(minilm):
    store = MemoryStore(paths().database, embed=minilm.embed)  # the default database of this test's KEEPSAKE_HOME
    sp = Speaker(store)
    recent = datetime.now(timezone.utc) - timedelta(days=3)  # the CLI runs on the real clock: no decay
    ids = [sp.fact("The user prefers oat milk in coffee.", dt(2024, 5, 1), created=recent),
           sp.fact("User prefers oat milk in their coffee", dt(2024, 9, 1), created=recent)]  # fmt: skip
    sp.fact("User lives in Beijing.", dt(2024, 1, 10), kind=Kind.PROFILE, slot="home_city")
    sp.fact("User lives in Shanghai.", dt(2025, 3, 20), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2025, 3, 10))
    return store, ids


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_dry_run_lists_changes_with_reasons_and_changes_nothing(minilm, capsys):
    store, ids = _seed(minilm)
    data = _json(capsys, ["consolidate", "--dry-run", "--json"])
    assert data["dry_run"] is True and data["proposed"] == {"duplicate": 1, "conflict": 1}
    types = sorted(c["type"] for c in data["changes"])
    assert types == ["invalidate", "merge"]
    assert all(c.get("reason") or c.get("reasons") for c in data["changes"])
    assert all(store.get(i).status is Status.ACTIVE for i in ids)
    assert main(["consolidate", "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "merge" in text and "invalidate" in text and "nothing was changed" in text


def test_apply_then_undo_then_runs_and_jobs_status(minilm, capsys):
    store, ids = _seed(minilm)
    data = _json(capsys, ["consolidate", "--json"])
    run_id = data["run_id"]
    assert data["applied"] == {"duplicate": 1, "conflict": 1}
    assert sorted(store.get(i).status.value for i in ids) == ["active", "archived"]
    assert main(["consolidate"]) == 0  # second run: nothing left to do
    assert "changed nothing" in capsys.readouterr().out
    runs = _json(capsys, ["consolidate", "runs", "--json"])
    assert [r["run_id"] for r in runs][1] == run_id and runs[1]["counts"] == {"duplicate": 1, "conflict": 1}
    undone = _json(capsys, ["consolidate", "undo", run_id, "--json"])
    assert undone["run_id"] == run_id and undone["versions"] == 2 and undone["unlinked"] == 2
    assert all(store.get(i).status is Status.ACTIVE for i in ids)
    assert main(["consolidate", "undo", run_id]) == 2  # already undone: a clear error
    assert "already undone" in capsys.readouterr().err
    status = _json(capsys, ["jobs", "status", "--json"])
    assert status["running"] is False and status["last_run"]["trigger"] == "cli"
    assert status["nightly_hour"] == 3 and status["next_nightly"]
    assert main(["jobs", "status"]) == 0
    assert "next nightly run" in capsys.readouterr().out


def test_undo_of_an_unknown_run_is_a_user_error(minilm, capsys):
    _seed(minilm)
    assert main(["consolidate", "undo", "c-nope", "--json"]) == 2
    assert "no consolidation run" in json.loads(capsys.readouterr().out)["error"]


def test_facts_a_cli_run_creates_have_vectors_and_vector_search_finds_them(minilm, capsys):
    """Issue 26.6: 25 of 38 facts of a CLI `consolidate` had no vector (the CLI opened the store
    without its embedder). Repeated episodes become a fact in the third person (text of no
    episode, so no vector to reuse); right after the run it is a nearest neighbour of its topic
    by the real MiniLM over sqlite-vec, and in the FTS index."""
    store = MemoryStore(paths().database, embed=minilm.embed)
    sp = Speaker(store)
    recent = datetime.now(timezone.utc) - timedelta(days=3)
    sp.fact("I play tennis with Marco every Sunday.", dt(2024, 3, 3), kind=Kind.EPISODE, created=recent)
    sp.fact("Every Sunday I play tennis with Marco.", dt(2024, 9, 8), kind=Kind.EPISODE, created=recent)
    store.close()
    data = _json(capsys, ["consolidate", "--json"])
    assert data["applied"].get("consolidate") == 1 and data["stats"]["new_vectors"]["missing"] == 0
    store = MemoryStore(paths().database, embed=minilm.embed)
    [new] = [e.memory_id for e in store.audit(run_id=data["run_id"]) if e.action == "add"]
    assert store.get(new).text.startswith("User plays tennis")  # no episode's words: no vector to reuse
    assert store.missing_vectors() == []
    import struct

    q = struct.pack("384f", *minilm.embed(["Who does the user play tennis with on Sundays?"])[0])
    near = [r[0] for r in store.conn.execute("SELECT rowid FROM memory_vec WHERE embedding MATCH ? AND k = 3 ORDER BY distance", (q,))]
    assert new in near
    fts = [r[0] for r in store.conn.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'marco'")]
    assert new in fts
    store.close()
