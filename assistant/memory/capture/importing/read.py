"""Reading chat exports for import, streamed: one message at a time, never the whole file.

    fmt = detect_format(path)                 # "jsonl" | "chatgpt" | "keepsake"
    problems = Problems()
    with open_export(path, fmt) as src:
        for conv, msg in src.messages(problems):
            ...                               # src.done / src.total: bytes read / file size

Formats:

- **Keepsake JSONL** (``.jsonl``, or a file whose first line is a JSON object): one message a line,
  ``{"session": str, "role": "user"|"assistant", "content": str, "timestamp": ISO-8601}`` (a
  timestamp without an offset is UTC). Each line is decoded on its own: a line that is not UTF-8,
  not JSON, misses a field, names an unknown role or has a bad timestamp is a *problem* on that
  line (line number and reason) and is skipped; a line longer than ``MAX_LINE_BYTES`` is skipped
  without being held in memory. The rest is imported.
- **ChatGPT export** (``conversations.json``, or the export ``.zip`` holding it): a list of
  conversations with ``title``, ``create_time``, ``mapping`` (node id -> ``{message, parent,
  children}``) and ``current_node``, read one conversation at a time
  (:func:`assistant.memory.capture.importing.json_stream.iter_array`). The main branch is the path from
  ``current_node`` up through ``parent``; edited-away branches are ignored. Messages from
  ``system``/``tool`` authors, hidden ones (``metadata.is_visually_hidden_from_conversation``),
  non-text content and assistant messages addressed to a tool (``recipient`` other than ``all``)
  are skipped. ``create_time`` (epoch seconds) is the message's time; a message without one takes
  its conversation's.
- **Keepsake export** (``keepsake export f.json``: a JSON object with ``"format":
  "keepsake.memories"``): restored as a whole by the importer (``store.import_json``), not here.

Problems are collected by :class:`Problems`: the first ``MAX_PROBLEMS`` (20) are kept with their
text, the rest only counted, so a file of garbage costs neither memory nor screen.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Literal

from assistant.memory.capture.importing.json_stream import JsonStreamError, iter_array

Format = Literal["jsonl", "chatgpt", "keepsake"]
ROLES = ("user", "assistant")
MAX_PROBLEMS = 20
MAX_LINE_BYTES = 16 * 1024 * 1024
_KEEPSAKE = re.compile(rb'"format"\s*:\s*"keepsake\.memories"')


class ImportFormatError(ValueError):
    """The file is not one of the supported formats (or cannot be read at all)."""


@dataclass(frozen=True)
class ImportedMessage:
    role: str
    content: str
    observed_at: datetime
    external_id: str


@dataclass(frozen=True)
class ImportedConversation:
    external_id: str
    title: str
    created_at: datetime | None


@dataclass(frozen=True)
class ImportProblem:
    where: str  # "line 3" / "conversation 2 ('Trip to Paris')"
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass
class Problems:
    """The first ``limit`` problems, and how many there were in all."""

    limit: int = MAX_PROBLEMS
    shown: list[ImportProblem] = field(default_factory=list)
    total: int = 0

    def add(self, problem: ImportProblem) -> None:
        self.total += 1
        if len(self.shown) < self.limit:
            self.shown.append(problem)

    @property
    def more(self) -> int:
        return self.total - len(self.shown)


def sha(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:24]


def parse_timestamp(value: Any) -> datetime:
    """ISO-8601 -> aware UTC datetime (no offset: UTC). ValueError otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"bad timestamp {value!r} (expected ISO-8601)")
    raw = value.strip()
    if raw[-1:] in "Zz":
        raw = raw[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"bad timestamp {value!r} (expected ISO-8601)") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    try:  # 9999-12-31T23:59:59-14:00 is past the last representable UTC instant
        return dt.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        raise ValueError(f"timestamp {value!r} is out of range (after year 9999 or before year 1 in UTC)") from None


def detect_format(path: str | Path) -> Format:
    """Which format ``path`` holds (by its extension, else by its first bytes)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ImportFormatError(f"no such file: {p}")
    if p.suffix.lower() == ".zip":
        return "chatgpt"
    try:
        with open(p, "rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError as exc:
        raise ImportFormatError(f"cannot read {p}: {exc.strerror or exc}") from None
    if head.startswith(b"{") and _KEEPSAKE.search(head):
        return "keepsake"
    if p.suffix.lower() == ".jsonl" or head.startswith(b"{"):
        return "jsonl"
    if head.startswith(b"["):
        return "chatgpt"
    raise ImportFormatError(f"{p.name}: not a Keepsake JSONL file, a Keepsake export or a ChatGPT export")


class ExportReader:
    """An open chat export: :meth:`messages` streams ``(conversation, message)`` pairs;
    ``done``/``total`` are bytes read and the size of what is read (for progress)."""

    def __init__(self, path: Path, fmt: Format) -> None:
        self.path = path
        self.format = fmt
        self.done = 0
        self.total = 0
        self.on_progress: Callable[[], None] | None = None  # called each time another 1% was read
        self._next_report = 0
        self._stream: IO[bytes] | None = None
        self._zip: zipfile.ZipFile | None = None
        try:
            if fmt == "chatgpt" and path.suffix.lower() == ".zip":
                self._zip = zipfile.ZipFile(path)
                names = [n for n in self._zip.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
                if not names:
                    raise ImportFormatError(f"{path.name}: no conversations.json in the zip")
                info = self._zip.getinfo(min(names, key=len))
                self.total = info.file_size
                self._stream = self._zip.open(info)
            else:
                self.total = path.stat().st_size
                self._stream = open(path, "rb")
        except (OSError, zipfile.BadZipFile) as exc:
            self.close()
            raise ImportFormatError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None

    def __enter__(self) -> "ExportReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for thing in (self._stream, self._zip):
            if thing is not None:
                thing.close()
        self._stream = self._zip = None

    def _advance(self, n: int) -> None:
        self.done += n
        if self.on_progress is not None and self.done >= self._next_report:
            self._next_report = self.done + max(1, self.total // 100)
            self.on_progress()

    def messages(self, problems: Problems) -> Iterator[tuple[ImportedConversation, ImportedMessage]]:
        assert self._stream is not None
        if self.format == "jsonl":
            return self._jsonl(self._stream, problems)
        if self.format == "chatgpt":
            return self._chatgpt(self._stream, problems)
        raise ImportFormatError(f"{self.path.name}: a Keepsake export is restored whole, not streamed")

    # ------------------------------------------------------------------ JSONL

    def _lines(self, f: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
        """(line number, raw bytes); None for a line over ``MAX_LINE_BYTES`` (skipped unread)."""
        n = 0
        while True:
            line = _read_or_damaged(lambda: f.readline(MAX_LINE_BYTES + 1), self.path)
            if not line:
                return
            n += 1
            self._advance(len(line))
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while True:
                    rest = f.readline(1 << 20)
                    self._advance(len(rest))
                    if not rest or rest.endswith(b"\n"):
                        break
                yield n, None
                continue
            yield n, line

    def _jsonl(self, f: IO[bytes], problems: Problems) -> Iterator[tuple[ImportedConversation, ImportedMessage]]:
        convs: dict[str, ImportedConversation] = {}
        counts: dict[tuple[str, str], int] = {}
        try:
            yield from self._jsonl_lines(f, problems, convs, counts)
        except DamagedArchive as exc:
            problems.add(ImportProblem("the rest of the file", f"{exc}; it could not be read"))

    def _jsonl_lines(self, f: IO[bytes], problems: Problems, convs: dict[str, ImportedConversation],
                     counts: dict[tuple[str, str], int]) -> Iterator[tuple[ImportedConversation, ImportedMessage]]:  # fmt: skip
        for n, raw in self._lines(f):
            if raw is None:
                problems.add(ImportProblem(f"line {n}", f"longer than {MAX_LINE_BYTES // (1024 * 1024)} MB; skipped", n))
                continue
            if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.add(ImportProblem(f"line {n}", f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})", n))
                continue
            try:
                session, msg = _jsonl_record(line)
            except (ValueError, OverflowError, TypeError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
                reason = f"invalid JSON ({exc.msg})" if isinstance(exc, json.JSONDecodeError) else str(exc) or type(exc).__name__
                problems.add(ImportProblem(f"line {n}", reason, n))
                continue
            conv = convs.get(session)
            if conv is None:
                conv = convs[session] = ImportedConversation(
                    f"import:jsonl:{sha(session, msg.observed_at.isoformat(), msg.content)}", session, msg.observed_at
                )  # fmt: skip
            key = msg.external_id
            seen = counts[(session, key)] = counts.get((session, key), -1) + 1
            yield conv, ImportedMessage(msg.role, msg.content, msg.observed_at, f"jsonl:{key}" + (f"#{seen}" if seen else ""))

    # ------------------------------------------------------------------ ChatGPT

    def _chatgpt(self, f: IO[bytes], problems: Problems) -> Iterator[tuple[ImportedConversation, ImportedMessage]]:
        def on_bad_text(offset: int) -> None:
            problems.add(ImportProblem(f"byte {offset}", "text that is not UTF-8 (replaced with \ufffd)"))

        items = iter_array(lambda n=-1: _read_or_damaged(lambda: f.read(n), self.path), on_read=self._advance, on_bad_text=on_bad_text)
        i = 0
        while True:
            try:
                conv = next(items)
            except StopIteration:
                return
            except DamagedArchive as exc:  # the rest of the member cannot be read: what came before stays imported
                problems.add(ImportProblem(f"after conversation {i}", f"{exc}; the rest of the file could not be read"))
                return
            except JsonStreamError as exc:
                if i == 0:  # not even the first conversation: this is not an export we can read
                    raise ImportFormatError(f"{self.path.name}: invalid JSON at line {exc.line} column {exc.column}: {exc.msg}") from None
                problems.add(ImportProblem(f"after conversation {i}", f"invalid JSON at line {exc.line} column {exc.column} "
                                           f"({exc.msg}); the rest of the file could not be read"))  # fmt: skip
                return
            i += 1
            yield from _chatgpt_conversation(i, conv, problems)


class DamagedArchive(Exception):
    """A compressed member of the export could not be decompressed from here on."""


def _read_or_damaged(read: Callable[[], bytes], path: Path) -> bytes:
    """``read()``; a damaged compressed stream (zlib.error, a bad CRC, a member cut short)
    becomes :class:`DamagedArchive`."""
    try:
        return read()
    except (zlib.error, zipfile.BadZipFile, EOFError) as exc:
        raise DamagedArchive(f"{path.name} is damaged ({type(exc).__name__}: {exc})") from None


def _jsonl_record(line: str) -> tuple[str, ImportedMessage]:
    """(session name, message with its content-hash key as external id) or ValueError."""
    rec = json.loads(line)
    if not isinstance(rec, dict):
        raise ValueError("not a JSON object")
    session, role, content = rec.get("session"), rec.get("role"), rec.get("content")
    if not isinstance(session, str) or not session.strip():
        raise ValueError("missing 'session'")
    if role not in ROLES:
        raise ValueError(f"bad role {role!r} (expected 'user' or 'assistant')")
    if not isinstance(content, str):
        raise ValueError("missing 'content'")
    when = parse_timestamp(rec.get("timestamp"))
    return session, ImportedMessage(role, content, when, sha(role, when.isoformat(), content))


def _epoch(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(float(value), timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _main_branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    if current not in mapping:  # no current_node: the most recent leaf
        leaves = [n for n in mapping.values() if isinstance(n, dict) and not n.get("children")]
        current = max(leaves, key=lambda n: ((n.get("message") or {}).get("create_time") or 0), default={}).get("id")
    chain, seen = [], set()
    node = mapping.get(current)
    while isinstance(node, dict) and id(node) not in seen:
        seen.add(id(node))
        chain.append(node)
        parent = node.get("parent")
        node = mapping.get(parent) if parent is not None else None
    return chain[::-1]


def _text(message: dict[str, Any]) -> str | None:
    content = message.get("content") or {}
    if not isinstance(content, dict) or content.get("content_type") not in ("text", "multimodal_text"):
        return None
    parts = [p for p in content.get("parts") or [] if isinstance(p, str)]
    text = "\n".join(parts).strip()
    return text or None


def _chatgpt_conversation(i: int, conv: Any, problems: Problems) -> Iterator[tuple[ImportedConversation, ImportedMessage]]:
    title = str(conv.get("title") or "") if isinstance(conv, dict) else ""
    where = f"conversation {i}" + (f" ({title!r})" if title else "")
    if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
        problems.add(ImportProblem(where, "no 'mapping' of messages"))
        return
    created = _epoch(conv.get("create_time"))
    cid = conv.get("conversation_id") or conv.get("id") or sha(title, str(conv.get("create_time")))
    out = ImportedConversation(f"import:chatgpt:{cid}", title, created)
    for node in _main_branch(conv["mapping"], conv.get("current_node")):
        msg = node.get("message")
        if not isinstance(msg, dict):
            continue
        role = (msg.get("author") or {}).get("role")
        meta = msg.get("metadata") or {}
        if role not in ROLES or meta.get("is_visually_hidden_from_conversation"):
            continue
        if role == "assistant" and msg.get("recipient") not in (None, "all"):
            continue
        text = _text(msg)
        if text is None:
            continue
        when = _epoch(msg.get("create_time")) or created
        mid = str(msg.get("id") or node.get("id"))
        if when is None:
            problems.add(ImportProblem(f"{where}, message {mid}", "no timestamp; skipped"))
            continue
        yield out, ImportedMessage(role, text, when, f"chatgpt:{mid}")


def open_export(path: str | Path, fmt: Format | None = None) -> ExportReader:
    p = Path(path).expanduser()
    return ExportReader(p, fmt or detect_format(p))
