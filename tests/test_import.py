"""Importing past chats: Keepsake JSONL and a ChatGPT export (json and zip), idempotent, bad
lines reported and skipped, original timestamps kept so dates ground to their own day."""

from __future__ import annotations

import json
import random
import shutil
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.memory.capture.capturer import Capturer
from assistant.memory.capture.importing.read import Problems, open_export
from assistant.memory.capture.importing.importers import ImportFormatError, import_file
from assistant.memory.records import Kind, Trust
from assistant.memory.store.facade import MemoryStore
from assistant.config import load_settings

UTC = timezone.utc
EXPORT = Path(__file__).parent / "data" / "chatgpt_export" / "conversations.json"


@pytest.fixture
def store(tmp_path):
    s = MemoryStore(tmp_path / "m.db")
    yield s
    s.close()


def write_jsonl(path: Path, lines: list) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def counts(store) -> tuple:
    c = store.conn
    return tuple(c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                 for t in ("sessions", "messages", "memories", "memory_sources", "audit_log"))  # fmt: skip


JSONL = [
    {"session": "trip", "role": "user", "content": "I went to Paris last week.", "timestamp": "2023-05-22T12:00:00Z"},
    {"session": "trip", "role": "assistant", "content": "How was it?", "timestamp": "2023-05-22T12:00:05Z"},
    {"session": "trip", "role": "user", "content": "Lovely. I live in Lyon.", "timestamp": "not-a-date"},
    "{this is not json",
    {"session": "work", "role": "user", "content": "I work at Renault as an engineer.", "timestamp": "2024-02-01T09:00:00+01:00"},
    {"session": "work", "role": "robot", "content": "beep", "timestamp": "2024-02-01T09:00:01+01:00"},
    {"session": "work", "role": "assistant", "content": "Nice!", "timestamp": "2024-02-01T09:00:02"},
]


def test_jsonl_import_reports_bad_lines_and_imports_the_rest(store, tmp_path):
    path = write_jsonl(tmp_path / "chats.jsonl", JSONL)
    seen = []
    report = import_file(store, path, progress=seen.append, settings=load_settings)
    assert [(p.line, p.reason.split(" (")[0]) for p in report.problems] == [
        (3, "bad timestamp 'not-a-date'"), (4, "invalid JSON"), (6, "bad role 'robot'")]
    assert (report.sessions_added, report.messages_added, report.captured) == (2, 4, 2)
    assert (seen[0].messages, seen[0].fraction) == (0, 0.0) and (seen[-1].messages, seen[-1].fraction) == (4, 1.0)
    trip = store.find_session(next(s.external_id for s in store.list_sessions() if s.title == "trip"))
    msgs = store.messages(trip.id)
    assert [m.observed_at for m in msgs] == [datetime(2023, 5, 22, 12, 0, tzinfo=UTC), datetime(2023, 5, 22, 12, 0, 5, tzinfo=UTC)]
    assert trip.external_id.startswith("import:jsonl:")
    mems = store.list(include_all=True)
    assert mems and {m.trust for m in mems} == {Trust.IMPORTED}
    assert "User works at Renault." in [m.text for m in mems]
    assert "Lovely. I live in Lyon." not in [m.text for m in mems]  # the bad line was skipped


def test_reimport_adds_nothing(store, tmp_path):
    path = write_jsonl(tmp_path / "chats.jsonl", JSONL)
    import_file(store, path, settings=load_settings)
    before = counts(store)
    again = import_file(store, path, settings=load_settings)
    assert (again.sessions_added, again.messages_added, again.memories_added, again.messages_existing) == (0, 0, 0, 4)
    assert counts(store) == before


def test_appended_messages_join_their_session(store, tmp_path):
    path = write_jsonl(tmp_path / "chats.jsonl", JSONL[:2])
    import_file(store, path, settings=load_settings)
    write_jsonl(path, JSONL[:2] + [{"session": "trip", "role": "user", "content": "I drive a Ferrari 488 GTB.",
                                    "timestamp": "2023-05-23T08:00:00Z"}])  # fmt: skip
    report = import_file(store, path, settings=load_settings)
    assert (report.sessions_added, report.messages_added, report.messages_existing) == (0, 1, 2)
    assert store.count_sessions() == 1


def test_chatgpt_export_main_branch_only(store):
    report = import_file(store, EXPORT, settings=load_settings)
    assert report.format == "chatgpt" and report.problems == []
    assert (report.conversations, report.sessions_added, report.messages_added) == (2, 2, 6)
    recap = store.find_session("import:chatgpt:6f1c-weekend-recap")
    assert recap.title == "Weekend recap"
    contents = [m.content for m in store.messages(recap.id)]
    assert contents == [
        "I went to Paris last week. I drive a Ferrari 488 GTB.", "That sounds wonderful! How was the drive?",
        "Great. I got promoted to assistant manager at Renault yesterday!", "Congratulations on the promotion!",
    ]  # no system/tool message, not the edited-away branch ("I live in Lyon.")
    pets = store.find_session("import:chatgpt:8d2e-pets")
    assert [m.content for m in store.messages(pets.id)] == ["My dog Rex turned 3 last month.", "Happy birthday to Rex!"]
    texts = [m.text for m in store.list(include_all=True)]
    assert "User was promoted to assistant manager at Renault." in texts
    assert "User got promoted to assistant manager at Renault on 2023-05-21." in texts
    # one clause, two memories: who Rex is, and what the clause says of him (dates grounded on the message)
    assert "User has a dog named Rex." in texts and "Rex turned 3 in May 2023." in texts
    assert not any("Lyon" in t for t in texts)


def test_paris_last_week_grounds_to_its_own_day(store):
    import_file(store, EXPORT, settings=load_settings)
    paris = [m for m in store.list(include_all=True) if "Paris" in m.text]
    fact = next(m for m in paris if m.kind == Kind.FACT)
    episode = next(m for m in paris if m.kind == Kind.EPISODE)
    assert fact.text == "User went to Paris the week of 2023-05-15."
    for m in (fact, episode):
        assert (m.valid_at.year, m.valid_at.month) == (2023, 5) and m.trust == Trust.IMPORTED
        assert m.sources[0].observed_at == datetime(2023, 5, 22, 12, 0, 1, tzinfo=UTC)


def test_chatgpt_zip_and_json_are_the_same_import(store, tmp_path):
    zpath = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.write(EXPORT, "export-2024/conversations.json")
        z.writestr("export-2024/chat.html", "<html></html>")
        z.writestr("export-2024/user.json", "{}")
    first = import_file(store, zpath, settings=load_settings)
    assert (first.sessions_added, first.messages_added) == (2, 6)
    before = counts(store)
    second = import_file(store, EXPORT, settings=load_settings)  # the same conversations, unzipped
    assert (second.sessions_added, second.messages_added, second.memories_added) == (0, 0, 0)
    assert counts(store) == before


def test_broken_conversations_are_reported_and_skipped(store, tmp_path):
    data = json.loads(EXPORT.read_text())
    data.insert(1, {"title": "broken"})
    data[0]["mapping"]["u1"]["message"]["create_time"] = None  # falls back to the conversation's time
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data))
    problems = Problems()
    with open_export(path) as reader:
        pairs = list(reader.messages(problems))
    assert [str(p) for p in problems.shown] == ["conversation 2 ('broken'): no 'mapping' of messages"]
    assert pairs[0][1].observed_at == datetime(2023, 5, 22, 12, 0, tzinfo=UTC)
    with pytest.raises(ImportFormatError):
        (tmp_path / "x.json").write_text("[{")
        import_file(store, tmp_path / "x.json", settings=load_settings)


def test_interrupted_import_captures_on_the_next_run(store, tmp_path):
    class Failing(Capturer):  # the store write of the memories fails
        def capture_many(self, message_ids, **kw):
            raise RuntimeError("disk trouble")

        def capture_message(self, message_id, **kw):
            raise RuntimeError("disk trouble")

    path = write_jsonl(tmp_path / "chats.jsonl", JSONL[:2])
    report = import_file(store, path, capturer=Failing(store, use_llm=False, settings=load_settings))
    assert report.messages_added == 2 and "capture failed" in report.problems[0].reason
    assert store.count(include_all=True) == 0
    again = import_file(store, path, settings=load_settings)
    assert (again.messages_added, again.captured) == (0, 1)
    assert "User went to Paris the week of 2023-05-15." in [m.text for m in store.list(include_all=True)]


# ----------------------------------------------------------------------------- CLI

@pytest.fixture
def no_embedder(monkeypatch):
    from assistant.services import Services

    def unavailable(self):
        raise RuntimeError("no embedder in this test")

    monkeypatch.setattr(Services, "embedder", unavailable)


def test_cli_import_json(capsys, tmp_path, no_embedder):
    path = write_jsonl(tmp_path / "chats.jsonl", JSONL)
    assert main(["import", str(path), "--json", "--no-llm"]) == 3  # lines were skipped: exit code 3
    out = json.loads(capsys.readouterr().out)
    assert (out["sessions_added"], out["messages_added"], out["format"]) == (2, 4, "jsonl")
    assert [p["line"] for p in out["problems"]] == [3, 4, 6] and (out["imported"], out["skipped"]) == (4, 3)
    assert main(["import", str(path), "--json", "--no-llm"]) == 3
    assert json.loads(capsys.readouterr().out)["messages_added"] == 0


def test_cli_import_text_shows_progress_and_problems(capsys, tmp_path, no_embedder):
    shutil.copy(EXPORT, tmp_path / "conversations.json")
    assert main(["import", str(tmp_path / "conversations.json"), "--no-llm"]) == 0
    out, err = capsys.readouterr()
    assert "importing [" in err and "100%  6 messages (3 yours)" in err
    assert "2 new session(s), 6 new message(s)" in out
    path = write_jsonl(tmp_path / "bad.jsonl", JSONL[2:4])
    assert main(["import", str(path), "--no-llm"]) == 3
    assert "line 1: bad timestamp 'not-a-date'" in capsys.readouterr().out


def test_cli_import_unreadable_file(capsys, tmp_path):
    assert main(["import", str(tmp_path / "missing.jsonl"), "--json"]) == 2
    assert "no such file" in json.loads(capsys.readouterr().out)["error"]


# ----------------------------------------------------------------------------- search after import (real MiniLM)

def test_paris_trip_is_found_dated_may_2023(capsys, converted_embedder_path):
    """End to end with the REAL MiniLM embedder: ``keepsake import`` the ChatGPT export, then
    ``keepsake memory search "Paris trip" --json`` returns a memory dated May 2023."""
    assert main(["import", str(EXPORT), "--json", "--no-llm"]) == 0
    assert json.loads(capsys.readouterr().out)["messages_added"] == 6
    assert main(["memory", "search", "Paris trip", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and "Paris" in hits[0]["text"], hits
    assert hits[0]["valid_at"].startswith("2023-05"), hits[0]
    assert any(h["text"] == "User went to Paris the week of 2023-05-15." for h in hits)


def test_an_overflow_date_skips_only_its_line_and_the_exit_code_says_partial(tmp_path, capsys):
    """Line 2 of 3 has a timestamp past the last UTC instant (9999-12-31T23:59:59-14:00 is
    10000-01-01T13:59:59Z): lines 1 and 3 are imported, "2 imported, 1 skipped", exit code 3."""
    path = write_jsonl(tmp_path / "chat.jsonl", [
        {"session": "s", "role": "user", "content": "I live in Lyon.", "timestamp": "2024-05-01T10:00:00Z"},
        {"session": "s", "role": "user", "content": "I have a dog.", "timestamp": "9999-12-31T23:59:59-14:00"},
        {"session": "s", "role": "user", "content": "I play the cello.", "timestamp": "2024-05-01T10:02:00Z"},
    ])  # fmt: skip
    code = main(["import", str(path), "--no-llm", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 3 and out["exit_code"] == 3
    assert out["imported"] == 2 and out["skipped"] == 1 and out["messages_added"] == 2
    assert out["problems"][0]["line"] == 2 and "out of range" in out["problems"][0]["reason"]
    code = main(["import", str(path), "--no-llm"])
    text = capsys.readouterr().out
    assert code == 3 and text.startswith("2 imported, 1 skipped.")
    good = write_jsonl(tmp_path / "good.jsonl", [{"session": "t", "role": "user", "content": "I like tea.", "timestamp": "2024-05-02T10:00:00Z"}])
    assert main(["import", str(good), "--no-llm"]) == 0  # nothing skipped: 0


def test_a_damaged_zip_member_keeps_what_came_before_and_reports_the_rest(store, tmp_path):
    """A ChatGPT export zip whose conversations.json is cut off mid-stream (a damaged member:
    zlib / CRC errors while reading): the conversations before the damage are imported, the
    damage is one problem, nothing raises."""
    convs = json.loads(EXPORT.read_text(encoding="utf-8"))
    big = (convs * 60)[:60]  # 60 conversations of ~60 KB: the damage lands after the first (read 1 MB at a time)
    for i, c in enumerate(big):
        c = big[i] = json.loads(json.dumps(c))
        c["id"] = c["conversation_id"] = f"conv-{i}"
        c["noise"] = random.Random(i).randbytes(30_000).hex()  # incompressible: the member is read in many pieces
    raw = json.dumps(big).encode()
    zpath = tmp_path / "export.zip"
    with zipfile.ZipFile(zpath, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", raw)
    data = bytearray(zpath.read_bytes())
    with zipfile.ZipFile(zpath) as z:
        info = z.getinfo("conversations.json")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    middle = start + info.compress_size // 2
    for off in range(middle, middle + 64):
        data[off] ^= 0xFF  # garbage in the middle of the deflate stream
    zpath.write_bytes(bytes(data))
    report = import_file(store, zpath, settings=load_settings)
    assert report.conversations >= 1 and report.messages_added > 0
    assert report.problems_total >= 1
    assert any("damaged" in p.reason or "not UTF-8" in p.reason or "could not be read" in p.reason for p in report.problems), report.problems
