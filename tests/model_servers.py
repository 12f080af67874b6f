"""Model servers for the engine tests, all on 127.0.0.1 (the only addresses tests may reach,
and only while one of these is up: see ``conftest.ALLOWED_LOOPBACK``).

- :class:`LlamaCppServer`: the REAL ``python -m llama_cpp.server`` serving the default SmolLM2
  GGUF (llama-cpp-python's own OpenAI-compatible server). Its stderr log carries llama.cpp's
  counter per request (``prompt eval time = ... / N tokens``): :meth:`evaluated_since` reads it.
- :class:`BrokenServer`: a deliberately broken HTTP server (closes mid-stream, sends garbage or
  non-JSON, goes silent past the timeout, answers 401, is not HTTP at all) plus two scripted
  "well-behaved" modes that reply like llama-server / like a server without a tokenizer -
  those are fakes for logic that does not depend on a model (tests using them say so).
- :class:`ToggleProxy`: a TCP relay to a real server that can be taken down (connection
  refused) and brought back on the same port: "the server was down, now retry".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import conftest

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def loopback_allowed(port: int):
    """Let this process connect to 127.0.0.1:``port`` (and nothing else) inside the block."""
    conftest.ALLOWED_LOOPBACK.add((HOST, port))
    try:
        yield
    finally:
        conftest.ALLOWED_LOOPBACK.discard((HOST, port))


def allow(port: int) -> None:
    conftest.ALLOWED_LOOPBACK.add((HOST, port))


def disallow(port: int) -> None:
    conftest.ALLOWED_LOOPBACK.discard((HOST, port))


# -- the real server ------------------------------------------------------------------------------
_PERF = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")


class LlamaCppServer:
    """``python -m llama_cpp.server`` on a free port, serving ``model`` (start/stop)."""

    def __init__(self, model: Path, log_path: Path, n_ctx: int = 4096) -> None:
        self.model, self.log_path, self.n_ctx = model, log_path, n_ctx
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}/v1"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 300.0) -> "LlamaCppServer":
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--host", HOST, "--port", str(self.port),
             "--n_ctx", str(self.n_ctx), "--n_threads", "2", "--n_threads_batch", "2"],
            stdout=self._log, stderr=subprocess.STDOUT, env=env)  # fmt: skip
        allow(self.port)
        end = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited ({self.proc.returncode}):\n{self.log()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if time.monotonic() > end:
                self.stop()
                raise RuntimeError(f"llama_cpp.server did not start in {timeout:.0f} s:\n{self.log()[-2000:]}")
            time.sleep(0.25)

    def stop(self) -> None:
        disallow(self.port)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "_log", None):
            self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def log_size(self) -> int:
        return self.log_path.stat().st_size

    def evaluated_since(self, offset: int) -> list[int]:
        """llama.cpp's prompt-eval counts of the requests logged after byte ``offset``."""
        with open(self.log_path, "rb") as fh:
            fh.seek(offset)
            text = fh.read().decode("utf-8", "replace")
        return [int(n) for n in _PERF.findall(text)]


# -- the broken server ----------------------------------------------------------------------------
def _chunk(event: dict) -> bytes:
    return f"data: {json.dumps(event)}\n\n".encode()


def _delta(text: str, finish: str | None = None) -> dict:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "BrokenServer"

    def log_message(self, *_a) -> None:  # quiet
        pass

    def _json(self, status: int, obj) -> None:
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _sse_head(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        mode = self.server.mode
        self.server.requests.append(("GET", self.path, None))
        if mode == "unauthorized":
            return self._json(401, {"error": {"message": "Invalid API key", "type": "auth"}})
        if mode == "html_models":
            body = b"<html><body>It works!</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path == "/v1/models":
            return self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in self.server.models]})
        self._json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append(("POST", self.path, body))
        mode = self.server.mode
        if mode == "unauthorized":
            return self._json(401, {"error": {"message": "Invalid API key", "type": "auth"}})
        if self.path != "/v1/chat/completions":
            return self._json(404, {"detail": "Not Found"})
        if mode == "non_http":
            self.wfile.write(b"SSH-2.0-OpenSSH_9.6\r\n")
            self.close_connection = True
            return
        self._sse_head()
        w = self.wfile
        if mode == "close_mid_stream":
            w.write(_chunk(_delta("Hello")) + _chunk(_delta(" there")))
            w.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        elif mode == "garbage":
            w.write(b"<html>502 Bad Gateway</html>\n\n")
        elif mode == "not_json":
            w.write(b"data: {this is not json\n\n")
        elif mode == "sleep":
            w.write(_chunk(_delta("Hello")))
            w.flush()
            self.server.wake.wait(self.server.sleep_s)
        elif mode == "loop":  # SmolLM2's own sentence loop (recorded), streamed slowly, 200 times
            try:
                for _ in range(200):
                    for word in "This is a reference to a message that was retrieved from a session.".split(" "):
                        w.write(_chunk(_delta(word + " ")))
                        w.flush()
                        time.sleep(0.01)
                w.write(b"data: [DONE]\n\n")
            except OSError:
                self.server.disconnected.set()  # the client closed the stream
        elif mode in ("forever", "pings", "empty_deltas", "drip"):  # a server that never ends its reply
            try:
                w.write(_chunk(_delta("Partial")))
                w.flush()
                n = 0
                while not self.server.wake.is_set():
                    if mode == "forever":
                        w.write(_chunk(_delta(f" word{n}")))
                    elif mode == "pings":
                        w.write(b": keep-alive\n\n")
                    elif mode == "empty_deltas":
                        w.write(_chunk(_delta("")))
                    else:
                        w.write(b"d")  # one byte at a time, never a whole line
                    w.flush()
                    n += 1
                    time.sleep(self.server.interval_s)
            except OSError:
                self.server.disconnected.set()  # the client closed the stream
        elif mode in ("llama_server", "no_tokenizer"):
            reply = self.server.reply
            for word in reply.split(" "):
                w.write(_chunk(_delta(word + " ")))
            final = _delta("", "stop")
            prompt = self.server.prompt_tokens
            final["usage"] = {"prompt_tokens": prompt, "completion_tokens": len(reply.split(" ")), "total_tokens": prompt + 3}
            if mode == "llama_server":
                final["timings"] = {"cache_n": prompt - 7, "prompt_n": 7, "predicted_n": len(reply.split(" "))}
            w.write(_chunk(final) + b"data: [DONE]\n\n")
        self.close_connection = True


class BrokenServer(ThreadingHTTPServer):
    """``mode``: close_mid_stream | garbage | not_json | non_http | sleep | unauthorized |
    html_models | forever | pings | empty_deltas | drip (one piece "Partial", then endless
    tokens / keep-alive comments / empty deltas / single bytes every ``interval_s``) | loop |
    llama_server | no_tokenizer (the last three are scripted fakes)."""

    daemon_threads = True

    def __init__(self, mode: str = "close_mid_stream") -> None:
        super().__init__((HOST, 0), _Handler)
        self.mode = mode
        self.port = self.server_address[1]
        self.url = f"http://{HOST}:{self.port}/v1"
        self.requests: list[tuple[str, str, dict | None]] = []
        self.models = ["broken-model"]
        self.sleep_s = 3600.0
        self.interval_s = 0.05
        self.wake = threading.Event()
        self.disconnected = threading.Event()
        self.reply = "Four is the answer"
        self.prompt_tokens = 40
        self._thread = threading.Thread(target=self.serve_forever, name="broken-server", daemon=True)

    def __enter__(self) -> "BrokenServer":
        self._thread.start()
        allow(self.port)
        return self

    def __exit__(self, *exc) -> None:
        disallow(self.port)
        self.wake.set()
        self.shutdown()
        self.server_close()


# -- a relay that can go down ---------------------------------------------------------------------
class _Relay(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        upstream = socket.create_connection((HOST, self.server.target))
        pipes = [threading.Thread(target=_pipe, args=(a, b), daemon=True) for a, b in ((self.request, upstream), (upstream, self.request))]
        for p in pipes:
            p.start()
        for p in pipes:
            p.join()
        upstream.close()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


class _RelayServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class ToggleProxy:
    """A TCP relay on a fixed port to ``target`` (a real server's port): :meth:`up` listens,
    :meth:`down` stops listening (connections are refused) - the same URL throughout."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}/v1"
        self._server: _RelayServer | None = None

    def up(self) -> None:
        self._server = _RelayServer((HOST, self.port), _Relay)
        self._server.target = self.target
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        allow(self.port)

    def down(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
