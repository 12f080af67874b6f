"""Explicit memory commands typed in chat: "remember that ..." and "forget ...".

- ``parse_command(text)`` recognises them (English; a few Chinese forms) and returns a
  :class:`Command`, else ``None``.
- "remember that X" stores X at once as a user-stated fact with confidence 1.0
  (:func:`remember`), in the third person ("remember that I parked on level 3" ->
  "User parked on level 3.").
- "forget X" / "forget that X" / "delete the memory about X" NEVER deletes: the caller asks
  :func:`assistant.memory.forget.topic.propose` for the memories about X and the part of each
  that would go, shows them (CLI prompt / UI dialog), and only after the person confirms calls
  ``store.forget(topic.request_for(chosen))``.

:func:`keyword_search` is the FTS5 fallback used when no retriever is given (BM25 over memory
text; the query is tokenized and every term quoted, so user text never reaches MATCH raw).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Sequence

from assistant.engine import control
from assistant.memory.language.dates import ground
from assistant.memory.language.phrasing import finish, third_person  # not via rules: a question turn needs none of its patterns
from assistant.memory.records import AddResult, Kind, Memory, Source, Trust
from assistant.memory.store import capture_reads
from assistant.memory.store.sqlite import fts
from assistant.memory.language.validate import STOPWORDS
from datetime import time as dtime

REMEMBER_EXTRACTOR = "command.remember"
EXTRACTOR_VERSION = "1"

_REMEMBER = re.compile(
    r"^\s*(?:(?:hey|ok|okay|please|pls|also|and)[,\s]+)*(?:(?:can|could|would) you\s+)?(?:please\s+)?"
    r"(?:remember|note|don['’]t forget|do not forget|keep in mind|make a note)(?:\s+(?:this|that))?\s*(?:[:,-]\s*)?"
    r"(?P<body>.+?)\s*[.!?]*\s*$",
    re.I | re.S,
)
_FORGET = re.compile(
    r"^\s*(?:(?:hey|ok|okay|please|pls|also|and)[,\s]+)*(?:(?:can|could|would) you\s+)?(?:please\s+)?"
    r"(?:forget(?:\s+(?:about|that|everything about|what i said about))?|"
    r"(?:delete|remove|erase)\s+(?:the\s+|any\s+|all\s+|your\s+)?(?:memor(?:y|ies)|facts?|notes?)\s+(?:about|of|on|that)"
    r"|stop remembering)\s*(?:[:,-]\s*)?(?P<body>.+?)\s*[.!?]*\s*$",
    re.I | re.S,
)
_ZH_REMEMBER = re.compile(r"^\s*(?:请)?(?:记住|记一下)[:：，,]?\s*(?P<body>.+?)\s*[。！!]*\s*$", re.S)
_ZH_FORGET = re.compile(r"^\s*(?:请)?(?:忘记|忘掉|删除关于)[:：，,]?\s*(?P<body>.+?)\s*[。！!]*\s*$", re.S)
# "remember when we ...", "do you remember ...", "I can't remember ..." are not commands.
_NOT_REMEMBER = re.compile(r"^\s*(?:(?:do|did|can|could) you remember|remember when|remember how|i\b)", re.I)


@dataclass(frozen=True)
class Command:
    kind: Literal["remember", "forget"]
    text: str  # what to remember, or what to forget (the search query)


def parse_command(text: str) -> Command | None:
    """A remember/forget command, or None for an ordinary message."""
    if not isinstance(text, str) or not text.strip() or len(text) > 2000:
        return None
    if _NOT_REMEMBER.match(text):
        return None
    for kind, pattern in (("forget", _FORGET), ("remember", _REMEMBER), ("forget", _ZH_FORGET), ("remember", _ZH_REMEMBER)):
        m = pattern.match(text)
        if m and control.strip_forged(m["body"]).strip() and not m["body"].rstrip().endswith("?"):
            return Command(kind, m["body"].strip())  # type: ignore[arg-type]
    return None


def remember_text(body: str, observed_at: datetime) -> tuple[str, Any]:
    """The fact text for "remember that <body>" (third person, dates grounded) and its valid_at
    (a date or None)."""
    g = ground(control.strip_forged(body), observed_at)
    text = finish(third_person(g.text))
    if not re.search(r"\bUser\b", text):
        first = text.split()[0]
        if first.casefold() in STOPWORDS:
            text = text[0].lower() + text[1:]
        text = finish(f"User asked to remember that {text}")
    return text, g.valid_at


def remember(store: Any, command: Command | str, *, message: Any = None, observed_at: datetime | None = None,
             trust: Trust = Trust.USER_STATED) -> AddResult:  # fmt: skip
    """Store a "remember that ..." fact now (ADD with hash dedup; confidence 1.0). ``command``:
    the parsed command or its body text; ``message``: the stored chat message it came from (its
    session, id and observed_at become the source; the later capture of the same message then
    adds nothing). Raises ValueError for an empty text."""
    body = command.text if isinstance(command, Command) else str(command)
    when = observed_at or (message.observed_at if message is not None else store.now())
    local = when.astimezone()
    text, valid = remember_text(body, local)
    valid_at = datetime.combine(valid, dtime.min, tzinfo=local.tzinfo) if valid else None
    src = Source(
        session_id=getattr(message, "session_id", None), message_id=getattr(message, "id", None), speaker="user",
        extractor=REMEMBER_EXTRACTOR, extractor_version=EXTRACTOR_VERSION, observed_at=when,
    )  # fmt: skip
    return store.add_ex(text, kind=Kind.FACT, source=src, valid_at=valid_at, trust=trust, confidence=1.0)


# ----------------------------------------------------------------------------- search

_TERM = re.compile(r"\w+", re.UNICODE)
_SKIP = frozenset("the a an and or of to in on at my me i that this about is was were are it memory memories fact".split())


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression: the query's terms, each quoted, OR-ed (None if no term)."""
    terms = [t for t in _TERM.findall(text.casefold()) if t not in _SKIP and len(t) > 1]
    terms = list(dict.fromkeys(terms))[:16]
    if not terms:
        return None
    return fts.any_of(terms)


def keyword_search(store: Any, query: str, k: int = 5, *, kinds: Sequence[Kind] | None = None) -> list[Memory]:
    """Current memories matching ``query`` by BM25 (FTS5), best first."""
    match = fts_query(query)
    if match is None or k <= 0:
        return []
    return store.get_many(capture_reads.best_matches(store.conn, match, kinds or (), k))
