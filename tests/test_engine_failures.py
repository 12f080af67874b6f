"""The OpenAI-compatible engine when things go wrong, against a deliberately broken local server
(closes mid-stream, garbage, non-JSON, not HTTP, silent past the timeout, 401) and a refused
port; plus the pure parts (URL parsing, model families, the prefix prediction, settings, the
API key store). Tests ending in ``_fake_server`` use a scripted server that answers like
llama-server or like a server without a tokenizer: logic that does not depend on a model."""

from __future__ import annotations

import json
import threading

import keyring
import keyring.backends.fail
import pytest
from model_servers import BrokenServer, free_port, loopback_allowed

from assistant.config import Settings, load_settings, paths, save_settings
from assistant.engine.server import api_key
from assistant.engine.chat import ChatMessage
from assistant.engine.errors import EngineError
from assistant.engine.server.client import Endpoint
from assistant.engine.server.prefix_ledger import GEN_PROMPT, OVERHEAD, PrefixLedger, Sent
from assistant.engine.server.model import OpenAIChatModel
from assistant.engine.server.tokens import family, same_family_gguf

HELLO = [ChatMessage("system", "You are a helpful assistant."), ChatMessage("user", "Hello")]


def engine(url: str, **kw) -> OpenAIChatModel:
    return OpenAIChatModel(url, local_models=lambda: [], **kw)


def run(model: OpenAIChatModel, *, cancel=None):
    pieces, gen = [], None
    try:
        gen = model.generate(HELLO, max_tokens=16, cancel=cancel)
        for piece in gen:
            pieces.append(piece)
    except EngineError as exc:
        return pieces, exc, gen
    return pieces, None, gen


@pytest.mark.parametrize("mode, kind, words", [
    ("close_mid_stream", "bad_reply", "closed the connection"),
    ("garbage", "bad_reply", "did not answer with an event stream"),
    ("not_json", "bad_reply", "not JSON"),
    ("non_http", "bad_reply", "did not answer like an HTTP server"),
])  # fmt: skip
def test_a_broken_reply_is_a_clear_error(mode, kind, words):
    with BrokenServer(mode) as server:
        pieces, exc, _ = run(engine(server.url))
    assert exc is not None and exc.kind == kind and words in str(exc), str(exc)
    assert str(exc).count("\n") == 0  # one line for the CLI
    if mode == "close_mid_stream":
        assert pieces == ["Hello", " there"]  # what arrived was streamed before the failure


def test_silence_past_the_timeout_mid_reply_is_a_timeout():
    with BrokenServer("sleep") as server:
        pieces, exc, _ = run(engine(server.url, read_timeout=0.5))
    # the reply's overall deadline is the same 0.5 s (engine_timeout bounds both): either may say it
    assert pieces == ["Hello"] and exc.kind == "timeout", exc
    assert "sent nothing for 0.5 s in the middle of the reply" in str(exc) or "was still replying after 0.5 s" in str(exc)


def test_stop_closes_a_stream_that_is_waiting_for_a_silent_server():
    """The read is blocked (the server sleeps for an hour, the timeout is an hour too): Stop
    must still end the reply, by closing the socket."""
    with BrokenServer("sleep") as server:
        model = engine(server.url, read_timeout=3600)
        cancel = threading.Event()
        result = {}

        def consume():
            result["out"] = run(model, cancel=cancel)

        worker = threading.Thread(target=consume, daemon=True)
        worker.start()
        while not server.requests or server.requests[-1][1] != "/v1/chat/completions":
            worker.join(0.05)
        worker.join(0.5)  # the first piece arrived; the read now waits for more
        cancel.set()
        worker.join(60)
        assert not worker.is_alive(), "Stop did not end the reply"
    pieces, exc, gen = result["out"]
    assert exc is None and pieces == ["Hello"] and gen.stats.finish_reason == "cancelled"


def test_401_says_the_key_is_missing_or_refused():
    with BrokenServer("unauthorized") as server:
        _, exc, _ = run(engine(server.url))
        assert exc.kind == "auth" and exc.status == 401 and "needs an API key" in str(exc)
        _, exc, _ = run(engine(server.url, api_key="wrong"))
        assert exc.kind == "auth" and "API key was refused" in str(exc)
        assert all("wrong" not in str(v) for v in exc.args)  # the key itself is never in the message


def test_a_non_json_model_list_is_a_clear_error():
    with BrokenServer("html_models") as server:
        _, exc, _ = run(engine(server.url))
    assert exc.kind == "bad_reply" and "not JSON" in str(exc) and "It works" in str(exc)


def test_a_refused_port_is_unreachable():
    port = free_port()
    with loopback_allowed(port):
        _, exc, _ = run(engine(f"http://127.0.0.1:{port}/v1"))
    assert exc.kind == "unreachable" and f"nothing is listening on 127.0.0.1:{port}" in str(exc)


def test_the_api_key_is_sent_as_a_bearer_token_fake_server():
    with BrokenServer("no_tokenizer") as server:
        model = engine(server.url, api_key="s3cret")
        model.complete(HELLO, max_tokens=4)
        assert server.requests[0][:2] == ("GET", "/v1/models")
    # (the handler does not keep headers; the Endpoint is what builds them)
    assert Endpoint.parse(server.url, api_key="s3cret").headers()["Authorization"] == "Bearer s3cret"


def test_an_ollama_name_without_tag_means_latest_and_an_unknown_one_is_refused_fake_server():
    with BrokenServer("no_tokenizer") as server:
        server.models = ["llama3.2:latest", "qwen2.5:7b"]
        assert engine(server.url, model="llama3.2").connect().model == "llama3.2:latest"
        _, exc, _ = run(engine(server.url, model="qwen2.5"))
    assert exc.kind == "unknown_model" and "it lists: llama3.2:latest, qwen2.5:7b" in str(exc)


def test_llama_server_timings_and_usage_are_used_fake_server():
    """llama-server reports ``timings.prompt_n`` (and usage): the engine uses them as is."""
    with BrokenServer("llama_server") as server:
        model = engine(server.url)
        text, stats = model.complete(HELLO, max_tokens=8)
        body = server.requests[-1][2]
    assert text == "Four is the answer " and stats.finish_reason == "stop"
    assert stats.prompt_tokens == 40 and stats.prompt_tokens_evaluated == 7 and stats.evaluated_source == "server"
    assert body["cache_prompt"] is True and body["stream"] is True and body["model"] == "broken-model"
    assert body["messages"] == [{"role": m.role, "content": m.content} for m in HELLO]


def test_without_a_tokenizer_tokens_are_estimated_and_the_ratio_is_measured_fake_server():
    with BrokenServer("no_tokenizer") as server:
        model = engine(server.url)
        before = model.count_tokens("x" * 300)
        assert model.token_counting.method == "estimate" and "cautious default" in model.token_counting.detail
        assert before == 100  # 300 chars / 3.0 chars per token
        chars = sum(len(m.content) for m in HELLO)  # 33 characters sent ...
        server.prompt_tokens = 11  # ... reported as 11 prompt tokens: 3.0 chars/token
        model.complete(HELLO, max_tokens=4)
        server.prompt_tokens = 3 * chars  # a server whose tokens are tiny: the ratio drops
        model.complete(HELLO, max_tokens=4)
    # measured over both replies: 66 chars / (11 + 99) tokens = 0.6 -> floored at 1.0 char/token
    assert model.token_counting.detail.startswith("an estimate of 1.0 characters per token (measured")
    assert model.count_tokens("x" * 300) == 300


def test_budget_json_of_a_turn_says_how_tokens_were_counted_fake_server(keepsake_home):
    from store_fakes import fake_hash_embedder

    from assistant.memory.store.facade import MemoryStore
    from assistant.session import ChatSession

    with BrokenServer("no_tokenizer") as server:
        store = MemoryStore(keepsake_home / "t.db", embed=fake_hash_embedder)
        sid = store.create_session(title="").id
        chat = ChatSession(store, engine(server.url), sid, settings=Settings().with_server(server.url))
        turn = chat.send("Hello there", max_tokens=4)
    assert turn.engine == "openai" and turn.model == "broken-model"
    assert turn.budget["token_counting"]["method"] == "estimate" and turn.budget["token_counting"]["exact"] is False
    assert turn.to_json()["prompt_tokens_evaluated_source"] == "predicted"


# -- pure parts ------------------------------------------------------------------------------------
def test_endpoint_parsing():
    e = Endpoint.parse("http://gpu-box:8080")
    assert (e.url, e.host, e.port, e.api("/models"), e.root("/tokenize")) == (
        "http://gpu-box:8080/v1", "gpu-box", 8080, "/v1/models", "/tokenize")  # fmt: skip
    assert Endpoint.parse("https://example.org/api/v1/").url == "https://example.org:443/api/v1"
    assert Endpoint.parse("https://example.org/api/v1/").root("/tokenize") == "/api/tokenize"
    assert Endpoint.parse("http://[::1]:11434/v1").url == "http://[::1]:11434/v1"
    for bad in ("", "gpu-box:8080", "ftp://x/v1", "http://:80/v1", "http://x/v1?a=1", "http://x:99999/v1"):
        with pytest.raises(ValueError):
            Endpoint.parse(bad)


def test_model_families_match_across_names_and_sizes(tmp_path):
    assert family("SmolLM2-135M-Instruct.Q4_1.gguf") == family("smollm2:135m") == "smollm2"
    assert family("/models/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf") == family("qwen2.5:7b") == "qwen2.5"
    assert family("Llama-3.2-1B-Instruct-Q4_K_M.gguf") == family("llama3.2:3b") == "llama3.2"
    assert family("") == ""
    local = [("Qwen2.5 0.5B", tmp_path / "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"), ("SmolLM2", tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf")]
    assert same_family_gguf("smollm2:1.7b", local) == local[1][1]
    assert same_family_gguf("mistral:7b", local) is None


def test_prefix_prediction_worked_example(tmp_path):
    """The module doc's example: turn 2 evaluates the new user message + template tokens."""
    assert (OVERHEAD, GEN_PROMPT) == (5, 3)
    ledger = PrefixLedger(tmp_path / "ledger.json")
    turn1 = [Sent.of("system", "S", 20), Sent.of("user", "U1", 10)]
    assert ledger.predict(turn1) == 43  # 25 + 15 + 3: nothing cached yet
    ledger.record(turn1, Sent.of("assistant", "R1", 12))
    turn2 = [*turn1, Sent.of("assistant", "R1", 12), Sent.of("user", "U2", 8)]
    # total 25 + 15 + 17 + 13 + 3 = 73; cached 25 + 15 + 3 + 12 = 55 -> 18
    assert ledger.predict(turn2) == 18
    assert PrefixLedger(tmp_path / "ledger.json").predict(turn2) == 18  # another process sees the same
    assert "U1" not in (tmp_path / "ledger.json").read_text()  # digests and counts, never text
    changed = [Sent.of("system", "S2", 20), *turn2[1:]]  # a new system prompt: nothing is reused
    assert ledger.predict(changed) == 73
    ledger.clear()
    assert ledger.predict(turn2) == 73


def test_settings_make_the_server_opt_in():
    assert not Settings().uses_server and Settings().choice == "default"
    s = Settings(engine="openai", engine_url="  ").validated()
    assert s.engine == "local" and not s.uses_server  # no URL, no server
    s = Settings(engine_url="http://h:1/v1", engine_model="m").validated()
    assert not s.uses_server  # a URL alone does not switch the engine
    on = s.with_server("http://h:1/v1")
    assert on.uses_server and on.engine_model == "m" and on.choice == "server"
    assert s.with_server("http://other:2/v1").engine_model == ""  # another server may not have "m"
    assert on.with_choice("/x/Qwen.gguf").engine == "local" and on.with_choice("/x/Qwen.gguf").engine_url == "http://h:1/v1"
    assert Settings(engine_timeout=0).validated().engine_timeout == 0.1


def test_settings_json_round_trip_of_the_engine(keepsake_home):
    save_settings(Settings().with_server("http://gpu-box:8080/v1", "qwen2.5:7b"), paths())
    raw = json.loads((keepsake_home / "config" / "settings.json").read_text())
    assert raw["engine"] == "openai" and raw["engine_url"] == "http://gpu-box:8080/v1" and raw["engine_model"] == "qwen2.5:7b"
    assert "key" not in json.dumps(raw).lower()  # the API key never goes to settings.json
    assert load_settings(paths()).uses_server


def test_no_url_means_no_socket_and_doctor_says_llama_cpp(profile, services):
    from assistant.doctor import engine_checks
    from assistant.engine.chat import LlamaChatModel

    # (conftest blocks every socket: any attempt here would raise NetworkBlocked)
    checks = [c.to_json() for c in engine_checks(profile)]
    assert [c["name"] for c in checks] == ["chat engine"] and checks[0]["engine"] == "llama.cpp"
    assert isinstance(services.chat_model(), LlamaChatModel)


def test_api_key_goes_to_the_keyring_else_a_file_encrypted_with_the_database_key(keepsake_home, monkeypatch, profile):
    from assistant.services import database_key_reader

    p, secret = paths(), database_key_reader(profile)
    url = "http://gpu-box:8080/v1"
    assert "OS keyring" in api_key.save(url, "k1", p, secret=secret) and api_key.load(url, p, secret=secret) == "k1"
    assert not (keepsake_home / "config" / "engine-keys.json").exists()
    api_key.save(url, None, p, secret=secret)
    assert api_key.load(url, p, secret=secret) is None and api_key.location(url, p) == "none"
    keyring.set_keyring(keyring.backends.fail.Keyring())  # headless Linux: no usable keyring (the test backend is off)
    where = api_key.save(url, "sk-live-7f3a9c", p, secret=secret)
    path = keepsake_home / "config" / "engine-keys.json"
    assert "encrypted with the database key" in where and oct(path.stat().st_mode & 0o777) == "0o600"
    raw = path.read_bytes()
    assert b"sk-live-7f3a9c" not in raw and b"7f3a9c" not in raw  # not in plaintext
    assert api_key.location(url, p).endswith("(encrypted with the database key)")
    assert api_key.load(url, p, secret=secret) == "sk-live-7f3a9c"  # decrypted with the database key
    # the database key is what opens it: another key reads nothing (and says so in the log)
    assert api_key.load(url, p, secret=lambda: "11" * 32) is None
    # the entry is bound to its URL: copied to another server it does not decrypt
    data = json.loads(raw)
    path.write_text(json.dumps({"http://other:8080/v1": data[url]}))
    assert api_key.load("http://other:8080/v1", p, secret=secret) is None
    # a plaintext entry an older Keepsake wrote is read once and re-written encrypted
    path.write_text(json.dumps({url: "sk-old-plain"}))
    assert api_key.load(url, p, secret=secret) == "sk-old-plain" and b"sk-old-plain" not in path.read_bytes()
    assert api_key.load(url, p, secret=secret) == "sk-old-plain"
    monkeypatch.setenv(api_key.ENV, "from-env")
    assert api_key.load(url, p, secret=secret) == "from-env"


def test_after_a_delete_the_next_request_does_not_reuse_the_servers_cache_fake_server():
    """services._after_delete calls reset_cache() on every chat model: deleted text may be in
    the server's prompt cache, so the next request asks for no reuse (llama-server's
    cache_prompt) and the prediction counts the whole prompt."""
    with BrokenServer("no_tokenizer") as server:
        model = engine(server.url)
        model.complete(HELLO, max_tokens=4)
        again = [*HELLO, ChatMessage("assistant", "Four is the answer "), ChatMessage("user", "Thanks")]
        predicted_warm = model.generate(again, max_tokens=4)
        predicted_warm.consume()
        model.reset_cache()
        cold = model.generate(again, max_tokens=4)
        cold.consume()
        bodies = [b for method, path, b in server.requests if path == "/v1/chat/completions"]
    assert [b["cache_prompt"] for b in bodies] == [True, True, False]
    # (the scripted server reports 40 prompt tokens every time: the prediction never exceeds it)
    assert predicted_warm.stats.prompt_tokens_evaluated < cold.stats.prompt_tokens_evaluated == cold.stats.prompt_tokens == 40
