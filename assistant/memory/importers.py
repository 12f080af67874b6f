"""Import past chats: Keepsake JSONL and ChatGPT data exports.

    report = import_file(store, "conversations.json", use_llm=False, progress=print_bar)

Formats (picked by :func:`detect_format`):

- **Keepsake JSONL** (``.jsonl``): one message a line,
  ``{"session": str, "role": "user"|"assistant", "content": str, "timestamp": ISO-8601}``
  (a timestamp without an offset is UTC). A bad line (not JSON, a missing field, an unknown role,
  a bad timestamp) is reported with its line number and skipped; the rest is imported.
- **ChatGPT export** (``conversations.json``, or the export ``.zip`` holding it): a list of
  conversations with ``title``, ``create_time``, ``mapping`` (node id -> ``{message, parent,
  children}``) and ``current_node``. The main branch is the path from ``current_node`` up through
  ``parent``; edited-away branches are ignored. Messages from ``system``/``tool`` authors, hidden
  ones (``metadata.is_visually_hidden_from_conversation``), non-text content and assistant
  messages addressed to a tool (``recipient`` other than ``all``) are skipped. ``create_time``
  (epoch seconds) is the message's time; a message without one takes its conversation's.

Every message keeps its original time as ``observed_at``, so its relative dates ground to its own
day. Re-importing adds nothing: a conversation becomes the session with external id
``import:chatgpt:<conversation id>`` / ``import:jsonl:<sha of session name + first message>``,
and each message has an external id (the ChatGPT message id; a content hash for JSONL). New
messages appended to the same conversation in a later export are added to the same session.
Each new user message is captured (:class:`assistant.memory.capture.Capturer`) with trust
``imported``; an existing message that was never captured (an interrupted import) is captured
on the next run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Literal

from assistant.memory.capture import Capturer
from assistant.memory import diagnose
from assistant.memory.records import Actor, Trust

log = logging.getLogger(__name__)

Format = Literal["jsonl", "chatgpt"]
Progress = Callable[[int, int], None]  # (messages done, messages in total)
_ROLES = ("user", "assistant")


@dataclass(frozen=True)
class ImportedMessage:
    role: str
    content: str
    observed_at: datetime
    external_id: str


@dataclass
class ImportedConversation:
    external_id: str
    title: str
    created_at: datetime | None
    messages: list[ImportedMessage] = field(default_factory=list)


@dataclass(frozen=True)
class ImportProblem:
    where: str  # "line 3" / "conversation 2 ('Trip to Paris')"
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass
class ChatImportReport:
    path: str
    format: str
    conversations: int = 0
    sessions_added: int = 0
    messages_added: int = 0
    messages_existing: int = 0
    captured: int = 0  # user messages captured in this run
    memories_added: int = 0  # new memory rows (episodes, facts, profile slots)
    rejected: int = 0  # extracted facts that failed validation
    capture_skipped: str | None = None  # e.g. memory turned off in settings
    problems: list[ImportProblem] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "format": self.format, "conversations": self.conversations,
            "sessions_added": self.sessions_added, "messages_added": self.messages_added,
            "messages_existing": self.messages_existing, "captured": self.captured,
            "memories_added": self.memories_added, "rejected": self.rejected,
            "capture_skipped": self.capture_skipped,
            "problems": [{"where": p.where, "line": p.line, "reason": p.reason} for p in self.problems],
        }  # fmt: skip


class ImportFormatError(ValueError):
    """The file is not one of the supported formats (or cannot be read at all)."""


# ----------------------------------------------------------------------------- reading

def _sha(*parts: str) -> str:
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
    return dt.astimezone(timezone.utc)


def detect_format(path: Path) -> Format:
    if path.suffix.lower() == ".zip":
        return "chatgpt"
    if path.suffix.lower() == ".jsonl":
        return "jsonl"
    try:
        with open(path, "rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}") from None
    if head.startswith(b"["):
        return "chatgpt"
    if head.startswith(b"{"):
        return "jsonl"
    raise ImportFormatError(f"{path.name}: not a Keepsake JSONL file or a ChatGPT export")


def read_jsonl(path: Path) -> tuple[list[ImportedConversation], list[ImportProblem]]:
    problems: list[ImportProblem] = []
    convs: dict[str, ImportedConversation] = {}
    counts: dict[tuple[str, str], int] = {}
    try:
        handle = open(path, encoding="utf-8-sig")
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}") from None
    with handle:
        for n, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if not isinstance(rec, dict):
                    raise ValueError("not a JSON object")
                session, role, content = rec.get("session"), rec.get("role"), rec.get("content")
                if not isinstance(session, str) or not session.strip():
                    raise ValueError("missing 'session'")
                if role not in _ROLES:
                    raise ValueError(f"bad role {role!r} (expected 'user' or 'assistant')")
                if not isinstance(content, str):
                    raise ValueError("missing 'content'")
                when = parse_timestamp(rec.get("timestamp"))
            except ValueError as exc:  # json.JSONDecodeError is a ValueError
                reason = f"invalid JSON ({exc.msg})" if isinstance(exc, json.JSONDecodeError) else str(exc)
                problems.append(ImportProblem(f"line {n}", reason, n))
                continue
            conv = convs.get(session)
            if conv is None:
                conv = convs[session] = ImportedConversation(
                    f"import:jsonl:{_sha(session, when.isoformat(), content)}", session, when
                )  # fmt: skip
            key = _sha(role, when.isoformat(), content)
            seen = counts[(session, key)] = counts.get((session, key), -1) + 1
            conv.messages.append(ImportedMessage(role, content, when, f"jsonl:{key}" + (f"#{seen}" if seen else "")))
    return list(convs.values()), problems


def _load_chatgpt(path: Path) -> Any:
    try:
        if path.suffix.lower() == ".zip":
            with zipfile.ZipFile(path) as z:
                names = [n for n in z.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
                if not names:
                    raise ImportFormatError(f"{path.name}: no conversations.json in the zip")
                return json.loads(z.read(min(names, key=len)).decode("utf-8-sig"))
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{path.name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


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
    if content.get("content_type") not in ("text", "multimodal_text"):
        return None
    parts = [p for p in content.get("parts") or [] if isinstance(p, str)]
    text = "\n".join(parts).strip()
    return text or None


def read_chatgpt(path: Path) -> tuple[list[ImportedConversation], list[ImportProblem]]:
    data = _load_chatgpt(path)
    if not isinstance(data, list):
        raise ImportFormatError(f"{path.name}: a ChatGPT export is a list of conversations")
    convs: list[ImportedConversation] = []
    problems: list[ImportProblem] = []
    for i, conv in enumerate(data, start=1):
        title = str(conv.get("title") or "") if isinstance(conv, dict) else ""
        where = f"conversation {i}" + (f" ({title!r})" if title else "")
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            problems.append(ImportProblem(where, "no 'mapping' of messages"))
            continue
        created = _epoch(conv.get("create_time"))
        cid = conv.get("conversation_id") or conv.get("id") or _sha(title, str(conv.get("create_time")))
        out = ImportedConversation(f"import:chatgpt:{cid}", title, created)
        for node in _main_branch(conv["mapping"], conv.get("current_node")):
            msg = node.get("message")
            if not isinstance(msg, dict):
                continue
            role = (msg.get("author") or {}).get("role")
            meta = msg.get("metadata") or {}
            if role not in _ROLES or meta.get("is_visually_hidden_from_conversation"):
                continue
            if role == "assistant" and msg.get("recipient") not in (None, "all"):
                continue
            text = _text(msg)
            if text is None:
                continue
            when = _epoch(msg.get("create_time")) or created
            mid = str(msg.get("id") or node.get("id"))
            if when is None:
                problems.append(ImportProblem(f"{where}, message {mid}", "no timestamp; skipped"))
                continue
            out.messages.append(ImportedMessage(role, text, when, f"chatgpt:{mid}"))
        convs.append(out)
    return convs, problems


def read_file(path: str | Path) -> tuple[Format, list[ImportedConversation], list[ImportProblem]]:
    p = Path(path).expanduser()
    if not p.is_file():
        raise ImportFormatError(f"no such file: {p}")
    fmt = detect_format(p)
    convs, problems = read_jsonl(p) if fmt == "jsonl" else read_chatgpt(p)
    return fmt, convs, problems


# ----------------------------------------------------------------------------- importing

def _captured(store: Any, message_id: int) -> bool:
    return store.conn.execute("SELECT 1 FROM memory_sources WHERE message_id = ? LIMIT 1", (message_id,)).fetchone() is not None


def import_file(store: Any, path: str | Path, *, chat_model: Any = None, use_llm: bool = True,
                capturer: Capturer | None = None, progress: Progress | None = None) -> ChatImportReport:  # fmt: skip
    """Import a chat export into ``store`` (see the module docstring). Raises
    :class:`ImportFormatError` when the file cannot be read as either format; bad lines or
    conversations are reported in ``problems`` and skipped."""
    fmt, convs, problems = read_file(path)
    report = ChatImportReport(str(path), fmt, conversations=len(convs), problems=list(problems))
    capturer = capturer or Capturer(store, chat_model, use_llm=use_llm)
    total = sum(len(c.messages) for c in convs)
    done = 0
    if progress:
        progress(0, total)
    for conv in convs:
        if not conv.messages:
            continue
        session = store.find_session(conv.external_id)
        if session is None:
            session = store.create_session(conv.title, external_id=conv.external_id,
                                           created_at=conv.created_at or conv.messages[0].observed_at, actor=Actor.IMPORT)  # fmt: skip
            report.sessions_added += 1
        known = {m.external_id: m.id for m in store.messages(session.id) if m.external_id}
        for m in conv.messages:
            mid = known.get(m.external_id)
            if mid is None:
                mid = store.add_message(session.id, m.role, m.content, observed_at=m.observed_at, external_id=m.external_id).id
                known[m.external_id] = mid
                report.messages_added += 1
            else:
                report.messages_existing += 1
            if m.role == "user" and not _captured(store, mid):
                _capture(capturer, mid, conv, m, report)
            done += 1
            if progress:
                progress(done, total)
    return report


def _capture(capturer: Capturer, message_id: int, conv: ImportedConversation, m: ImportedMessage, report: ChatImportReport) -> None:
    try:
        result = capturer.capture_message(message_id, trust=Trust.IMPORTED)
    except Exception as exc:  # noqa: BLE001 - the message is stored; the next import retries the capture
        if diagnose.is_storage_fault(exc, capturer.store.path):
            raise  # the disk is full, the file damaged...: the import stops and says so
        log.warning("import: capture of message %s failed", message_id, exc_info=True)
        report.problems.append(ImportProblem(f"{conv.title or conv.external_id}, message {m.external_id}",
                                             f"stored, but capture failed ({type(exc).__name__}: {exc}); re-import to retry"))  # fmt: skip
        return
    if result.skipped:
        report.capture_skipped = report.capture_skipped or result.skipped
        return
    report.captured += 1
    report.memories_added += len(result.created_ids)
    report.rejected += len(result.rejected)
