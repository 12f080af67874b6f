"""``keepsake memory|sessions|export|import-memories`` end to end (with a FAKE embedder)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from store_fakes import FakeEmbedder, run_cli

from assistant.services import Services
from assistant.memory.records import Source


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    monkeypatch.setattr(Services, "embedder", lambda self: FakeEmbedder())


run = run_cli


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, (out, err)
    return json.loads(out)


def test_add_list_show_edit_history(capsys) -> None:
    m = run_json(capsys, "memory", "add", "I live in Lisbon", "--kind", "profile", "--valid-at", "2023-04-01",
                 "--observed-at", "2023-05-22T10:00:00+02:00", "--slot", "home_city")  # fmt: skip
    for key in ("id", "text", "kind", "status", "valid_at", "invalid_at", "created_at", "expired_at", "trust",
                "confidence", "version", "sources"):  # fmt: skip
        assert key in m
    assert m["created"] and m["kind"] == "profile" and m["slot"] == "home_city"
    assert m["sources"][0]["observed_at"] == "2023-05-22T08:00:00.000000+00:00"
    assert set(m["sources"][0]) >= {"session_id", "message_id", "observed_at", "speaker"}
    again = run_json(capsys, "memory", "add", "i live in lisbon.", "--kind", "profile")
    assert again["id"] == m["id"] and not again["created"]
    listed = run_json(capsys, "memory", "list")
    assert [x["id"] for x in listed] == [m["id"]]
    edited = run_json(capsys, "memory", "edit", str(m["id"]), "I live in Porto")
    assert edited["version"] == 2 and edited["text"] == "I live in Porto"
    shown = run_json(capsys, "memory", "show", str(m["id"]))
    assert [v["text"] for v in shown["versions"]] == ["I live in Lisbon", "I live in Porto"]
    # the edit names Porto: its mention is linked (docs: mentions follow an edit)
    assert [a["action"] for a in shown["audit"]] == ["add", "add_source", "edit", "set_entities"]
    hist = run_json(capsys, "memory", "history", str(m["id"]))
    assert [v["version"] for v in hist] == [1, 2]
    code, out, _ = run(capsys, "memory", "list")
    assert code == 0 and "I live in Porto" in out
    code, out, _ = run(capsys, "memory", "show", str(m["id"]))
    assert code == 0 and "versions:" in out and "I live in Lisbon" in out
    code, _, err = run(capsys, "memory", "edit", str(m["id"]), "stale", "--expected-version", "1")
    assert code == 2 and "expected 1" in err


def test_edit_sets_when_it_became_true_and_an_end_before_it_says_how(capsys) -> None:
    # the UI's edit dialog sets "true since" with the text; the CLI does too (a new user's trial could not)
    m = run_json(capsys, "memory", "add", "User is a bee health inspector.", "--valid-at", "2026-12-07")
    code, _, err = run(capsys, "memory", "invalidate", str(m["id"]), "--at", "2026-12-01")
    assert code == 2 and "--valid-at" in err  # ends before it began: what to do, not a bare ValueError
    edited = run_json(capsys, "memory", "edit", str(m["id"]), "User is a bee health inspector in Kirchhain.", "--valid-at", "2026-11-01")
    assert edited["version"] == 2 and edited["valid_at"].startswith("2026-11-01")
    run_json(capsys, "memory", "invalidate", str(m["id"]), "--at", "2026-12-01")
    assert run_json(capsys, "memory", "list") == []
    cleared = run_json(capsys, "memory", "edit", str(m["id"]), "User was a bee health inspector.", "--valid-at", "unknown")
    assert cleared["valid_at"] is None


def test_as_of_invalidate_ttl_pin(capsys) -> None:
    old = run_json(capsys, "memory", "add", "Works at Acme", "--valid-at", "2020-01-01")
    run_json(capsys, "memory", "invalidate", str(old["id"]), "--at", "2024-02-01")
    new = run_json(capsys, "memory", "add", "Works at Globex", "--valid-at", "Feb 1 2024")
    assert [x["text"] for x in run_json(capsys, "memory", "list")] == ["Works at Globex"]
    assert [x["text"] for x in run_json(capsys, "memory", "list", "--as-of", "2022-06-01")] == ["Works at Acme"]
    assert len(run_json(capsys, "memory", "list", "--all")) == 2
    assert run_json(capsys, "memory", "list", "--known-at", "2000-01-01") == []
    assert run_json(capsys, "memory", "pin", str(new["id"]))["pinned"] is True
    assert run_json(capsys, "memory", "unpin", str(new["id"]))["pinned"] is False
    assert run_json(capsys, "memory", "ttl", str(new["id"]), "--days", "2")["expires_at"] is not None
    assert run_json(capsys, "memory", "ttl", str(new["id"]), "--clear")["expires_at"] is None
    assert run_json(capsys, "memory", "archive", str(new["id"]))["status"] == "archived"
    assert run_json(capsys, "memory", "restore", str(new["id"]))["status"] == "active"


def test_bad_input_gives_clear_errors(capsys) -> None:
    code, _, err = run(capsys, "memory", "add", "x", "--valid-at", "the day after never")
    assert code == 2 and "cannot understand the date" in err
    code, out, _ = run(capsys, "memory", "add", "x", "--valid-at", "31/31/2024", "--json")
    assert code == 2 and "error" in json.loads(out)
    code, _, err = run(capsys, "memory", "show", "12345")
    assert code == 2 and "no memory with id 12345" in err
    code, _, err = run(capsys, "memory", "add", "   ")
    assert code == 2 and "empty" in err
    code, _, err = run(capsys, "memory", "ttl", "1", "--days", "-3")
    assert code == 2


def test_delete_needs_confirmation(capsys, monkeypatch) -> None:
    m = run_json(capsys, "memory", "add", "Secret door code is 8812")
    preview = run_json(capsys, "memory", "delete", str(m["id"]), "--dry-run")
    assert preview["executed"] is False and preview["counts"]["memories"] == 1
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a TTY
    code, _, err = run(capsys, "memory", "delete", str(m["id"]))
    assert code == 2 and "--yes" in err
    assert run_json(capsys, "memory", "show", str(m["id"]))["id"] == m["id"]

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Tty("n\n"))
    code, out, _ = run(capsys, "memory", "delete", str(m["id"]))
    assert code == 1 and "nothing deleted" in out
    monkeypatch.setattr("sys.stdin", Tty("y\n"))
    code, out, _ = run(capsys, "memory", "delete", str(m["id"]))
    assert code == 0 and "deleted" in out
    code, _, err = run(capsys, "memory", "show", str(m["id"]))
    assert code == 2
    m2 = run_json(capsys, "memory", "add", "Another secret 4411")
    report = run_json(capsys, "memory", "delete", str(m2["id"]), "--yes")
    assert report["executed"] and report["memory_ids"] == [m2["id"]]


def test_sessions_and_export_import(capsys, tmp_path: Path, services) -> None:
    store = services.open_store()
    s = store.create_session("planning")
    msg = store.add_message(s.id, "user", "I have a cat named Miso")
    miso = store.add("Has a cat named Miso", source=Source(s.id, msg.id))
    tea = store.add("Likes tea")
    store.close()
    sessions = run_json(capsys, "sessions", "list")
    assert sessions[0]["title"] == "planning" and sessions[0]["message_count"] == 1
    shown = run_json(capsys, "sessions", "show", str(s.id))
    assert shown["messages"][0]["content"] == "I have a cat named Miso"
    assert run_json(capsys, "sessions", "rename", str(s.id), "pets")["title"] == "pets"
    out_file = tmp_path / "all.json"
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out, _ = run(capsys, "export", str(blocker / "x.json"), "--json")  # a file where a folder should be
    assert code == 2 and "cannot write" in json.loads(out)["error"]
    selection = run_json(capsys, "export", str(tmp_path / "one.json"), "--ids", str(miso))  # what the inspector exports
    assert selection["memories"] == 1 and selection["sessions"] == 0
    assert [m["text"] for m in json.loads((tmp_path / "one.json").read_text())["memories"]] == ["Has a cat named Miso"]
    run_json(capsys, "memory", "delete", str(tea), "--yes")  # "Likes tea": the rest of this test is about Miso
    summary = run_json(capsys, "export", str(out_file))
    assert summary["memories"] == 1 and summary["sessions"] == 1 and out_file.exists()
    preview = run_json(capsys, "sessions", "delete", str(s.id), "--dry-run")
    assert preview["counts"]["messages_deleted"] == 1 and preview["counts"]["memories"] == 1
    report = run_json(capsys, "sessions", "delete", str(s.id), "--yes")
    assert report["executed"]
    assert run_json(capsys, "sessions", "list") == [] and run_json(capsys, "memory", "list") == []
    imported = run_json(capsys, "import-memories", str(out_file))
    assert imported["memories_added"] == 1 and imported["messages_added"] == 1 and imported["errors"] == []
    assert run_json(capsys, "import-memories", str(out_file))["memories_added"] == 0
    assert run_json(capsys, "memory", "list")[0]["trust"] == "imported"
