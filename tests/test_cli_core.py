"""The `keepsake` command as a person runs it: a real subprocess, real models, isolated home."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def keepsake(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args],
        capture_output=True, text=True, timeout=timeout, env=os.environ.copy(),
    )


@pytest.fixture
def home_with_models(converted_embedder_path, keepsake_home):
    # conftest hard-links the session's converted embedder into this test's home
    assert (keepsake_home / "data" / "models" / converted_embedder_path.name).exists()
    return keepsake_home


def test_chat_once_answers_with_every_stat(home_with_models):
    # the reply's wording depends on the CPU (see docs/DESIGN.md §2): only its presence is asserted
    out = keepsake("chat", "--once", "Write one sentence about the sea.", "--temperature", "0", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["reply"].strip()
    assert result["memory_answer"] is None and result["notices"] == []
    assert isinstance(result["session_id"], int)
    for stat in ("prompt_tokens_evaluated", "generated_tokens", "ttft_ms", "tokens_per_s"):
        assert result[stat] > 0, stat
    assert result["injected_memories"] == []
    assert result["budget"]["budget"]["window"] > 0


def test_chat_once_continues_a_session(home_with_models):
    first = json.loads(keepsake("chat", "--once", "Hello there.", "--json").stdout)
    second = json.loads(keepsake("chat", "--once", "And again.", "--session", str(first["session_id"]), "--json").stdout)
    assert second["session_id"] == first["session_id"]
    assert second["user_message_id"] > first["assistant_message_id"]


def test_chat_once_unknown_session_is_a_clear_error(home_with_models):
    out = keepsake("chat", "--once", "hi", "--session", "999", "--json")
    assert out.returncode == 2
    assert "999" in json.loads(out.stdout)["error"]


def test_embed_json(home_with_models):
    out = keepsake("embed", "The cat sits on the mat.", "--json")
    data = json.loads(out.stdout)
    assert data["dim"] == 384 and len(data["embedding"]) == 384
    assert abs(sum(x * x for x in data["embedding"]) - 1.0) < 1e-3


def test_doctor_json_reports_every_check(home_with_models):
    out = keepsake("doctor", "--json")
    report = json.loads(out.stdout)
    names = {c["name"] for c in report["checks"]}
    assert {"python", "llama.cpp", "sqlite", "encryption", "paths", "chat model", "embedding model"} <= names
    assert report["ok"], report


def test_models_json_lists_the_defaults(home_with_models):
    models = json.loads(keepsake("models", "--json").stdout)["models"]
    assert any(m["source"] == "default" and "chat" in m["roles"] for m in models)
    assert any(m["source"] == "default" and "embedding" in m["roles"] for m in models)


def test_chat_with_a_broken_model_names_the_file(home_with_models, tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + os.urandom(64))
    out = keepsake("chat", "--once", "hi", "--model", str(bad), "--json")
    assert out.returncode == 2
    assert "broken.gguf" in json.loads(out.stdout)["error"]


def test_a_refusal_that_says_the_memories_are_listed_lists_them_fake_turn(capsys):
    """A new user: "I'm not sure ... The memories I looked at are listed under this reply." and
    the terminal listed nothing."""
    from assistant.cli.core import _after_reply
    from assistant.memory.retrieval.reply_check import UNKNOWN_RELATED
    from assistant.turn import InjectedMemory, TurnResult

    turn = TurnResult(session_id=1, turn_id="t", user_message_id=1, reply=UNKNOWN_RELATED, correction="unknown",
                      injected_memories=[InjectedMemory(7, "Priya is a vet in Manchester.", 0.5, None, None)])  # fmt: skip
    _after_reply(turn)
    out = capsys.readouterr().out
    assert "Memories looked at:" in out and "- Priya is a vet in Manchester. (memory #7)" in out
    _after_reply(TurnResult(session_id=1, turn_id="t", user_message_id=1, reply="Hi!"))
    assert "looked at" not in capsys.readouterr().out
