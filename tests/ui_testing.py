"""Helpers to drive the app from tests and benchmarks (no pytest dependency)."""

from __future__ import annotations

import time
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QEventLoop


class Timeout(AssertionError):
    pass


def pump(seconds: float = 0.0) -> None:
    """Process events for ``seconds`` (at least once)."""
    end = time.monotonic() + seconds
    while True:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        if time.monotonic() >= end:
            return
        time.sleep(0.002)


def wait_until(cond: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    """Process events until ``cond()`` is truthy; returns its value."""
    end = time.monotonic() + timeout
    while True:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        value = cond()
        if value:
            return value
        if time.monotonic() >= end:
            raise Timeout(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.003)


def wait_ready(window, timeout: float = 240.0) -> None:
    """Until the chat model and the embedder-backed memory are ready."""
    b = window.backend
    wait_until(lambda: b.model_ready and b.memory_ready, timeout, "the models to load")


def send(window, text: str, timeout: float = 240.0):
    """Type ``text`` into the composer, send it, wait for the reply; returns the TurnResult."""
    done: list[Any] = []
    failed: list[str] = []
    c = window.controller
    c.replyFinished.connect(done.append)
    c.replyFailed.connect(failed.append)
    try:
        window.composer.edit.setPlainText(text)
        window.composer._submit()
        wait_until(lambda: done or failed, timeout, "the reply")
    finally:
        c.replyFinished.disconnect(done.append)
        c.replyFailed.disconnect(failed.append)
    if failed:
        raise AssertionError(f"the turn failed: {failed[0]}")
    return done[0]


def flush_capture(window, timeout: float = 240.0) -> None:
    """Wait for the capture queue, then for its events to reach the UI."""
    cap = window.backend.capture
    if cap is not None:
        end = time.monotonic() + timeout
        while not cap.flush(timeout=0.05):
            pump(0.02)
            if time.monotonic() > end:
                raise Timeout("capture did not finish")
    pump(0.3)
