"""Import of hostile and large files (issue 19.5): per-line decoding, a capped problem list,
streaming without loading the file whole; restoring a Keepsake export with ``keepsake import``
(issue 17.3); progress on stderr also with --json (issue 14.6)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_import import no_embedder, store  # noqa: F401 - fixtures shared with the import tests

from assistant.cli import main
from assistant.config import load_settings
from assistant.memory.capture.importing.read import MAX_PROBLEMS
from assistant.memory.capture.importing.importers import import_file
from assistant.memory.capture.importing.json_stream import JsonStreamError, iter_array

EXPORT = Path(__file__).parent / "data" / "chatgpt_export" / "conversations.json"


def line(i: int, role: str = "user", content: str | None = None) -> bytes:
    rec = {"session": "s", "role": role, "content": content or f"I have {i} plants on my balcony.",
           "timestamp": f"2024-01-01T10:{i // 60:02d}:{i % 60:02d}Z"}  # fmt: skip
    return json.dumps(rec).encode() + b"\n"


# ----------------------------------------------------------------------------- JSONL, line by line

def test_one_bad_byte_is_a_problem_on_its_line_not_an_abort(store, tmp_path):
    lines = [line(i) for i in range(101)]
    lines[50] = lines[50].replace(b"plants", b"pl\xffnts")  # one byte that is not UTF-8
    path = tmp_path / "chats.jsonl"
    path.write_bytes(b"".join(lines))
    report = import_file(store, path, settings=load_settings)
    assert report.messages_added == 100
    # column: '{"session": "s", ' (17) + '"role": "user", ' (16) + '"content": "' (12) + 'I have 50 pl' (12) = 57 before it
    assert [(p.line, p.reason) for p in report.problems] == [(51, "not UTF-8 text (byte 0xff at column 58)")]
    assert report.problems_total == 1


def test_the_problem_list_is_capped_with_a_count(store, tmp_path, capsys, no_embedder):
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(b"".join([line(0)] + [b"{not json %d\n" % i for i in range(1000)]))
    report = import_file(store, path, settings=load_settings)
    # 1000 bad lines: the first 20 are kept with their reasons, the other 980 only counted
    assert (len(report.problems), report.problems_total, report.messages_added) == (MAX_PROBLEMS, 1000, 1)
    assert report.problems[0].line == 2 and report.problems[-1].line == 21
    assert main(["import", str(path), "--no-llm"]) == 0
    out = capsys.readouterr().out
    assert "1000 problem(s), skipped:" in out and "... and 980 more" in out
    assert out.count("invalid JSON") == 20


def test_a_line_longer_than_the_limit_is_skipped_unread(store, tmp_path, monkeypatch):
    from assistant.memory.capture.importing import read as import_read

    monkeypatch.setattr(import_read, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "chats.jsonl"
    path.write_bytes(line(0) + line(1, content="x" * 5000) + line(2))
    report = import_file(store, path, settings=load_settings)
    assert report.messages_added == 2 and [p.line for p in report.problems] == [2]
    assert "longer than" in report.problems[0].reason


def _peak_rss_growth_mb(tmp_path: Path, path: Path) -> dict:
    """Import ``path`` in a fresh Python process (no models) and report its peak RSS growth."""
    code = f"""
import json, resource
from assistant.config import Settings
from assistant.memory.capture.capturer import Capturer
from assistant.memory.capture.importing.importers import import_file
from assistant.memory.store.facade import MemoryStore
store = MemoryStore({str(tmp_path / 'rss.db')!r}, encrypted=False)
cap = Capturer(store, use_llm=False, settings=Settings())
import_file(store, {str(tmp_path / 'warm.jsonl')!r}, capturer=cap)  # imports and first use done
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = import_file(store, {str(path)!r}, capturer=cap)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"growth_mb": (after - before) / 1024, "problems": report.problems_total,
                   "shown": len(report.problems), "messages": report.messages_added}}))
"""
    (tmp_path / "warm.jsonl").write_bytes(line(0) + b"{bad\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(), timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_large_garbage_file_streams_in_little_memory(tmp_path):
    """24 MB of garbage lines (~400k problems): nothing is held per line, so the peak RSS of the
    importing process grows by far less than the file (the old reader kept every problem: a 50 MB
    file took 717 MB)."""
    path = tmp_path / "garbage.jsonl"
    block = b"".join(b"garbage line %06d \xfe\xff not json at all\n" % i for i in range(10_000))
    with open(path, "wb") as f:
        for _ in range(60):
            f.write(block)
    size_mb = path.stat().st_size / 2**20
    r = _peak_rss_growth_mb(tmp_path, path)
    assert (r["problems"], r["shown"], r["messages"]) == (600_000, MAX_PROBLEMS, 0)
    assert size_mb > 20 and r["growth_mb"] < 16, r


def test_a_large_chatgpt_export_is_read_one_conversation_at_a_time(tmp_path):
    """A 20+ MB conversations.json: one conversation is parsed at a time (peak RSS grows far less
    than the file), and every message arrives."""
    conv = json.loads(EXPORT.read_text())[1]  # "pets": 1 user + 1 assistant message on the main branch
    filler = "lorem ipsum " * 2000  # 24 KB of hidden system text per conversation
    items = []
    for i in range(1000):
        c = json.loads(json.dumps(conv))
        c["id"] = c["conversation_id"] = f"conv-{i}"
        c["mapping"]["sys"] = {"id": "sys", "message": {"id": "sys", "author": {"role": "system"},
                               "content": {"content_type": "text", "parts": [filler]}}, "parent": None, "children": []}  # fmt: skip
        items.append(json.dumps(c))
    path = tmp_path / "conversations.json"
    path.write_text("[" + ",\n".join(items) + "]")
    r = _peak_rss_growth_mb(tmp_path, path)
    assert path.stat().st_size > 20 * 2**20
    assert r["messages"] == 2000 and r["problems"] == 0
    assert r["growth_mb"] < 16, r


# ----------------------------------------------------------------------------- the JSON array reader

def test_iter_array_reads_across_tiny_chunks():
    data = ('\ufeff[ {"a": "ünïcode \\u00e9 \\"q\\""}, [1, 2], {"b": {"c": [3]}} ,"x" ]').encode()
    pos = 0

    def read(n: int) -> bytes:  # 3 bytes at a time, whatever is asked: every boundary is hit
        nonlocal pos
        chunk = data[pos : pos + 3]
        pos += len(chunk)
        return chunk

    assert list(iter_array(read)) == [{"a": 'ünïcode é "q"'}, [1, 2], {"b": {"c": [3]}}, "x"]


@pytest.mark.parametrize("text, where", [
    ('[{"a": 1}\n {"b": 2}]', (2, 2)),  # missing comma
    ('[{"a": 1},\n {"b": }]', (2, 8)),  # json.loads says the same: line 2 column 8
    ('{"a": 1}', (1, 1)),  # not a list
    ('[{"a": 1}, {"b": 2}', (1, 20)),  # the file ends inside the list
])
def test_iter_array_names_the_line_and_column_of_bad_json(text, where):
    with pytest.raises(JsonStreamError) as err:
        list(iter_array(_reader(text.encode())))
    assert (err.value.line, err.value.column) == where


def _reader(data: bytes):
    pos = 0

    def read(n: int) -> bytes:
        nonlocal pos
        chunk = data[pos : pos + n]
        pos += len(chunk)
        return chunk

    return read


def test_iter_array_replaces_and_reports_bytes_that_are_not_utf8():
    bad: list[int] = []
    items = list(iter_array(_reader(b'[{"t": "caf\xe9"}, {"t": "ok"}]'), on_bad_text=bad.append))
    assert items == [{"t": "caf\ufffd"}, {"t": "ok"}] and bad == [0]


# ----------------------------------------------------------------------------- CLI

def test_import_json_shows_progress_on_stderr(tmp_path, capsys, no_embedder):
    assert main(["import", str(EXPORT), "--json", "--no-llm"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)  # stdout stays one JSON document
    assert report["messages_added"] == 6 and report["captured"] == 3 and report["user_messages"] == 3
    assert "importing [" in err and "100%" in err


def run_json(capsys, *args: str):
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_keepsake_export_round_trips_through_import(tmp_path, capsys, monkeypatch, no_embedder):
    """``keepsake export f.json`` in one profile, ``keepsake import f.json`` in a fresh one: the same
    memories (ids, texts, versions, valid_at, invalid_at), sessions and messages."""
    run_json(capsys, "import", str(EXPORT), "--no-llm")
    tea = run_json(capsys, "memory", "add", "User likes tea.")["id"]
    lyon = next(m["id"] for m in run_json(capsys, "memory", "list") if m["kind"] == "profile")
    run_json(capsys, "memory", "edit", str(tea), "User likes green tea.")  # version 2
    run_json(capsys, "memory", "invalidate", str(lyon), "--at", "2024-05-01")
    export = tmp_path / "f.json"
    run_json(capsys, "export", str(export))

    def snapshot() -> list:
        rows = run_json(capsys, "memory", "list", "--all")
        return sorted((m["id"], m["text"], m["version"], m["valid_at"], m["invalid_at"], m["kind"]) for m in rows)

    def messages() -> list:
        return sorted((s["title"], m["role"], m["content"], m["observed_at"]) for s in run_json(capsys, "sessions", "list")
                      for m in run_json(capsys, "sessions", "show", str(s["id"]))["messages"])  # fmt: skip

    before, said = snapshot(), messages()
    assert any(row[2] == 2 for row in before) and any(row[4] for row in before)  # an edit and an invalidation
    monkeypatch.setenv("KEEPSAKE_HOME", str(tmp_path / "fresh"))
    assert run_json(capsys, "memory", "list", "--all") == []  # a fresh profile
    restored = run_json(capsys, "import", str(export))
    assert restored["format"] == "keepsake" and restored["errors"] == []
    assert snapshot() == before and messages() == said
    assert run_json(capsys, "import", str(export))["memories_added"] == 0  # idempotent
    assert snapshot() == before


def test_bench_import_runs_and_reports_its_rate(capsys, converted_embedder_path):
    """`keepsake bench import` on a small conversation (the rate itself is never asserted)."""
    assert main(["bench", "import", "--user-messages", "12", "--no-baseline", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["user_messages"] == 12 and out["messages_added"] == 24 and out["user_messages_per_s"] > 0
