"""Test doubles for the capture tests. Everything here is FAKE and named so: it stands in for the
chat model only where the logic under test does not depend on what a model says."""

from __future__ import annotations

from typing import Any


class FakeQueuedModel:
    """FAKE chat model: ``complete_json`` returns the queued outputs in order (then no facts),
    and records the prompts and schemas it was given."""

    name = "fake-queued"

    def __init__(self, *outputs: Any) -> None:
        self.outputs = list(outputs)
        self.calls: list[tuple[list[Any], dict]] = []

    def complete_json(self, messages, schema, *, max_tokens: int = 256):
        self.calls.append((list(messages), schema))
        out = self.outputs.pop(0) if self.outputs else {"facts": []}
        if isinstance(out, Exception):
            raise out
        return out
