"""Capture: turn what the person said into memories, on the hot path, ADD-only (DESIGN §5).

    capturer = Capturer(store, chat_model)            # chat_model optional
    result = capturer.capture_message(message.id)     # CaptureResult(episode_id, memory_ids, rejected)

For one user message, :meth:`Capturer.capture_message`:

1. captures nothing when memory is off (``Settings.memory_enabled`` false or the global
   ``Settings.incognito``), when the session is incognito, for a message that is not the
   person's (role ``user``), for a redacted one, and for a "forget ..." command (storing it would
   keep what the person asked to forget; the caller runs the confirmation flow of
   :mod:`assistant.memory.commands`);
2. stores the message as an **episode** (kind ``episode``, the verbatim text, ``valid_at`` = its
   first grounded date if that is earlier than when it was said, else when it was said: a plan
   for March said in January is known from January). A message over ``OFFLOAD_CHARS`` (8000) has its
   full text offloaded to an archive file (:func:`assistant.context.offload.offload`), registered
   with ``store.register_file`` so deleting the episode deletes the file; the episode keeps the
   500-char preview + pointer (the message row itself keeps the full text);
3. extracts profile slots and facts with the deterministic rules
   (:mod:`assistant.memory.extract_rules`) and, when a chat model is given and ``use_llm``, with
   JSON-schema constrained extraction (:mod:`assistant.memory.extract_llm`), shown at most 8
   existing memories numbered 0..n-1 (retriever hits, else FTS matches, plus recent profile slots).
   Profiles and facts get ``valid_at`` like the episode: the date their sentence grounds (when
   earlier), else when the message was said (true at least since then: the consolidator orders
   an update and the facts it retires by these starts);
4. validates every fact against the message (:func:`assistant.memory.validate.validate`):
   rejected ones are returned in ``CaptureResult.rejected`` as ``(text, reason)``, kept in
   ``Capturer.rejections`` (last 500) and logged (reason at INFO, text at DEBUG), never raised;
5. ADDs everything in one ``add_many`` call (one embedding batch, one transaction): identical
   normalized text dedups to the existing record and only adds this message as a source. No
   existing memory row is ever updated or deleted here.

Trust by source: ``user_stated`` for the person's own words (episode, rules, "remember that"),
``assistant_inferred`` for LLM-only facts that pass validation, ``imported`` for everything from
an imported session (external id ``import:...``) or when ``trust=Trust.IMPORTED`` is passed.
Provenance: every record gets a :class:`Source` (session, message, speaker, extractor + version,
observed_at). Dates ground against the message's ``observed_at`` (in the local timezone, or
``tz``), never against the current time.

Long messages: only the first ``RULES_WINDOW`` characters are read by the rules (a pasted
document is not the person talking about themselves), and the LLM is skipped.

Retrying a capture is safe: the same message gives the same texts and sources, so a second run
adds nothing. :class:`assistant.memory.capture_queue.CaptureQueue` runs captures off the caller's
thread and persists failures.
"""

from __future__ import annotations

import collections
import logging
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, tzinfo
from typing import Any, Sequence

from assistant.engine import control
from assistant.memory import extract_rules
from assistant.memory.commands import REMEMBER_EXTRACTOR, Command, keyword_search, parse_command, remember_text
from assistant.memory.dates import ground
from assistant.memory.extract_llm import MAX_EXISTING, LlmExtractor
from assistant.memory.extract_rules import Candidate
from assistant.memory.records import (
    DEFAULT_SCOPE,
    Actor,
    Kind,
    LinkType,
    Memory,
    NewMemory,
    Role,
    Scope,
    Source,
    Trust,
)
from assistant.memory.validate import validate

log = logging.getLogger(__name__)

EPISODE_EXTRACTOR = "episode"
CAPTURE_VERSION = "1"
RULES_WINDOW = 4000
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i’m|i've|i’ve|my|me|we|our|us|mine)\b|我", re.I)


@dataclass
class CaptureResult:
    """What one capture did. ``memory_ids``: the profile/fact records this message supports
    (new, or existing ones it was deduplicated into; ``created_ids`` are the new ones)."""

    message_id: int
    episode_id: int | None = None
    memory_ids: list[int] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    created_ids: list[int] = field(default_factory=list)
    skipped: str | None = None  # why nothing was captured
    command: Command | None = None
    offloaded: str | None = None  # archive ref holding the full text of a long message
    llm_proposed: int = 0
    llm_accepted: int = 0
    llm_error: str | None = None
    llm_prompt: str | None = None  # what the model was shown (for inspection and tests)

    def to_json(self) -> dict[str, Any]:
        return {
            "message_id": self.message_id,
            "episode_id": self.episode_id,
            "memory_ids": list(self.memory_ids),
            "created_ids": list(self.created_ids),
            "rejected": [{"text": t, "reason": r} for t, r in self.rejected],
            "skipped": self.skipped,
            "command": {"kind": self.command.kind, "text": self.command.text} if self.command else None,
            "offloaded": self.offloaded,
            "llm": {"proposed": self.llm_proposed, "accepted": self.llm_accepted, "error": self.llm_error},
        }


def _valid_from(d: date | None, tz: tzinfo | None, observed_at: datetime) -> datetime:
    """When a statement starts being true: the date its text grounds, but never after it was said
    ("I'm running the Bath Half on March 16", said in January, is a plan known since January;
    "I moved last week" started the week before)."""
    grounded = _as_datetime(d, tz)
    return grounded if grounded is not None and grounded < observed_at else observed_at


def _as_datetime(d: date | None, tz: tzinfo | None) -> datetime | None:
    return datetime.combine(d, time.min, tzinfo=tz) if d is not None else None


class Capturer:
    """Capture messages from ``store`` (its connection for the calling thread is used).

    ``chat_model``: the loaded chat model for LLM extraction (optional); ``use_llm=False`` skips
    it. ``retriever``: anything with ``search(query, k=) -> [hit.memory]`` to pick the existing
    memories shown to the model (default: FTS). ``settings``: a :class:`Settings` (default: read
    at every capture, so toggling memory off takes effect at once). ``tz``: timezone in which
    relative dates are grounded (default: the machine's)."""

    def __init__(self, store: Any, chat_model: Any = None, *, use_llm: bool = True, retriever: Any = None,
                 scope: Scope | None = None, settings: Any = None, tz: tzinfo | None = None) -> None:  # fmt: skip
        self.store = store
        self.chat_model = chat_model
        self.use_llm = use_llm
        self.retriever = retriever
        self.scope = scope or DEFAULT_SCOPE
        self.settings = settings
        self.tz = tz
        self.rejections: collections.deque[tuple[int, str, str]] = collections.deque(maxlen=500)
        self._llm = LlmExtractor(chat_model) if chat_model is not None else None

    # ------------------------------------------------------------------ public

    def capture_message(self, message_id: int, *, trust: Trust | None = None, use_llm: bool | None = None) -> CaptureResult:
        """Capture one stored message (see the module docstring). Raises only for store errors
        (:class:`NotFound` for an unknown id); extraction problems end up in the result."""
        result = CaptureResult(message_id)
        why = self._memory_off()
        if why:
            result.skipped = why
            return result
        msg = self.store.get_message(message_id)
        session = self.store.get_session(msg.session_id)
        if msg.role != Role.USER:
            result.skipped = f"not a user message ({msg.role.value})"
        elif msg.redacted:
            result.skipped = "message was redacted"
        elif session.incognito:
            result.skipped = "incognito session"
        elif not msg.content.strip():
            result.skipped = "empty message"
        if result.skipped:
            return result
        cmd = parse_command(msg.content)
        result.command = cmd
        if cmd is not None and cmd.kind == "forget":
            result.skipped = "forget command: nothing is stored (the caller asks for confirmation)"
            return result
        imported = trust == Trust.IMPORTED or (trust is None and (session.external_id or "").startswith("import:"))
        base_trust = Trust.IMPORTED if imported else (trust or Trust.USER_STATED)
        observed = msg.observed_at.astimezone(self.tz)  # the speaker's wall clock grounds dates
        return self._capture(msg, cmd, observed, base_trust, imported, use_llm, result)

    # ------------------------------------------------------------------ steps

    def _memory_off(self) -> str | None:
        settings = self.settings
        if settings is None:
            from assistant.config import load_settings

            settings = load_settings()
        if not settings.memory_enabled:
            return "memory is turned off in settings"
        if settings.incognito:
            return "incognito mode is on in settings"
        return None

    def _capture(self, msg: Any, cmd: Command | None, observed: datetime, base_trust: Trust, imported: bool,
                 use_llm: bool | None, result: CaptureResult) -> CaptureResult:  # fmt: skip
        text = msg.content
        long = len(text) > _offload_chars()
        # chat-template control strings ("<|im_end|>") are never part of an extracted memory
        window = control.neutralise(text[:RULES_WINDOW] if long else text)
        grounded = ground(window, observed)
        sources_text = [window, grounded.text]
        episode_text = text
        offloaded = None
        if long:
            offloaded = _offload(text, msg.session_id)
            if offloaded is not None:
                episode_text, result.offloaded = offloaded.text, offloaded.ref

        def source(extractor: str, version: str = CAPTURE_VERSION) -> Source:
            return Source(session_id=msg.session_id, message_id=msg.id, speaker="user", extractor=extractor,
                          extractor_version=version, observed_at=msg.observed_at)  # fmt: skip

        specs = [NewMemory(
            episode_text, kind=Kind.EPISODE, scope=self.scope, sources=(source(EPISODE_EXTRACTOR),),
            valid_at=_valid_from(grounded.valid_at, observed.tzinfo, msg.observed_at), trust=base_trust,
            confidence=1.0,
        )]  # fmt: skip
        cands: list[Candidate] = []
        if cmd is not None and cmd.kind == "remember":
            fact, valid = remember_text(cmd.text, observed)
            cands.append(Candidate(fact, Kind.FACT, None, valid, 1.0, extractor=REMEMBER_EXTRACTOR))
            cands += extract_rules.extract(cmd.text, observed)
        else:
            cands += extract_rules.extract(window, observed)
        existing: list[Memory] = []
        ask = self.use_llm if use_llm is None else use_llm
        if ask and self._llm is not None and not long and _FIRST_PERSON.search(window):
            existing = self._context(window)
            out = self._llm.extract(grounded.text, observed, [m.text for m in existing])
            result.llm_proposed, result.llm_error, result.llm_prompt = out.proposed, out.error, out.prompt
            cands += out.candidates
        llm_name = self._llm.name if self._llm is not None else None
        accepted: list[Candidate] = []
        for c in cands:
            reason = validate(c.text, sources_text, existing=[m.text for m in existing])
            if reason is not None:
                self._reject(msg.id, c, reason, result)
                continue
            result.llm_accepted += int(c.extractor == llm_name)
            if not any(a.text.casefold() == c.text.casefold() for a in accepted):
                accepted.append(c)  # the same fact from two extractors: the first (more trusted) wins
        for c in accepted:
            llm = c.extractor == llm_name
            trust = Trust.lowest([base_trust, Trust.ASSISTANT_INFERRED]) if llm else base_trust
            version = extract_rules.EXTRACTOR_VERSION if c.extractor == extract_rules.EXTRACTOR else CAPTURE_VERSION
            specs.append(NewMemory(
                c.text, kind=c.kind, scope=self.scope, sources=(source(c.extractor, version),),
                valid_at=_valid_from(c.valid_at, observed.tzinfo, msg.observed_at), trust=trust, confidence=c.confidence,
                entities=c.entities, slot=c.slot,
            ))  # fmt: skip
        added = self.store.add_many(specs, actor=Actor.IMPORT if imported else Actor.CAPTURE)
        result.episode_id = added[0].id
        result.created_ids = [a.id for a in added if a.created]
        result.memory_ids = list(dict.fromkeys(a.id for a in added[1:]))
        if offloaded is not None and added[0].created:
            self.store.register_file(offloaded.path, memory_id=added[0].id, message_id=msg.id)
        for c, a in zip(accepted, added[1:]):
            if c.about is not None and a.created and a.id != existing[c.about].id:
                self.store.link(a.id, existing[c.about].id, LinkType.RELATED, actor=Actor.CAPTURE)
        return result

    def _reject(self, message_id: int, c: Candidate, reason: str, result: CaptureResult) -> None:
        result.rejected.append((c.text, reason))
        self.rejections.append((message_id, c.text, reason))
        log.info("capture: message %s: rejected a %s fact: %s", message_id, c.extractor, reason)
        log.debug("capture: rejected text: %r", c.text)

    def _context(self, text: str) -> list[Memory]:
        """Existing memories the model may refer to (by index): retriever or FTS matches, then
        the most recent profile slots; never episodes."""
        found: list[Memory] = []
        if self.retriever is not None:
            try:
                found = [h.memory for h in self.retriever.search(text[:500], k=MAX_EXISTING)]
            except Exception:  # noqa: BLE001 - context is optional
                log.warning("capture: retriever failed; using keyword search", exc_info=True)
        if not found:
            found = keyword_search(self.store, text[:500], 4, kinds=(Kind.FACT, Kind.PROFILE))
        found = [m for m in found if m.kind != Kind.EPISODE]
        seen = {m.id for m in found}
        for m in self.store.list(kind=Kind.PROFILE, limit=MAX_EXISTING):
            if m.id not in seen:
                found.append(m)
                seen.add(m.id)
        return found[:MAX_EXISTING]


def capture_messages(store: Any, ids: Sequence[int], **kw: Any) -> list[CaptureResult]:
    """Capture several messages in order with one :class:`Capturer` (``kw`` as for it)."""
    capturer = Capturer(store, **kw)
    return [capturer.capture_message(i) for i in ids]


def _offload_chars() -> int:
    try:
        from assistant.context.offload import OFFLOAD_CHARS
    except ImportError:  # the context package is optional for capture
        return 8000
    return OFFLOAD_CHARS


def _offload(text: str, session_id: int) -> Any:
    try:
        from assistant.context.offload import offload
    except ImportError:
        return None
    try:
        return offload(text, session_id, kind="message")
    except OSError:
        log.warning("capture: could not offload a long message; the episode keeps the full text", exc_info=True)
        return None


def __getattr__(name: str) -> Any:  # CaptureQueue lives in its own module
    if name == "CaptureQueue":
        from assistant.memory.capture_queue import CaptureQueue

        return CaptureQueue
    raise AttributeError(name)
