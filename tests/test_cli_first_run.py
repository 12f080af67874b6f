"""What a new user meets first on the command line: --version, the chat saying what it loads
before ``you>``, one name per model in every command, a doctor that reads as plain words, and
terminal conversations titled like the app's. Real subprocesses, real models."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import assistant
from assistant.engine.names import display_name


def keepsake(*args: str, stdin: str | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=os.environ.copy())  # fmt: skip


@pytest.fixture
def home_with_models(converted_embedder_path, keepsake_home):
    return keepsake_home


def test_version():
    out = keepsake("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"keepsake {assistant.__version__}"


def test_interactive_chat_says_what_it_loads_before_the_prompt_and_titles_the_session(home_with_models):
    out = keepsake("chat", "--max-tokens", "8", stdin="Plan a picnic by the river\n")
    assert out.returncode == 0, out.stderr
    # progress on stderr, in order, each step finished, before the prompt appears on stdout
    steps = [line for line in out.stderr.splitlines() if line.startswith("[")]
    assert [s[:5] for s in steps] == ["[1/4]", "[2/4]", "[3/4]", "[4/4]"]
    assert "Loading SmolLM2-135M-Instruct..." in steps[2]
    assert all(s.endswith(" s") for s in steps)
    assert "SmolLM2-135M-Instruct" in out.stdout.split("you>")[0]
    sessions = json.loads(keepsake("sessions", "list", "--json").stdout)
    sessions = sessions["sessions"] if isinstance(sessions, dict) else sessions
    assert [s["title"] for s in sessions] == ["Plan a picnic by the river"]


def test_a_chat_left_without_a_message_leaves_no_empty_conversation(home_with_models):
    assert keepsake("chat", stdin="").returncode == 0
    sessions = json.loads(keepsake("sessions", "list", "--json").stdout)
    assert (sessions["sessions"] if isinstance(sessions, dict) else sessions) == []


def test_one_name_per_model_in_models_doctor_and_the_app(home_with_models):
    from ui.format import model_label

    models = json.loads(keepsake("models", "--json").stdout)["models"]
    chat = next(m for m in models if m["source"] == "default" and "chat" in m["roles"])
    embed = next(m for m in models if m["source"] == "default" and "embedding" in m["roles"])
    assert (chat["name"], embed["name"]) == ("SmolLM2-135M-Instruct", "all-MiniLM-L6-v2")
    assert model_label(chat["path"]) == chat["name"]  # what the app's picker and status bar show
    checks = {c["name"]: c for c in json.loads(keepsake("doctor", "--json").stdout)["checks"]}
    assert checks["chat model"]["model"] == chat["name"]
    assert checks["embedding model"]["model"] == embed["name"]
    text = keepsake("models").stdout
    assert "SmolLM2-135M-Instruct" in text and "Smollm2 135M 8k" not in text


def test_text_doctor_prints_the_models_folder_and_plain_words(home_with_models):
    out = keepsake("doctor")
    assert out.returncode == 0, out.stdout
    folder = str(home_with_models / "data" / "models")
    assert any(line.startswith("[ok  ] models folder:") and folder in line for line in out.stdout.splitlines())
    assert "Keepsake " + assistant.__version__ in out.stdout
    for internal in ("key in no key", "fail.Keyring", "keyring.backends"):
        assert internal not in out.stdout


@pytest.mark.parametrize("filename, name", [
    ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct"),
    ("all-minilm-l6-v2-f16.gguf", "all-MiniLM-L6-v2"),
    ("qwen2.5-1.5b-instruct-q4_k_m.gguf", "qwen2.5-1.5b-instruct"),
    ("Llama-3.2-1B-Instruct.IQ3_M.gguf", "Llama-3.2-1B-Instruct"),
    ("/models/gemma-2b.f16.gguf", "gemma-2b"),
])  # fmt: skip
def test_display_names(filename, name):
    assert display_name(filename) == name


class _ClosedPipe:
    """stdout of ``keepsake ... | head`` after head has exited."""

    def write(self, _text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_output_into_a_closed_pipe_ends_quietly(home_with_models, monkeypatch, capsys):
    from assistant import cli

    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert cli.main(["models", "--json"]) == 0
    assert "Traceback" not in capsys.readouterr().err
