"""`keepsake bench forget` runs (a small size; the figures themselves are never asserted)."""

from __future__ import annotations

import json

from assistant.cli import main


def test_bench_forget_json_reports_each_size(capsys):
    assert main(["bench", "forget", "--sizes", "90", "--repeat", "2", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["sizes"]
    assert row["memories"] == 90 and set(row) >= {"edit_ms", "delete_ms", "forget_preview_ms", "delete_session_ms", "delete_over_edit"}
    assert all(row[k] > 0 for k in ("edit_ms", "delete_ms", "forget_preview_ms", "delete_session_ms"))
