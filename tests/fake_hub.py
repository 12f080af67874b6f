"""A fake Hugging Face hub on 127.0.0.1 for the catalog download tests (no internet here).

It speaks the part of the hub's URL layout that ``huggingface_hub`` uses to download one file:

- ``HEAD|GET /{repo}/resolve/{revision}/{file}`` -> ``302`` to the "CDN" with the headers of an
  LFS file: ``X-Repo-Commit``, ``X-Linked-Etag: "<sha256>"``, ``X-Linked-Size``, ``ETag``;
- ``GET /cdn/{sha256}/{file}`` on a second port (another origin, as the hub's CDN is another host,
  so huggingface_hub reads the metadata from the redirect itself) -> the bytes, honouring
  ``Range: bytes=N-`` (``206``).

Knobs for the tests: ``rate`` (bytes/s, so a download can be killed half-way), ``tamper`` (serve
different bytes under the same SHA-256). ``sent`` counts the body bytes served since
:meth:`reset_counters` - "bytes fetched the second time".
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "127.0.0.1"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


class FakeHub:
    def __init__(self) -> None:
        self.files: dict[tuple[str, str], tuple[Path, str]] = {}
        self.rate: float | None = None
        self.tamper = False
        self.sent = 0
        self._epoch = 0  # reset_counters() starts a new one: a handler still sending for a killed client counts for none
        self.requests: list[tuple[str, str, str | None]] = []  # (method, path, Range)
        self._lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                hub._handle(self, head=True)

            def do_GET(self) -> None:
                hub._handle(self, head=False)

        self.servers = [ThreadingHTTPServer((HOST, 0), Handler) for _ in range(2)]  # the hub, its CDN
        for server in self.servers:
            server.daemon_threads = True
        self.port, self.cdn_port = (server.server_address[1] for server in self.servers)
        self.url, self.cdn_url = f"http://{HOST}:{self.port}", f"http://{HOST}:{self.cdn_port}"

    def add(self, repo: str, filename: str, path: Path) -> str:
        sha = sha256_of(path)
        self.files[(repo, filename)] = (Path(path), sha)
        return sha

    def reset_counters(self) -> None:
        with self._lock:
            self.sent, self.requests = 0, []
            self._epoch += 1

    def __enter__(self) -> "FakeHub":
        for server in self.servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()

    # -- request handling ------------------------------------------------------------------------
    def _handle(self, req: BaseHTTPRequestHandler, head: bool) -> None:
        with self._lock:
            self.requests.append((req.command, req.path, req.headers.get("Range")))
        resolve = re.fullmatch(r"/(.+?/.+?)/resolve/([^/]+)/(.+)", req.path.split("?")[0])
        cdn = re.fullmatch(r"/cdn/([0-9a-f]{64})/(.+)", req.path.split("?")[0])
        if resolve:
            found = self.files.get((resolve.group(1), resolve.group(3)))
            if found is None:
                return self._status(req, 404, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": COMMIT})
            path, sha = found
            return self._status(req, 302, {
                "Location": f"{self.cdn_url}/cdn/{sha}/{resolve.group(3)}", "X-Repo-Commit": COMMIT,
                "X-Linked-Etag": f'"{sha}"', "X-Linked-Size": str(path.stat().st_size), "ETag": '"gitblob"',
            })  # fmt: skip
        if cdn:
            match = [p for p, s in self.files.values() if s == cdn.group(1)]
            if not match:
                return self._status(req, 404, {})
            return self._serve(req, match[0], head)
        return self._status(req, 404, {})

    @staticmethod
    def _status(req, code: int, headers: dict[str, str]) -> None:
        req.send_response(code)
        for k, v in headers.items():
            req.send_header(k, v)
        req.send_header("Content-Length", "0")
        req.end_headers()

    def _serve(self, req, path: Path, head: bool) -> None:
        size = path.stat().st_size
        start = 0
        rng = re.fullmatch(r"bytes=(\d+)-", req.headers.get("Range") or "")
        if rng:
            start = int(rng.group(1))
            req.send_response(206)
            req.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        else:
            req.send_response(200)
        req.send_header("Content-Length", str(size - start))
        req.send_header("Accept-Ranges", "bytes")
        req.end_headers()
        if head:
            return
        chunk_size = 256 * 1024
        epoch = self._epoch
        with open(path, "rb") as f:
            f.seek(start)
            pos = start
            while chunk := f.read(chunk_size):
                if self.tamper and pos <= size // 2 < pos + len(chunk):
                    i = size // 2 - pos
                    chunk = chunk[:i] + bytes([chunk[i] ^ 0xFF]) + chunk[i + 1:]  # one flipped byte
                try:
                    req.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return
                pos += len(chunk)
                with self._lock:
                    if epoch == self._epoch:
                        self.sent += len(chunk)
                if self.rate:
                    time.sleep(len(chunk) / self.rate)
