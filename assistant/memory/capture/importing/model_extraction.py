"""The chat model reads imported messages later, in the background (never while the person waits).

An import captures with the deterministic rules at once and queues its user messages that stated
something; this job then runs the JSON-schema constrained model extraction
(:mod:`assistant.memory.capture.llm`, through :meth:`Capturer.capture_message` with ``use_llm``:
the rules' memories dedup, validated model facts are added as ``assistant_inferred``/``imported``).

    queued = enqueue(store, message_ids)           # the importer does this
    status(store)                                  # ExtractionStatus(left=...)
    run(store, chat_model, cancel=event, limit=20) # ExtractionReport; stops between messages on cancel

Resumable: the queue is kept in the database (``store_meta`` key ``model_extraction``: JSON
``{"ranges": [[first_id, last_id], ...]}``, message ids, inclusive), and the front of the queue
moves past a message only after its capture is written. A run killed at any point redoes at most
that one message (captures are idempotent). A message in a range is read when it is a user message
of an imported session (external id ``import:...``), not redacted, that holds a statement (it has
an episode). The idle scheduler (:mod:`assistant.jobs`) runs it after consolidation; ``keepsake
jobs extract`` runs it now.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence
from assistant.memory.capture.capturer import Capturer
from assistant.memory.store import capture_reads
from assistant.memory.records import Trust

log = logging.getLogger(__name__)

KEY = "model_extraction"


@dataclass(frozen=True)
class ExtractionStatus:
    left: int  # queued messages the model has not read yet

    def to_json(self) -> dict[str, Any]:
        return {"left": self.left}


@dataclass
class ExtractionReport:
    processed: int = 0
    memories_added: int = 0
    failed: int = 0
    left: int = 0
    stopped: bool = False  # cancelled (the person came back) or the limit was reached

    def to_json(self) -> dict[str, Any]:
        return {"processed": self.processed, "memories_added": self.memories_added, "failed": self.failed,
                "left": self.left, "stopped": self.stopped}  # fmt: skip


def _ranges(c: Any) -> list[list[int]]:
    raw = capture_reads.queue_ranges(c, KEY)
    try:
        ranges = json.loads(raw)["ranges"] if raw else []
        return [[int(a), int(b)] for a, b in ranges if int(a) <= int(b)]
    except (ValueError, KeyError, TypeError):
        log.warning("model extraction: unreadable queue %r; starting afresh", raw)
        return []


def _save(c: Any, ranges: list[list[int]]) -> None:
    capture_reads.save_queue(c, KEY, ranges)


def merge(ranges: Sequence[Sequence[int]]) -> list[list[int]]:
    """Sorted, overlapping or touching ranges joined: [[5, 9], [1, 3], [4, 4]] -> [[1, 9]]."""
    out: list[list[int]] = []
    for a, b in sorted([int(a), int(b)] for a, b in ranges):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def enqueue(store: Any, message_ids: Sequence[int]) -> int:
    """Queue these messages (their id range) for the model; returns how many of them it will read."""
    ids = [int(i) for i in message_ids]
    if not ids:
        return 0
    lo, hi = min(ids), max(ids)
    store.write(lambda c: _save(c, merge(_ranges(c) + [[lo, hi]])))
    return capture_reads.pending_count(store.conn, lo, hi)


def status(store: Any) -> ExtractionStatus:
    ranges = _ranges(store.conn)
    left = sum(capture_reads.pending_count(store.conn, a, b) for a, b in ranges)
    return ExtractionStatus(left)


def _next(store: Any) -> int | None:
    """The next message to read; drops ranges that hold none."""
    while True:
        ranges = _ranges(store.conn)
        if not ranges:
            return None
        a, b = ranges[0]
        first = capture_reads.first_pending(store.conn, a, b)
        if first is not None:
            return first
        store.write(lambda c: _save(c, [r for r in _ranges(c) if r != [a, b]]))


def _done(store: Any, message_id: int) -> None:
    """Move the front of the queue past ``message_id``."""

    def run(c: Any) -> None:
        ranges = []
        for a, b in _ranges(c):
            if a <= message_id <= b:
                a = message_id + 1
            if a <= b:
                ranges.append([a, b])
        _save(c, ranges)

    store.write(run)


def run(store: Any, chat_model: Any, *, cancel: threading.Event | None = None, limit: int | None = None,
        capturer: Any = None, settings: Any = None,
        progress: Callable[[ExtractionReport], None] | None = None) -> ExtractionReport:  # fmt: skip
    """Read queued messages with ``chat_model`` until the queue is empty, ``cancel`` is set or
    ``limit`` messages were read. A failing message is logged, counted and skipped (its rules
    memories are already there). ``capturer`` (default: one with ``chat_model`` under
    ``settings``; one of the two must be given)."""
    if capturer is None and settings is None:
        raise TypeError("model extraction needs a capturer or the capture settings")
    report = ExtractionReport()
    capturer = capturer or Capturer(store, chat_model, use_llm=True, settings=settings)
    while True:
        if (cancel is not None and cancel.is_set()) or (limit is not None and report.processed >= limit):
            report.stopped = _next(store) is not None
            break
        mid = _next(store)
        if mid is None:
            break
        try:
            result = capturer.capture_message(mid, trust=Trust.IMPORTED, use_llm=True)
            report.memories_added += len(result.created_ids)
        except Exception:  # noqa: BLE001 - the rules' memories stay; this message is not retried
            log.warning("model extraction: message %s failed", mid, exc_info=True)
            report.failed += 1
        _done(store, mid)
        report.processed += 1
        if progress is not None:
            progress(report)
    report.left = status(store).left
    return report
