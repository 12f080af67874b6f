"""How many prompt tokens a prefix-caching server evaluates, predicted from what it was sent last.

llama.cpp servers keep the KV cache of the previous request and evaluate only the tokens after
the longest common prefix with it. llama-server reports the count (``timings.prompt_n``); some
servers report cached tokens (``usage.prompt_tokens_details.cached_tokens``); llama_cpp.server
reports neither. For those, the engine predicts the count from a ledger of the last request
(per server and model; digests and token counts, never text)::

    total     = sum(tokens(m) + OVERHEAD for m in messages) + GEN_PROMPT
    cached    = sum(tokens(m) + OVERHEAD for the leading messages equal to the last request's)
              + GEN_PROMPT + tokens(reply)     when all of them match and the next message is
                                              the reply the server generated for that request
    evaluated = max(1, total - cached)

Worked example (ChatML, OVERHEAD 5, GEN_PROMPT 3): turn 1 sent system (20) + user (10):
total = 25 + 15 + 3 = 43, nothing cached, 43 evaluated. The reply had 12 tokens. Turn 2 sends
system (20) + user (10) + reply (12) + user (8): total = 25 + 15 + 17 + 13 + 3 = 73; cached =
25 + 15 + 3 + 12 = 55; evaluated = 18 = the new user message (8) + its template (5) + the
reply's closing tokens and the assistant header (5). llama.cpp's own counter says the same
(tests/test_engine_server.py checks it against llama_cpp.server's log).

The prediction assumes no other client used the server since this profile's last request (the
ledger file is shared by the profile's processes) and that the server was not restarted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from assistant.fileio import write_private_atomic

log = logging.getLogger(__name__)

OVERHEAD = 5  # ChatML: <|im_start|> role \n ... <|im_end|> \n
GEN_PROMPT = 3  # <|im_start|> assistant \n


@dataclass(frozen=True)
class Sent:
    """One message of a request, as the ledger keeps it."""

    role: str
    digest: str
    tokens: int

    @classmethod
    def of(cls, role: str, content: str, tokens: int) -> "Sent":
        return cls(role, digest(role, content), tokens)


def digest(role: str, content: str) -> str:
    """A short hash of one message (role included): what the ledger compares."""
    return hashlib.sha256(f"{role}\x00{content}".encode("utf-8")).hexdigest()[:20]


def total_tokens(messages: Sequence[Sent]) -> int:
    return sum(m.tokens + OVERHEAD for m in messages) + GEN_PROMPT


class PrefixLedger:
    """The last request sent to one server/model, and its reply (kept in ``path`` if given)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._last: list[Sent] = []
        self._reply: Sent | None = None
        self._load()

    def predict(self, messages: Sequence[Sent]) -> int:
        """Prompt tokens the server evaluates for ``messages`` (formula in the module doc)."""
        with self._lock:
            self._load()
            last, reply = list(self._last), self._reply
        cached = 0
        i = 0
        # same message = same role and text (counts may differ: an estimate is re-measured)
        while i < min(len(messages), len(last)) and messages[i].digest == last[i].digest:
            cached += messages[i].tokens + OVERHEAD
            i += 1
        if last and i == len(last) and reply is not None and i < len(messages) and messages[i].digest == reply.digest:
            cached += GEN_PROMPT + reply.tokens
        return max(1, total_tokens(messages) - cached)

    def record(self, messages: Sequence[Sent], reply: Sent | None) -> None:
        with self._lock:
            self._last, self._reply = list(messages), reply
            self._save()

    def clear(self) -> None:
        """Forget the last request (after a delete the server's cache is not trusted)."""
        self.record([], None)

    # -- the file ------------------------------------------------------------------------------
    def _load(self) -> None:
        if self.path is None:
            return
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            self._last = [Sent(*m) for m in raw.get("messages", [])]
            self._reply = Sent(*raw["reply"]) if raw.get("reply") else None
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.debug("prefix ledger %s unreadable (%s): starting empty", self.path, exc)

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"messages": [[m.role, m.digest, m.tokens] for m in self._last],
                "reply": [self._reply.role, self._reply.digest, self._reply.tokens] if self._reply else None}  # fmt: skip
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_private_atomic(self.path, json.dumps(data))
        except OSError as exc:
            log.warning("could not write the prefix ledger %s: %s", self.path, exc)
