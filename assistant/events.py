"""A tiny in-process event bus: ``subscribe(topic, fn)`` / ``publish(topic, payload)``.

Thread-safe: subscribers are called synchronously, in subscription order, on the publisher's
thread, outside the lock (a subscriber may subscribe or unsubscribe others). A subscriber that
raises is logged and does not stop the others or the publisher. Long work belongs in a job the
subscriber schedules (e.g. the consolidation job listens to ``"compaction"``), not in the callback.

Topics used by Keepsake:

- ``"compaction"``: a session's context was compacted; payload is a
  :class:`assistant.context.compaction.CompactionEvent`.
- ``"memory_deleted"``: a delete was committed (published by the Forgetter's ``open_sessions``
  after-holder, :mod:`assistant.services`); payload is the
  :class:`assistant.memory.store.forgetting.report.ForgetReport`. Open chat sessions rebuild their context.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)

Subscriber = Callable[[Any], None]

_lock = threading.Lock()
_subscribers: dict[str, list[Subscriber]] = {}


def subscribe(topic: str, fn: Subscriber) -> Callable[[], None]:
    """Call ``fn(payload)`` for every event on ``topic``. Returns a function that unsubscribes."""
    with _lock:
        _subscribers.setdefault(topic, []).append(fn)
    return lambda: unsubscribe(topic, fn)


def unsubscribe(topic: str, fn: Subscriber) -> None:
    with _lock:
        fns = _subscribers.get(topic, [])
        if fn in fns:
            fns.remove(fn)


def publish(topic: str, payload: Any = None) -> int:
    """Deliver ``payload`` to the subscribers of ``topic``; returns how many were called."""
    with _lock:
        fns = list(_subscribers.get(topic, ()))
    for fn in fns:
        try:
            fn(payload)
        except Exception:  # a broken listener never breaks the chat turn
            log.exception("event subscriber failed on topic %r", topic)
    return len(fns)


def subscribers(topic: str) -> int:
    """How many subscribers ``topic`` has now (a session left open shows here)."""
    with _lock:
        return len(_subscribers.get(topic, ()))


def clear(topic: str | None = None) -> None:
    """Drop the subscribers of ``topic`` (all topics when None). For tests and shutdown."""
    with _lock:
        if topic is None:
            _subscribers.clear()
        else:
            _subscribers.pop(topic, None)
