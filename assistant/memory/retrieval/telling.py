"""A turn that tells rather than asks ("I moved to Antwerp last week."): it gets no memory answer
(issue 28.5), since the memory it would show is the one the message is replacing. Pure; no I/O."""

from __future__ import annotations

from datetime import datetime, timezone

from assistant.memory.language.statements import Act, classify
from assistant.memory.retrieval.questions import is_question

#: Any instant: :func:`tells` reads only which profile slots a message states, never its dates.
_SLOT_PROBE_AT = datetime(2000, 1, 1, tzinfo=timezone.utc)


def tells(text: str) -> bool:
    """The message tells something and asks nothing: no sentence is a question or a request
    (capture's classifier), it does not read as a question, and capture's rules find a profile
    slot it states ("I moved to Antwerp last week." -> home_city). Such a turn gets no memory
    answer: the memory it would show is the one the message is replacing. A typo'd or indirect
    question ("wat's my nam", "I forgot where my sister works") states no slot and is still
    answered."""
    if is_question(text) or any(u.act in (Act.QUESTION, Act.REQUEST) for u in classify(text).units):
        return False
    from assistant.memory.language.rules import extract  # its patterns: only for a message that asks nothing

    return any(c.slot for c in extract(text, _SLOT_PROBE_AT))
