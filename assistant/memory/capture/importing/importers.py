"""Import past chats (Keepsake JSONL, ChatGPT export): streamed, in chunks, rules capture.

    report = import_file(store, "conversations.json", settings=load_settings, progress=show)   # ChatImportReport

The file is read one message at a time (:mod:`assistant.memory.capture.importing.read`: formats, per-line
decoding, problems). Messages are written ``CHUNK`` (64) at a time, each chunk in one transaction
(``store.add_messages``), and the chunk's user messages are captured together
(:meth:`Capturer.capture_many`: the deterministic rules keep what the person stated; one embedding
batch and one transaction for the chunk's memories). The chat model is never run here: model
extraction, when wanted, is queued for the background (:mod:`assistant.memory.capture.importing.model_extraction`;
``queue_model=True``), so an import takes seconds, not the model's time per message.

Every message keeps its original time as ``observed_at``, so its relative dates ground to its own
day. Re-importing adds nothing: a conversation becomes the session with external id
``import:chatgpt:<conversation id>`` / ``import:jsonl:<sha of session name + first message>``,
and each message has an external id (the ChatGPT message id; a content hash for JSONL). New
messages appended to the same conversation in a later export are added to the same session.
User messages are captured with trust ``imported``; an existing user message that holds a
statement and was never captured (an interrupted import) is captured on the next run.

``progress(ImportProgress)`` is called after every chunk (bytes read of the file's size, messages
so far); the report counts what was added, and keeps the first 20 problems with the total.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from assistant.memory.store import capture_reads
from assistant.memory.store.sqlite import diagnose
from assistant.memory.capture.capturer import Capturer, SettingsSource
from assistant.memory.capture.importing.read import (
    MAX_PROBLEMS,
    ImportedConversation,
    ImportedMessage,
    ImportFormatError,
    ImportProblem,
    Problems,
    detect_format,
    open_export,
)
from assistant.memory.records import Actor, Trust
from assistant.memory.store.sessions import MessageSpec
from assistant.memory.capture.importing.model_extraction import enqueue

log = logging.getLogger(__name__)

CHUNK = 64

__all__ = ["ChatImportReport", "ImportFormatError", "ImportProblem", "ImportProgress", "import_file", "detect_format"]


@dataclass(frozen=True)
class ImportProgress:
    bytes_done: int
    bytes_total: int
    messages: int  # messages read so far (new or already there)
    user_messages: int
    memories_added: int
    seconds: float
    finished: bool = False

    @property
    def fraction(self) -> float:
        """Bytes read of the file's size; 1.0 only once everything read is also written."""
        if self.finished:
            return 1.0
        return 0.0 if self.bytes_total <= 0 else min(0.99, self.bytes_done / self.bytes_total)


Progress = Callable[[ImportProgress], None]


@dataclass
class ChatImportReport:
    path: str
    format: str
    conversations: int = 0
    sessions_added: int = 0
    messages_added: int = 0
    messages_existing: int = 0
    user_messages: int = 0  # user messages read (new or already there)
    captured: int = 0  # user messages that held a statement and were captured in this run
    memories_added: int = 0  # new memory rows (episodes, facts, profile slots)
    rejected: int = 0  # extracted facts that failed validation
    capture_skipped: str | None = None  # e.g. memory turned off in settings
    model_extraction_queued: int = 0  # user messages left to the background model extraction
    seconds: float = 0.0
    problems: list[ImportProblem] = field(default_factory=list)  # the first MAX_PROBLEMS
    problems_total: int = 0

    @property
    def user_messages_per_s(self) -> float | None:
        return round(self.user_messages / self.seconds, 1) if self.seconds > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "format": self.format, "conversations": self.conversations,
            "sessions_added": self.sessions_added, "messages_added": self.messages_added,
            "messages_existing": self.messages_existing, "user_messages": self.user_messages,
            "captured": self.captured, "memories_added": self.memories_added, "rejected": self.rejected,
            "capture_skipped": self.capture_skipped, "model_extraction_queued": self.model_extraction_queued,
            "seconds": round(self.seconds, 3), "user_messages_per_s": self.user_messages_per_s,
            "problems": [{"where": p.where, "line": p.line, "reason": p.reason} for p in self.problems],
            "problems_total": self.problems_total, "problems_not_shown": self.problems_total - len(self.problems),
        }  # fmt: skip


@dataclass
class _Session:
    id: int
    known: dict[str, int]  # message external id -> message id


class _Importer:
    def __init__(self, store: Any, capturer: Capturer, report: ChatImportReport, queue_model: bool) -> None:
        self.store = store
        self.capturer = capturer
        self.report = report
        self.queue_model = queue_model
        self.sessions: dict[str, _Session] = {}
        self.pending: list[tuple[ImportedConversation, ImportedMessage]] = []
        self.messages = 0
        self.queued: list[int] = []

    def session(self, conv: ImportedConversation, first: ImportedMessage) -> _Session:
        state = self.sessions.get(conv.external_id)
        if state is None:
            found = self.store.find_session(conv.external_id)
            if found is None:
                found = self.store.create_session(conv.title, external_id=conv.external_id,
                                                  created_at=conv.created_at or first.observed_at, actor=Actor.IMPORT)  # fmt: skip
                self.report.sessions_added += 1
                known: dict[str, int] = {}
            else:
                known = {m.external_id: m.id for m in self.store.messages(found.id) if m.external_id}
            state = self.sessions[conv.external_id] = _Session(found.id, known)
            self.report.conversations += 1
        return state

    def flush(self) -> None:
        if not self.pending:
            return
        batch, self.pending = self.pending, []
        specs, new_user, existing_user = [], [], []
        for conv, m in batch:
            state = self.session(conv, m)
            mid = state.known.get(m.external_id)
            if mid is None:
                specs.append((state, m, MessageSpec(state.id, m.role, m.content, observed_at=m.observed_at, external_id=m.external_id)))
            else:
                self.report.messages_existing += 1
                if m.role == "user":
                    existing_user.append(mid)
        for (state, m, _), (mid, created) in zip(specs, self.store.add_messages([s for _, _, s in specs])):
            state.known[m.external_id] = mid
            self.report.messages_added += int(created)
            self.report.messages_existing += int(not created)
            if m.role == "user":
                (new_user if created else existing_user).append(mid)
        self.messages += len(batch)
        self.report.user_messages += len(new_user) + len(existing_user)
        todo = new_user + _uncaptured(self.store, existing_user)
        self.capture(sorted(todo))

    def capture(self, ids: list[int]) -> None:
        if not ids:
            return
        try:
            results = self.capturer.capture_many(ids, trust=Trust.IMPORTED)
        except Exception as exc:  # noqa: BLE001 - find the message that fails; the rest is captured
            if diagnose.is_storage_fault(exc, self.store.path):
                raise  # the disk is full, the file damaged...: the import stops and says so
            log.warning("import: capturing a chunk failed; capturing its messages one by one", exc_info=True)
            results = []
            for mid in ids:
                try:
                    results.append(self.capturer.capture_message(mid, trust=Trust.IMPORTED))
                except Exception as exc:  # noqa: BLE001 - the message is stored; the next import retries
                    if diagnose.is_storage_fault(exc, self.store.path):
                        raise
                    log.warning("import: capture of message %s failed", mid, exc_info=True)
                    self.report.problems_total += 1
                    if len(self.report.problems) < MAX_PROBLEMS:
                        self.report.problems.append(ImportProblem(
                            f"message {mid}", f"stored, but capture failed ({type(exc).__name__}: {exc}); re-import to retry"))
        for r in results:
            if r.episode_id is not None:
                self.report.captured += 1
                if self.queue_model:
                    self.queued.append(r.message_id)  # the model reads only messages that state something
            self.report.memories_added += len(r.created_ids)
            self.report.rejected += len(r.rejected)


def _uncaptured(store: Any, ids: list[int]) -> list[int]:
    """Of these existing user messages, the ones no memory has as its source yet (a question never
    has one: capturing it again stores nothing and costs only the rules)."""
    if not ids:
        return []
    done = capture_reads.messages_with_memories(store.conn, ids)
    return [i for i in ids if i not in done]


def import_file(store: Any, path: str | Path, *, capturer: Capturer | None = None, settings: SettingsSource | None = None,
                progress: Progress | None = None,
                queue_model: bool = False, chunk: int = CHUNK,
                clock: Callable[[], float] = time.perf_counter) -> ChatImportReport:  # fmt: skip
    """Import a chat export into ``store`` (see the module docstring). Raises
    :class:`ImportFormatError` when the file cannot be read as a chat export; bad lines or
    conversations are reported in ``problems`` and skipped. ``capturer``: how messages are
    captured (default: the rules, under ``settings`` -- one of the two must be given)."""
    if capturer is None:
        if settings is None:
            raise TypeError("import_file needs a capturer or the capture settings")
        capturer = Capturer(store, use_llm=False, settings=settings)
    started = clock()
    problems = Problems()
    with open_export(path) as reader:
        if reader.format == "keepsake":
            raise ImportFormatError(f"{Path(path).name} is a Keepsake export: restore it with store.import_json")
        report = ChatImportReport(str(path), reader.format)
        report.capture_skipped = capturer.memory_off()
        imp = _Importer(store, capturer, report, queue_model and report.capture_skipped is None)

        def tick(finished: bool = False) -> None:
            report.seconds = clock() - started
            if progress is not None:
                progress(ImportProgress(reader.done, reader.total, imp.messages, report.user_messages,
                                        report.memories_added, report.seconds, finished))  # fmt: skip

        tick()
        reader.on_progress = tick
        try:
            for conv, m in reader.messages(problems):
                imp.pending.append((conv, m))
                if len(imp.pending) >= chunk:
                    imp.flush()
        finally:
            imp.flush()  # what was read before an error is kept
        if queue_model and imp.queued:
            report.model_extraction_queued = enqueue(store, imp.queued)
        reader.on_progress = None
        tick(finished=True)
    report.problems = problems.shown + report.problems
    report.problems_total += problems.total
    del report.problems[MAX_PROBLEMS:]
    return report
