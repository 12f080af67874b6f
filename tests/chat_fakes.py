"""A scripted chat model for tests of logic that does not depend on the model (tests using it say
``fake_model`` in their name): it streams the given replies in small pieces and records what
each turn was sent."""

from __future__ import annotations

from typing import Iterator

from assistant.engine.chat import ChatMessage, Generation, GenerationStats


class ScriptedModel:
    name = "scripted"
    context_size = 4096

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.calls: list[list[ChatMessage]] = []

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0

    def load(self):
        return self

    def reset_cache(self) -> None:
        pass

    def generate(self, messages, **kw) -> Generation:
        self.calls.append(list(messages))
        text = self.replies.pop(0) if self.replies else "Okay."

        def pieces() -> Iterator[str]:
            for i in range(0, len(text), 7):
                yield text[i : i + 7]

        return Generation(pieces=pieces(), stats=GenerationStats(finish_reason="stop", generated_tokens=len(text) // 4))

    def complete(self, messages, **kw):
        gen = self.generate(messages, **kw)
        return gen.consume(), gen.stats
