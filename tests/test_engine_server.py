"""The OpenAI-compatible engine against a REAL server: llama-cpp-python's ``llama_cpp.server``
serving the default SmolLM2 GGUF on 127.0.0.1 (session fixture ``llama_server``). Memory,
retrieval and embeddings stay local; the chat goes through the server. No exact model answer is
asserted (CPU-dependent), only behaviour; llama.cpp's own prompt-eval counter is read from the
server's log to check what Keepsake reports."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from model_servers import ToggleProxy, free_port, loopback_allowed

from assistant.config import Settings, paths, save_settings
from assistant.engine import registry
from assistant.engine.chat import ChatMessage
from assistant.engine.errors import EngineError
from assistant.engine.server.model import OpenAIChatModel
from assistant.engine.server.tokens import LocalTokenizer


def keepsake(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=os.environ.copy())  # fmt: skip


@pytest.fixture
def home(converted_embedder_path, keepsake_home):
    return keepsake_home


@pytest.fixture
def remote(llama_server):
    model = OpenAIChatModel(llama_server.url, n_ctx=4096)
    yield model
    model.close()


def test_chat_once_through_the_server_with_local_memories_and_prefix_reuse_at_turn_2(home, llama_server):
    assert keepsake("memory", "add", "Dana lives in Lyon.").returncode == 0
    url = llama_server.url
    first = keepsake("chat", "--engine-url", url, "--once", "Where does Dana live?", "--max-tokens", "24", "--temperature", "0", "--json")
    assert first.returncode == 0, first.stderr
    t1 = json.loads(first.stdout)
    assert t1["engine"] == "openai" and t1["model"].endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert t1["reply"].strip() and t1["generated_tokens"] > 0
    assert "Dana lives in Lyon." in [m["text"] for m in t1["injected_memories"]]  # retrieved here, sent there
    assert t1["budget"]["token_counting"]["method"] == "server"
    # turn 2, a new process: the history is rebuilt as sent (turn 1's memory block included), so
    # the server's cache still holds its prefix and only the new tokens are evaluated
    offset = llama_server.log_size()
    second = keepsake("chat", "--engine-url", url, "--session", str(t1["session_id"]), "--once", "Thanks. Where does Dana live?",
                      "--max-tokens", "16", "--temperature", "0", "--json")  # fmt: skip
    assert second.returncode == 0, second.stderr
    t2 = json.loads(second.stdout)
    real = llama_server.evaluated_since(offset)
    assert len(real) == 1, real  # one generation request in turn 2
    assert t2["prompt_tokens_evaluated_source"] == "predicted"  # llama_cpp.server reports no count
    # Keepsake's prediction agrees with llama.cpp's own counter (a few template tokens of slack)
    assert abs(t2["prompt_tokens_evaluated"] - real[0]) <= max(6, 0.15 * real[0]), (t2["prompt_tokens_evaluated"], real)
    # nothing of turn 1's prompt was evaluated again: at most turn 2's new tokens (+ slack)
    assert real[0] <= t2["prompt_tokens"] - t1["prompt_tokens"] + 8, (real, t1["prompt_tokens"], t2["prompt_tokens"])


def test_nothing_listening_is_one_line_rc_2_the_message_is_kept_and_retry_answers_it(home, llama_server):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    out = keepsake("chat", "--engine-url", dead, "--once", "What is 2+2?")
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing is listening" in lines[0] and "--retry" in lines[0], out.stderr
    out = keepsake("chat", "--engine-url", dead, "--once", "What is 2+2?", "--json")
    err = json.loads(out.stdout)
    assert out.returncode == 2 and err["kind"] == "unreachable" and err["user_message_id"]
    sid = err["session_id"]
    shown = json.loads(keepsake("sessions", "show", str(sid), "--json").stdout)
    assert [(m["role"], m["content"]) for m in shown["messages"]] == [("user", "What is 2+2?")]
    # the server is up now: --retry answers the stored message without storing it twice
    out = keepsake("chat", "--engine-url", llama_server.url, "--session", str(sid), "--retry", "--max-tokens", "12", "--json")
    assert out.returncode == 0, out.stderr
    turn = json.loads(out.stdout)
    assert turn["user_message_id"] == err["user_message_id"] and turn["reply"].strip()
    shown = json.loads(keepsake("sessions", "show", str(sid), "--json").stdout)
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]


def test_a_model_the_server_does_not_have_is_refused_and_the_message_kept(home, llama_server):
    out = keepsake("chat", "--engine-url", llama_server.url, "--engine-model", "gpt-4o", "--once", "hi", "--json")
    err = json.loads(out.stdout)
    assert out.returncode == 2 and err["kind"] == "unknown_model"
    assert "has no model 'gpt-4o'" in err["error"] and "SmolLM2-135M-Instruct.Q4_1.gguf" in err["error"]


def test_doctor_json_says_which_engine_and_checks_the_server(home, llama_server):
    save_settings(Settings(engine="openai", engine_url=llama_server.url), paths())
    report = json.loads(keepsake("doctor", "--json").stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["chat engine"]["engine"] == "openai" and checks["chat engine"]["url"] == llama_server.url
    server = checks["model server"]
    assert server["ok"] and server["reachable"] and server["latency_ms"] > 0
    assert any(m.endswith("SmolLM2-135M-Instruct.Q4_1.gguf") for m in server["models"])
    assert server["token_counting"]["method"] == "server" and server["api_key"] == "none"
    # the same check on a dead URL fails (rc 1) and says why
    out = keepsake("doctor", "--json", "--engine-url", f"http://127.0.0.1:{free_port()}")
    bad = {c["name"]: c for c in json.loads(out.stdout)["checks"]}["model server"]
    assert out.returncode == 1 and not bad["ok"] and not bad["reachable"] and "nothing is listening" in bad["detail"]


def test_tokens_are_counted_by_the_servers_tokenizer_which_matches_the_local_one(remote):
    texts = ["What is 2+2?", "Dana lives in Lyon; her sister Léa moves to Porto in June.", "<|im_start|>user"]
    assert remote.token_counting.method == "estimate"  # nothing asked yet: no socket before the first use
    counts = [remote.count_tokens(t) for t in texts]
    assert remote.token_counting.method == "server"
    local = LocalTokenizer(registry.default_chat_path(), "SmolLM2")
    assert counts == [local(t) for t in texts]
    assert counts[2] == 2  # control tokens count as control tokens, as in the local engine


def test_stop_closes_the_stream_and_the_server_stays_usable(remote, llama_server):
    cancel = threading.Event()
    offset = llama_server.log_size()
    gen = remote.generate([ChatMessage("user", "Write a very long story about a dragon and a lighthouse.")],
                          max_tokens=400, temperature=0.0, cancel=cancel)  # fmt: skip
    pieces = []
    for piece in gen:
        pieces.append(piece)
        if len(pieces) == 3:
            cancel.set()
    assert gen.stats.finish_reason == "cancelled" and 3 <= len(pieces) < 400
    # the server saw the client go away (llama_cpp.server logs it and stops generating)
    end = time.monotonic() + 120
    while "disconnected" not in llama_server.log()[offset:].lower() and time.monotonic() < end:
        time.sleep(0.2)
    assert "disconnected" in llama_server.log()[offset:].lower()
    text, stats = remote.complete([ChatMessage("user", "Say hi.")], max_tokens=4)
    assert stats.finish_reason in ("stop", "length") and stats.generated_tokens > 0


def test_json_output_through_the_server_follows_the_schema(remote):
    schema = {"type": "object", "properties": {"indices": {"type": "array", "items": {"type": "integer"}}}, "required": ["indices"]}
    out = remote.complete_json([ChatMessage("user", "Which of these are fruits? 0: apple 1: car 2: pear. Answer with indices.")],
                               schema, max_tokens=40)  # fmt: skip
    assert isinstance(out, dict) and isinstance(out["indices"], list) and all(isinstance(i, int) for i in out["indices"])


def test_the_compaction_summary_is_written_through_the_server(remote, keepsake_home):
    from test_context_compaction import conversation

    from assistant.context.compaction import Compactor
    from assistant.memory.store.facade import MemoryStore

    store = MemoryStore(paths().database)  # the summary's archive: the store's encrypted context archive
    try:
        result = Compactor(remote.count_tokens, remote, archive=store.context_archive).compact("remote", conversation(16), target_tokens=0)
    finally:
        store.close()
    summary = result.state.summary
    assert "summary" in result.steps and "Narrative: " in summary  # the server model wrote the narrative part
    for identifier in ["Dana Moreau", "Lyon", "Porto", "June 14th"]:  # kept by code, whatever the model wrote
        assert identifier in summary, identifier


def test_a_turn_connects_only_to_the_configured_server(home, llama_server, monkeypatch, services):
    from assistant.session import ChatSession

    seen: list = []
    real = socket.socket.connect  # the conftest guard, which lets only allowed loopback through

    def spy(sock, address, *a):
        if sock.family != socket.AF_UNIX:
            seen.append(address[:2])
        return real(sock, address, *a)

    monkeypatch.setattr(socket.socket, "connect", spy)
    settings = Settings().with_server(llama_server.url)
    chat = ChatSession.open(services, settings=settings)
    turn = chat.send("Hello, who are you?", max_tokens=8)
    chat.close()
    assert turn.engine == "openai" and turn.reply
    assert seen and set(seen) == {("127.0.0.1", llama_server.port)}


def test_session_keeps_the_message_when_the_server_is_down_and_retry_answers_it(home, llama_server, services):
    from assistant.session import ChatSession, NothingToRetry

    proxy = ToggleProxy(llama_server.port)
    with loopback_allowed(proxy.port):
        chat = ChatSession.open(services, settings=Settings().with_server(proxy.url))
        with pytest.raises(EngineError) as failed:
            chat.send("I live in Lyon.", max_tokens=8)
        assert failed.value.kind == "unreachable"
        stored = chat.store.messages(chat.session_id)
        assert [(m.role.value, m.content) for m in stored] == [("user", "I live in Lyon.")]
        assert chat.unanswered().id == stored[0].id
        # what the person said is remembered though the model failed (capture does not need it)
        assert chat.capture.flush(timeout=120)
        remembered = [m.text for m in chat.store.list()]
        assert any("Lyon" in t for t in remembered), remembered
        proxy.up()
        try:
            pieces = list(chat.retry(max_tokens=8))
        finally:
            proxy.down()
        assert "".join(pieces) == chat.last_turn.reply and chat.last_turn.user_message_id == stored[0].id
        assert [m.role.value for m in chat.store.messages(chat.session_id)] == ["user", "assistant"]
        assert chat.capture.flush(timeout=120)
        assert sorted(m.text for m in chat.store.list()) == sorted(remembered)  # the retry captured nothing twice
        with pytest.raises(NothingToRetry):
            list(chat.retry())
        chat.close()


def test_bench_context_through_the_server_reports_evaluated_tokens_and_the_ttft_control(home, llama_server):
    out = keepsake("bench", "context", "--engine-url", llama_server.url, "--turns", "3", "--max-tokens", "8", "--controls", "1",
                   "--window", "2048", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["engine"] == "openai" and result["evaluated_source"] == "predicted" and len(result["turns"]) == 3
    last = result["turns"][-1]
    # Keepsake's turn 3 evaluates about its new tokens; the naive prompt changed at the top
    assert last["keepsake_evaluated"] <= last["new_tokens"] * 1.2
    assert last["naive_evaluated"] >= 0.8 * last["naive_prompt_tokens"]
    control = result["control"]  # measured (TTFT), reported only: no timing is asserted
    assert control["cold_ttft_ms"] > 0 and control["last_turn_ttft_ms"] > 0 and "warm_over_cold" in control
