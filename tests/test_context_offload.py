"""Offload and read-back limits, a session's archive files, and the in-process event bus."""

from __future__ import annotations

import threading

import pytest

from assistant import events
from assistant.config import paths
from assistant.context import offload
from assistant.context.offload import (
    LINE_LIMIT,
    OFFLOAD_CHARS,
    PREVIEW_CHARS,
    READ_HEAD_TAIL,
    READ_LIMIT,
    archive_files_for_session,
    delete_session_files,
    read_back,
)
from assistant.fileio import write_private_atomic


def test_content_up_to_8000_chars_stays_in_the_window():
    assert offload.offload("a" * OFFLOAD_CHARS, 1) is None
    assert offload.offload_text("a" * OFFLOAD_CHARS, 1) == "a" * OFFLOAD_CHARS
    assert not (paths().archive / "session-1").exists()


def test_longer_content_goes_to_an_archive_file_with_a_preview_and_pointer():
    text = "".join(f"line {i}: " + "word " * 10 + "\n" for i in range(200))
    assert len(text) > OFFLOAD_CHARS
    done = offload.offload(text, 7, kind="assistant")
    assert done is not None and done.path.read_text(encoding="utf-8") == text
    assert done.path.parent == paths().archive / "session-7"
    assert done.text.startswith(text[:PREVIEW_CHARS]) and "line 150:" not in done.text
    assert done.ref in done.text and str(len(text)) in done.text
    assert len(done.text) < PREVIEW_CHARS + 200
    again = offload.offload(text, 7, kind="assistant")
    assert again.text == done.text and again.path == done.path  # same text, same pointer
    assert read_back(done.ref) == text  # under the read-back limits: everything comes back


def test_read_back_gives_head_and_tail_over_30k_chars():
    exactly = "".join(chr(65 + i % 26) if i % 100 else "\n" for i in range(READ_LIMIT))
    path = offload.session_archive_dir(3) / "exact.txt"
    write_private_atomic(path, exactly)
    assert read_back(path) == exactly

    big = "".join(f"{i:07d}\n" for i in range(6000))  # 48k chars, short lines
    ref = offload.offload(big, 3).ref
    out = read_back(ref)
    assert out.startswith(big[:READ_HEAD_TAIL]) and out.endswith(big[-READ_HEAD_TAIL:])
    assert f"{len(big) - 2 * READ_HEAD_TAIL} characters not shown" in out
    assert big[READ_HEAD_TAIL + 100 : READ_HEAD_TAIL + 140] not in out
    assert len(out) < 2 * READ_HEAD_TAIL + 200


def test_read_back_cuts_lines_over_2000_chars():
    text = "short line\n" + "y" * (LINE_LIMIT + 500) + "\n" + "z" * LINE_LIMIT + "\nend"
    path = offload.session_archive_dir(4) / "lines.txt"
    write_private_atomic(path, text)
    lines = read_back(path).split("\n")
    assert lines[0] == "short line" and lines[-1] == "end"
    assert lines[1].startswith("y" * LINE_LIMIT) and "line cut: 500 more characters" in lines[1]
    assert not lines[1].startswith("y" * (LINE_LIMIT + 1))
    assert lines[2] == "z" * LINE_LIMIT  # exactly at the limit: kept whole


def test_read_back_stays_inside_the_archive(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("no")
    for ref in (outside, "../secret.txt", "session-1/../../config/db.key"):
        with pytest.raises(ValueError):
            read_back(ref)
    with pytest.raises(ValueError):
        offload.session_archive_dir("../x")


def test_session_files_are_listed_and_deleted_for_real():
    offload.offload("a" * 9000, 11)
    offload.offload("b" * 9000, 11, kind="user")
    offload.offload("c" * 9000, 12)
    write_private_atomic(offload.context_state_path(11), '{"session_id": "11"}')
    files = archive_files_for_session(11)
    assert len(files) == 3 and offload.context_state_path(11) in files
    assert all(p.stat().st_mode & 0o077 == 0 for p in files)  # private to the user
    removed = delete_session_files(11)
    assert sorted(removed) == sorted(files)
    assert archive_files_for_session(11) == [] and not offload.session_archive_dir(11).exists()
    assert len(archive_files_for_session(12)) == 1  # another session is untouched
    assert delete_session_files(99) == []


# -- event bus ---------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _clean_bus():
    yield
    events.clear("test")


def test_publish_reaches_subscribers_in_order_and_survives_a_broken_one():
    got = []
    events.subscribe("test", lambda p: got.append(("a", p)))
    events.subscribe("test", lambda p: 1 / 0)
    unsubscribe = events.subscribe("test", lambda p: got.append(("c", p)))
    assert events.publish("test", 1) == 3
    unsubscribe()
    events.publish("test", 2)
    events.publish("other", 3)
    assert got == [("a", 1), ("c", 1), ("a", 2)]


def test_bus_is_thread_safe():
    got = []
    lock = threading.Lock()

    def listener(p):
        with lock:
            got.append(p)

    def worker(n):
        for i in range(200):
            off = events.subscribe("test", listener)
            events.publish("test", (n, i))
            off()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {(n, i) for n in range(8) for i in range(200)} <= set(got)
