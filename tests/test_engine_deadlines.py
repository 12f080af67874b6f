"""A model server cannot keep a turn running (issue 26): one deadline per reply, an idle deadline
that keep-alive comments, empty deltas and single bytes do not reset, and ``max_tokens``
enforced on this side. Against a deliberately misbehaving local server (``BrokenServer`` modes
forever / pings / empty_deltas / drip): no chat model involved, so FAKE servers throughout."""

from __future__ import annotations

import json

import pytest
from model_servers import BrokenServer
from store_fakes import run_cli

from assistant.config import Settings, paths, save_settings
from assistant.engine.chat import ChatMessage
from assistant.engine.errors import EngineError
from assistant.engine.server.client import Deadline
from assistant.engine.server.model import OpenAIChatModel

HELLO = [ChatMessage("system", "You are a helpful assistant."), ChatMessage("user", "Hello")]


def _consume(model: OpenAIChatModel, max_tokens: int):
    gen = model.generate(HELLO, max_tokens=max_tokens)
    pieces = []
    try:
        for piece in gen:
            pieces.append(piece)
    except EngineError as exc:
        return pieces, exc, gen
    return pieces, None, gen


def test_deadline_worked_example():
    # overall 10 s, idle 3 s; text at t=2 and t=4: at t=6.9 still running (6.9 - 4 = 2.9 < 3),
    # at t=7 idle (7 - 4 = 3); a stream with text every second ends at t=10 (overall)
    t = [0.0]
    d = Deadline(10, 3, clock=lambda: t[0])
    for now in (2, 4):
        t[0] = now
        d.progress()
    t[0] = 6.9
    assert d.check() is None
    t[0] = 7.0
    assert d.check() == "idle"
    t[0] = 0.0
    d = Deadline(10, 3, clock=lambda: t[0])
    for now in range(1, 11):
        t[0] = now
        assert d.check() is (None if now < 10 else "overall")
        d.progress()


@pytest.mark.parametrize("mode, which", [
    ("forever", "was still replying after 1.5 s"),
    ("pings", "sent nothing for 0.5 s in the middle of the reply"),
    ("empty_deltas", "sent nothing for 0.5 s in the middle of the reply"),
    ("drip", "sent nothing for 0.5 s in the middle of the reply"),
])  # fmt: skip
def test_an_endless_or_trickling_stream_ends_with_the_partial_reply_fake_server(mode, which):
    with BrokenServer(mode) as server:
        server.interval_s = 0.1  # tokens (forever) or keep-alives / empty deltas / bytes, 10 a second
        model = OpenAIChatModel(server.url, local_models=lambda: [], read_timeout=0.5, reply_timeout=1.5)
        pieces, exc, gen = _consume(model, max_tokens=100_000)
        assert server.disconnected.wait(10)  # the connection was closed: the server stops too
    assert exc is not None and exc.kind == "timeout" and which in str(exc) and "\n" not in str(exc), exc
    assert pieces[0] == "Partial" and gen.text.startswith("Partial")  # what arrived is kept
    assert gen.stats.finish_reason == "timeout"
    if mode == "forever":
        assert len(pieces) > 1


def test_max_tokens_is_enforced_when_the_server_ignores_it_fake_server():
    with BrokenServer("forever") as server:
        server.interval_s = 0.001
        model = OpenAIChatModel(server.url, local_models=lambda: [], read_timeout=30)
        pieces, exc, gen = _consume(model, max_tokens=20)
        assert server.disconnected.wait(10)
    assert exc is None and len(pieces) == 20  # one piece per token, as servers stream
    assert gen.stats.finish_reason == "length" and gen.stats.generated_tokens == 20
    assert server.requests[-1][2]["max_tokens"] == 20


def test_chat_once_against_an_endless_server_exits_2_with_the_partial_reply_kept_fake_server(capsys, converted_embedder_path):
    save_settings(Settings(engine_timeout=1.0), paths())
    with BrokenServer("forever") as server:
        server.interval_s = 0.05
        code, out, err = run_cli(capsys, "chat", "--engine-url", server.url, "--once", "Tell me a story", "--max-tokens", "100000")
    assert code == 2, err
    assert out.startswith("Partial word0"), (out, err)  # the partial reply is printed (and stored)
    assert len(err.strip().splitlines()) == 1 and "the partial reply above is kept" in err, err
    code, out, _ = run_cli(capsys, "sessions", "list", "--json")
    sid = json.loads(out)[0]["id"]
    code, out, _ = run_cli(capsys, "sessions", "show", str(sid), "--json")
    messages = json.loads(out)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"] and messages[1]["content"].startswith("Partial word0")


class _Stalling:
    """A loopback TCP server (FAKE) that reads a request and then either never answers
    (``silent``) or sends HTTP headers and drips its body one byte every 0.2 s forever
    (``drip``: each read gets a byte well within read_timeout, so only an overall limit ends it)."""

    def __init__(self, mode: str) -> None:
        import socket
        import threading

        from model_servers import HOST, allow

        self.mode, self.stop = mode, threading.Event()
        self.sock = socket.socket()
        self.sock.bind((HOST, 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://{HOST}:{self.port}/v1"
        allow(self.port)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import threading

        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn) -> None:
        try:
            conn.recv(65536)
            if self.mode == "drip":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
            while not self.stop.wait(0.2):
                if self.mode == "drip":
                    conn.sendall(b" ")
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        from model_servers import disallow

        self.stop.set()
        disallow(self.port)
        self.sock.close()


@pytest.mark.parametrize("mode", ["silent", "drip"])
def test_non_streaming_calls_end_at_the_overall_deadline_fake_server(mode):
    """/models (connect), /tokenize and /extras/tokenize/count against a server that never
    finishes: each call ends with a timeout error by reply_timeout (2 s) + the 0.05 s watcher
    tick + slack, never hangs; read_timeout 1.5 s, so only the overall limit stops ``drip``."""
    import time

    from assistant.engine.server.tokens import ServerTokenizer

    server = _Stalling(mode)
    model = OpenAIChatModel(server.url, model="m", read_timeout=1.5, reply_timeout=2.0)
    try:
        calls = {"/models": model.connect,
                 "/tokenize": lambda: ServerTokenizer(model.client, "tokenize", "m")("hello"),
                 "/extras/tokenize/count": lambda: ServerTokenizer(model.client, "extras", "m")("hello")}  # fmt: skip
        for name, call in calls.items():
            t0 = time.monotonic()
            with pytest.raises(EngineError) as err:
                call()
            took = time.monotonic() - t0
            assert err.value.kind == "timeout", (name, err.value)
            assert took < 2.0 + 1.5, (name, took)  # silent: 1.5 s read timeout; drip: 2 s overall
            if mode == "drip":
                assert took >= 1.9 and "had not finished answering" in str(err.value), (name, took, err.value)
    finally:
        model.close()
        server.close()
