"""Impossible inputs are clear errors that lose nothing (issue 26): a bare number is not a date
(dateparser read ``--valid-at -1`` as 2026-01-03), and a database file truncated to 0 bytes is
refused instead of silently replaced by a new, empty one."""

from __future__ import annotations

import pytest
from store_fakes import FakeEmbedder, run_cli

from assistant.config import paths
from assistant.services import Services


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    monkeypatch.setattr(Services, "embedder", lambda self: FakeEmbedder())


@pytest.mark.parametrize("value", ["-1", "+3", "1.5", "10", "12345"])
def test_a_bare_number_is_not_a_date(capsys, value):
    code, out, err = run_cli(capsys, "memory", "add", "I moved to Lyon.", "--valid-at", value)
    assert code == 2 and "cannot understand the date" in err
    code, out, _ = run_cli(capsys, "memory", "list", "--all")
    assert "Lyon" not in out  # nothing was stored


def test_a_year_and_a_date_still_are(capsys):
    assert run_cli(capsys, "memory", "add", "I moved to Lyon.", "--valid-at", "2024")[0] == 0
    assert run_cli(capsys, "memory", "add", "I moved to Porto.", "--valid-at", "2024-05-01")[0] == 0


def test_a_zero_byte_database_with_a_key_is_refused_not_replaced(capsys):
    assert run_cli(capsys, "memory", "add", "I like tea.")[0] == 0
    db = paths().database
    db.write_bytes(b"")  # truncated (a crash mid-copy, a sync tool)
    for suffix in ("-wal", "-shm"):
        p = db.with_name(db.name + suffix)
        if p.exists():
            p.unlink()
    code, out, err = run_cli(capsys, "memory", "list")
    assert code == 2 and "empty (0 bytes)" in err and "truncated" in err
    assert db.stat().st_size == 0  # nothing was written in its place
