"""JSON-schema constrained extraction with the loaded chat model ("the LLM chooses, code decides").

The model sees the message (its dates already grounded) and, numbered 0..n-1, a few existing
memories it may refer to; it answers with ``{"facts": [{"text": ..., "about": i}]}`` under a grammar
built from the schema (:meth:`LlamaChatModel.complete_json` uses ``LlamaGrammar.from_json_schema``).
``about`` is an integer index into the list shown (-1 for none), never a database id; it is
range-checked here and mapped back by the caller.

The output is only a proposal: texts are normalized (first person -> "User", dates grounded) and
then every one goes through :func:`assistant.memory.language.validate.validate` in the capturer. With the
135M default model most proposals are copies of the existing memories or paraphrases with
words the person never used, and are rejected: that is the point of validating.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Sequence

from assistant.memory.language.dates import ground
from assistant.memory.language.phrasing import finish, third_person
from assistant.memory.records import Kind
from assistant.engine.chat import ChatMessage

if TYPE_CHECKING:  # the rules' patterns are imported when a capture first extracts
    from assistant.memory.language.rules import Candidate

log = logging.getLogger(__name__)

EXTRACTOR_VERSION = "1"
MAX_INPUT_CHARS = 1500
MAX_EXISTING = 8
# One sentence that starts with "User" (no "." inside: no run-on lists of memories). Bounded
# repetitions ({4,100}) make llama.cpp's grammar too deep to parse, so length is left to
# max_tokens and to validation.
FACT_PATTERN = r'^User [^.?!\n"\\]+[.]$'

SYSTEM_PROMPT = (
    "You extract facts about the user from the user's message. Write each fact as one short sentence "
    "that starts with \"User\", uses the message's own words, and keeps names and numbers exactly as "
    "written. Use only what the message says. Known memories are listed with integer ids: if a fact "
    "is about one of them, set \"about\" to that id, else -1. Do not repeat known memories. If the "
    "message states no fact about the user, return an empty list."
)


@dataclass
class LlmExtraction:
    candidates: list[Candidate] = field(default_factory=list)
    proposed: int = 0  # facts the model returned
    prompt: str = ""
    raw: Any = None
    error: str | None = None


def schema(n_existing: int, max_facts: int = 3) -> dict:
    """The JSON schema the grammar is built from (``about`` is an enum of -1..n_existing-1)."""
    item: dict[str, Any] = {
        "type": "object",
        "properties": {"text": {"type": "string", "pattern": FACT_PATTERN}},
        "required": ["text"],
        "additionalProperties": False,
    }
    if n_existing:
        item["properties"]["about"] = {"enum": list(range(-1, n_existing))}
        item["required"].append("about")
    return {
        "type": "object",
        "properties": {"facts": {"type": "array", "maxItems": max_facts, "items": item}},
        "required": ["facts"],
        "additionalProperties": False,
    }


def normalize(text: str, observed_at: datetime) -> tuple[str, date | None]:
    """A model's fact in Keepsake's form: "User ..." in the third person, dates grounded;
    with the start of its first date (or None)."""
    t = " ".join(str(text).split())
    t = re.sub(r"^(?:the\s+user|the\s+person|this\s+user)\b", "User", t, flags=re.I)
    t = re.sub(r"^user\b", "User", t)
    g = ground(third_person(t), observed_at)
    return finish(g.text), g.valid_at


class LlmExtractor:
    """Ask ``chat_model`` (anything with ``complete_json(messages, schema, max_tokens=)``,
    ``name``) for facts."""

    def __init__(self, chat_model: Any, *, max_facts: int = 3, max_tokens: int = 200) -> None:
        self.model = chat_model
        self.max_facts = max_facts
        self.max_tokens = max_tokens

    @property
    def name(self) -> str:
        return f"llm:{getattr(self.model, 'name', type(self.model).__name__)}"

    def prompt(self, grounded_message: str, existing: Sequence[str]) -> list[Any]:
        msg = grounded_message[:MAX_INPUT_CHARS]
        parts = []
        if existing:
            listed = "\n".join(f"{i}: {t[:160]}" for i, t in enumerate(existing))
            parts.append(f"Known memories:\n{listed}\n")
        parts.append(f"Message:\n{msg}")
        return [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", "\n".join(parts))]

    def extract(self, grounded_message: str, observed_at: datetime, existing: Sequence[str] = ()) -> LlmExtraction:
        """Proposals for ``grounded_message``; ``existing[i]`` is what ``about == i`` refers to.
        Never raises for bad model output (``error`` says what went wrong)."""
        from assistant.memory.language.rules import Candidate

        existing = list(existing)[:MAX_EXISTING]
        messages = self.prompt(grounded_message, existing)
        out = LlmExtraction(prompt="\n\n".join(m.content for m in messages))
        try:
            out.raw = self.model.complete_json(messages, schema(len(existing), self.max_facts), max_tokens=self.max_tokens)
        except ValueError as exc:  # truncated or invalid JSON
            out.error = f"model output is not valid JSON: {exc}"
            return out
        facts = out.raw.get("facts") if isinstance(out.raw, dict) else None
        if not isinstance(facts, list):
            out.error = "model output has no 'facts' list"
            return out
        for item in facts[: self.max_facts]:
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                continue
            out.proposed += 1
            about = item.get("about", -1)
            if not isinstance(about, int) or isinstance(about, bool) or not 0 <= about < len(existing):
                about = None  # range check: -1, out of range or not an integer -> no reference
            text, valid_at = normalize(item["text"], observed_at)
            out.candidates.append(Candidate(text, Kind.FACT, None, valid_at, 0.5, extractor=self.name, about=about))
        return out
