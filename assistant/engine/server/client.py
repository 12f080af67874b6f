"""HTTP for the OpenAI-compatible engine: JSON calls and a cancellable SSE stream (stdlib only).

Only the configured server is ever contacted: every connection goes to the scheme, host and port
of its base URL (``http.client`` follows no redirects and ignores proxy variables). Nothing here
runs unless a server URL is configured.

Failures become :class:`~assistant.engine.errors.EngineError` with a ``kind`` and one sentence:
refused / unresolvable host -> ``unreachable``; no byte for ``read_timeout`` seconds (before or
during a reply) -> ``timeout``; 401/403 -> ``auth``; a body that is not JSON, a stream that is not
SSE or that ends without ``data: [DONE]`` -> ``bad_reply``; any other error status -> ``http``.

Stop: :meth:`Client.stream` takes a ``threading.Event``; a watcher thread shuts the socket down
when it is set, so a read blocked on a slow server returns at once and the server sees the
client go away (llama.cpp servers stop generating then).

Deadlines (:class:`Deadline`): the same watcher ends a stream that takes longer than the whole
reply may take (``reply_timeout``), or that sends no new reply text for ``read_timeout`` seconds
- keep-alive comments, empty deltas or one byte at a time do not count as text, so a server
that trickles nothing useful cannot keep a turn running. An ended stream raises a ``timeout``
EngineError after what arrived was yielded (the caller keeps the partial reply). JSON calls
(``/models``, ``/props``, ``/tokenize``, ...) get the same overall limit (``Client.overall``,
the model's ``reply_timeout``): a server that never answers, or drips its answer a byte at a
time, is cut off there with a ``timeout`` EngineError (each read also times out after
``read_timeout``).
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterator
from urllib.parse import urlsplit

from assistant.engine.errors import EngineError

DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 120.0  # a big model's first token on a long prompt can take a while
WATCH_INTERVAL_S = 0.05  # how often the stop watcher looks at the cancel event


class Deadline:
    """When a stream must end: ``overall`` seconds after it started, or ``idle`` seconds after
    the last reply text (:meth:`progress`; the first text too). ``expired`` names which one
    ended it ("overall" | "idle", None while running). Times from ``time.monotonic``."""

    def __init__(self, overall: float, idle: float, clock: Any = None) -> None:
        self._clock = clock or time.monotonic
        self.overall, self.idle = float(overall), float(idle)
        self.started = self.last = self._clock()
        self.expired: str | None = None

    def progress(self) -> None:
        self.last = self._clock()

    def check(self) -> str | None:
        """"overall" / "idle" once a limit passed (and from then on), else None."""
        if self.expired is None:
            now = self._clock()
            if now - self.last >= self.idle:
                self.expired = "idle"
            elif now - self.started >= self.overall:
                self.expired = "overall"
        return self.expired


@dataclass(frozen=True)
class Endpoint:
    """A server's OpenAI base URL, split; ``api(path)`` is under it (``/v1/...``), ``root(path)``
    under the server's root (llama-server's ``/tokenize``, llama_cpp.server's ``/extras/...``)."""

    url: str
    scheme: str
    host: str
    port: int
    base_path: str
    api_key: str | None = None
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT

    @classmethod
    def parse(cls, url: str, *, api_key: str | None = None, read_timeout: float = DEFAULT_READ_TIMEOUT,
              connect_timeout: float = DEFAULT_CONNECT_TIMEOUT) -> "Endpoint":  # fmt: skip
        """``http(s)://host[:port][/path]``; an empty path means ``/v1`` (Ollama, llama-server,
        LM Studio and vLLM all serve the OpenAI API there). Raises ``ValueError`` when malformed."""
        text = (url or "").strip()
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not a server URL: {url!r} (expected http://host:port/v1)")
        if parts.query or parts.fragment:
            raise ValueError(f"the server URL must not have a query or fragment: {url!r}")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise ValueError(f"bad port in server URL: {url!r}") from None
        path = parts.path.rstrip("/") or "/v1"
        base = f"{parts.scheme}://{_netloc(parts.hostname, port)}{path}"
        return cls(base, parts.scheme, parts.hostname, port, path, api_key or None, connect_timeout, read_timeout)

    @property
    def root_path(self) -> str:
        return self.base_path[: -len("/v1")] if self.base_path.endswith("/v1") else self.base_path

    def api(self, path: str) -> str:
        return self.base_path + path

    def root(self, path: str) -> str:
        return self.root_path + path

    def headers(self, *, stream: bool = False) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "text/event-stream" if stream else "application/json"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        return h


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Client:
    """Requests to one :class:`Endpoint`. JSON calls share one keep-alive connection (under a
    lock); each stream has its own connection, closed when the stream ends or is stopped."""

    def __init__(self, endpoint: Endpoint, overall: float | None = None) -> None:
        self.endpoint = endpoint
        self.overall = float(overall if overall is not None else endpoint.read_timeout)  # one JSON call, at most
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()

    # -- connections ---------------------------------------------------------------------------
    def _connect(self) -> http.client.HTTPConnection:
        e = self.endpoint
        if e.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                e.host, e.port, timeout=e.connect_timeout, context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(e.host, e.port, timeout=e.connect_timeout)
        try:
            conn.connect()
        except BaseException as exc:
            conn.close()
            if isinstance(exc, Exception):
                raise self._error(exc, during="connect") from None
            raise
        conn.sock.settimeout(e.read_timeout)
        return conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- JSON ----------------------------------------------------------------------------------
    def get_json(self, path: str) -> Any:
        return self._json("GET", path, None)

    def post_json(self, path: str, body: dict) -> Any:
        return self._json("POST", path, body)

    def _json(self, method: str, path: str, body: dict | None) -> Any:
        payload = json.dumps(body).encode("utf-8") if body is not None else None
        with self._lock:
            for attempt in (0, 1):  # a kept-alive connection the server closed: one fresh retry
                fresh = self._conn is None
                if fresh:
                    self._conn = self._connect()
                conn = self._conn
                deadline, done = Deadline(self.overall, float("inf")), threading.Event()
                threading.Thread(target=_watch, args=(conn.sock, None, done, deadline), name="engine-json-deadline",
                                 daemon=True).start()  # fmt: skip
                try:
                    conn.request(method, path, body=payload, headers=self.endpoint.headers())
                    resp = conn.getresponse()
                    data = resp.read()
                except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                    conn.close()
                    self._conn = None
                    if deadline.check():
                        raise self._late(path, deadline) from None
                    if fresh or attempt:
                        raise self._error(exc, during="reply") from None
                    continue
                except Exception as exc:
                    conn.close()
                    self._conn = None
                    if deadline.check():
                        raise self._late(path, deadline) from None
                    raise self._error(exc, during="reply") from None
                finally:
                    done.set()
                if deadline.check():  # shut down just as the last byte came: the connection is gone
                    conn.close()
                    self._conn = None
                if resp.will_close:
                    conn.close()
                    self._conn = None
                break
        if resp.status >= 400:
            raise self._status_error(resp.status, data, path)
        return self._parse(data, path)

    # -- streaming -----------------------------------------------------------------------------
    def stream(self, path: str, body: dict, cancel: threading.Event | None = None,
               deadline: Deadline | None = None) -> Iterator[dict]:  # fmt: skip
        """POST ``body`` and yield each SSE ``data:`` event as a dict until ``data: [DONE]``.
        Returns quietly when ``cancel`` is set (the connection is closed). A server that answers
        with plain JSON instead of a stream yields that one object. ``deadline``: the caller
        calls ``deadline.progress()`` when an event carried reply text; once it expires the
        connection is closed and a ``timeout`` EngineError raised."""
        conn = self._connect()
        done = threading.Event()
        resp = None
        try:
            try:
                conn.request("POST", path, body=json.dumps(body).encode("utf-8"), headers=self.endpoint.headers(stream=True))
                if cancel is not None or deadline is not None:  # the socket itself: http.client drops conn.sock once read to close
                    threading.Thread(target=_watch, args=(conn.sock, cancel, done, deadline), name="engine-stop", daemon=True).start()
                resp = conn.getresponse()
            except Exception as exc:
                if cancel is not None and cancel.is_set():
                    return
                if deadline is not None and deadline.check():
                    raise self._expired(deadline) from None
                raise self._error(exc, during="reply") from None
            if resp.status >= 400:
                raise self._status_error(resp.status, _safe_read(resp), path)
            ctype = (resp.getheader("Content-Type") or "").lower()
            if "application/json" in ctype:
                yield self._parse(_safe_read(resp), path)
                return
            yield from self._events(resp, cancel, deadline)
        finally:
            done.set()
            if resp is not None:
                resp.close()
            conn.close()

    def _events(self, resp: http.client.HTTPResponse, cancel: threading.Event | None,
                deadline: Deadline | None = None) -> Iterator[dict]:  # fmt: skip
        """SSE: ``data:`` lines up to a blank line make one event; comments (``:`` pings),
        ``event:``/``id:``/``retry:`` fields are skipped; anything else is not an event stream."""
        data: list[str] = []
        seen = 0
        while True:
            try:
                raw = resp.readline()
            except Exception as exc:
                if cancel is not None and cancel.is_set():
                    return
                if deadline is not None and deadline.check():
                    raise self._expired(deadline) from None
                raise self._error(exc, during="stream") from None
            if cancel is not None and cancel.is_set():
                return
            if deadline is not None and deadline.check():  # pings and empty lines still arrive: the limit holds
                raise self._expired(deadline)
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
                continue
            if line.startswith((":", "event:", "id:", "retry:")):
                continue
            if line:
                raise EngineError("bad_reply", self.endpoint.url,
                                  f"the model server at {self.endpoint.url} did not answer with an event stream "
                                  f"(got {_preview(line)})")
            if data:  # a blank line (or the end of the body) dispatches the event
                payload, data = "\n".join(data), []
                if payload.strip() == "[DONE]":
                    return
                seen += 1
                event = self._parse(payload.encode("utf-8"), "stream")
                if isinstance(event, dict) and event.get("error"):
                    raise EngineError("http", self.endpoint.url, f"the model server reported an error: {_error_text(event)}")
                if isinstance(event, dict):
                    yield event
            if not raw:
                what = "sending anything" if not seen else "finishing the reply"
                raise EngineError("bad_reply", self.endpoint.url,
                                  f"the model server at {self.endpoint.url} closed the connection before {what} (no data: [DONE])")

    # -- errors ----------------------------------------------------------------------------------
    def _late(self, path: str, deadline: Deadline) -> EngineError:
        url = self.endpoint.url
        return EngineError("timeout", url, f"the model server at {url} had not finished answering {path} after "
                                           f"{deadline.overall:g} s; the request was given up")

    def _expired(self, deadline: Deadline) -> EngineError:
        url = self.endpoint.url
        if deadline.expired == "overall":
            return EngineError("timeout", url, f"the model server at {url} was still replying after {deadline.overall:g} s; "
                                               "the reply was cut off there")
        where = "in the middle of the reply" if deadline.last > deadline.started else "before replying"
        return EngineError("timeout", url, f"the model server at {url} sent nothing for {deadline.idle:g} s {where} "
                                           "(keep-alives, empty pieces and trickled bytes are not reply text)")

    def _parse(self, data: bytes, where: str) -> Any:
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise EngineError("bad_reply", self.endpoint.url,
                              f"the model server at {self.endpoint.url} sent a reply that is not JSON "
                              f"({where}: {_preview(data.decode('utf-8', 'replace'))})") from None

    def _status_error(self, status: int, data: bytes, path: str) -> EngineError:
        url = self.endpoint.url
        detail = _error_text(_maybe_json(data)) or _preview(data.decode("utf-8", "replace"))
        if status in (401, 403):
            has_key = "the API key was refused" if self.endpoint.api_key else "it needs an API key"
            return EngineError("auth", url, f"the model server at {url} refused the request (HTTP {status}: {has_key})",
                               status=status)
        if status == 404:
            return EngineError("http", url, f"the model server at {url} has no {path} (HTTP 404); "
                                            "is this its OpenAI base URL (usually ending in /v1)?", status=404)
        return EngineError("http", url, f"the model server at {url} answered HTTP {status}: {detail}", status=status)

    def _error(self, exc: Exception, *, during: str) -> EngineError:
        url, e = self.endpoint.url, self.endpoint
        if isinstance(exc, EngineError):
            return exc
        if isinstance(exc, ConnectionRefusedError):
            return EngineError("unreachable", url, f"cannot reach the model server at {url}: nothing is listening on "
                                                   f"{_netloc(e.host, e.port)} (connection refused)")
        if isinstance(exc, socket.gaierror):
            return EngineError("unreachable", url, f"cannot reach the model server at {url}: unknown host {e.host!r}")
        if isinstance(exc, (TimeoutError, socket.timeout)):
            if during == "connect":
                return EngineError("unreachable", url, f"cannot reach the model server at {url}: no answer to connect "
                                                       f"within {e.connect_timeout:g} s")
            where = "in the middle of the reply" if during == "stream" else "before replying"
            return EngineError("timeout", url, f"the model server at {url} sent nothing for {e.read_timeout:g} s {where}")
        if isinstance(exc, ssl.SSLError):
            return EngineError("unreachable", url, f"cannot talk to the model server at {url}: TLS error ({exc})")
        if isinstance(exc, (http.client.BadStatusLine, http.client.LineTooLong)):
            return EngineError("bad_reply", url, f"the model server at {url} did not answer like an HTTP server")
        if isinstance(exc, (http.client.IncompleteRead, http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
            where = "in the middle of the reply" if during == "stream" else "without answering"
            return EngineError("bad_reply", url, f"the model server at {url} closed the connection {where}")
        if isinstance(exc, OSError):
            if during == "connect":
                return EngineError("unreachable", url, f"cannot reach the model server at {url}: {exc.strerror or exc}")
            return EngineError("bad_reply", url, f"the connection to the model server at {url} failed: {exc.strerror or exc}")
        return EngineError("bad_reply", url, f"the model server at {url} sent something unexpected ({type(exc).__name__}: {exc})")


def _watch(sock: socket.socket, cancel: threading.Event | None, done: threading.Event, deadline: Deadline | None = None) -> None:
    """Shut the stream's socket down as soon as ``cancel`` is set or ``deadline`` expires
    (unblocks a waiting read)."""
    while not done.wait(WATCH_INTERVAL_S):
        if (cancel is not None and cancel.is_set()) or (deadline is not None and deadline.check()):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return


def _safe_read(resp: http.client.HTTPResponse) -> bytes:
    try:
        return resp.read()
    except Exception:  # noqa: BLE001 - an error body we cannot read is still an error status
        return b""


def _maybe_json(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _error_text(obj: Any) -> str:
    """The message inside an OpenAI-style ``{"error": {"message": ...}}`` or FastAPI-style
    ``{"detail": ...}`` body ("" when there is none)."""
    if not isinstance(obj, dict):
        return ""
    err = obj.get("error", obj.get("detail"))
    if isinstance(err, dict):
        err = err.get("message") or err.get("msg") or json.dumps(err)[:200]
    elif isinstance(err, list) and err:
        err = "; ".join(str(e.get("msg", e)) if isinstance(e, dict) else str(e) for e in err[:3])
    return str(err)[:300] if err else ""


def _preview(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text[:n] + ("…" if len(text) > n else "")) if text else "an empty body"
