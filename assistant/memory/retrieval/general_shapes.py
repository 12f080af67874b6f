"""General questions asked through the person (issue 28.2): their shapes, read by clause
structure in a question's words or its English reading (:func:`~assistant.memory.language.reading.reading`).
A question of these shapes mentions the person ("my", "I") but asks what anyone could answer: it
is never refused, and a memory is context for it, never its answer (:mod:`.questions` reads them
as requests). Measured by ``keepsake bench general``. Pure; no I/O.

- :func:`unquoted`: what a question quotes is mentioned, not said of anyone;
- :func:`last_ask`: the question a message ends with, after what it tells;
- :func:`tag_judgement`: a short tag judging the statement before it ("... Realistic?");
- :func:`explains`: how a thing works, why a thing of theirs behaves as it does;
- :func:`knows`: what anyone needs, can or does; a habit under a condition; a conversion.
"""

from __future__ import annotations

import re

from assistant.memory.language.cues import PERSON_WORD
from assistant.memory.language.reading import reading
from assistant.memory.retrieval import vocabulary as V

_QUOTED = re.compile(r"(?<!\w)'(?:[^'\n]|(?<=\w)'(?=\w))+?'(?!\w)|\"[^\"]{2,}\"|«[^»]+»|“[^”]+”|„[^“”]+[“”]|‘[^’]+’|「[^」]+」|『[^』]+』")


def unquoted(text: str) -> str:
    """``text`` without what it quotes ("What's the Spanish for 'I'm allergic to peanuts'?" ->
    "What's the Spanish for ?"): words quoted are mentioned, not said of anyone."""
    return _QUOTED.sub(" ", text)


# where a message's last question begins after what it tells: "I'm allergic to penicillin, | is amoxicillin safe ...?"
_ASK_START = re.compile(r"(?:[,;:.!]|\band\b|\bso\b)\s+(?=(?:is|are|can|could|should|would|will|do|does|what|what's|how|which|where|when|any)\b)"
                        r"|\s[-–—]\s+(?=\S)|，(?=[^，]+[?？]\s*$)", re.I)  # "... rubber - what things are ...?", "... – ist X gesund?", "我的儿子对花生过敏，学校午餐时要注意什么？"


def last_ask(question: str) -> str:
    """The question a message ends with, after a statement before it ("My mum loves gardening, what's
    a good present for her?" -> "what's a good present for her?"); the whole message otherwise."""
    if not question.rstrip().endswith(("?", "？")):
        return question
    cuts = list(_ASK_START.finditer(question))
    return question[cuts[-1].end():] if cuts else question


_AFTER_ASK = re.compile(r"(?<=[?？])\s+(?=\S)")


def ask_first(question: str) -> str:
    """A message asking first and telling after ("Is there any medicine I can't take? The pharmacist
    asked me today and my mind went blank.") read up to its last question; the whole message when
    it ends with one or asks nothing."""
    if question.rstrip().endswith(("?", "？")):
        return question
    cuts = list(_AFTER_ASK.finditer(question))
    return question[: cuts[-1].start()] if cuts else question


# a short yes/no question closing a statement, judging it: "... in 3 months. Realistic?", "... Is that too much?",
# "My friend says tomatoes are a fruit. Is he right?" (read in English: "Vale a pena ...?", "这样靠谱吗？")
_TAG = re.compile(r"(?:^|[.!?,;:]\s+)(?:(?:is|was|does|would|isn't)\s+(?:that|it|this|he|she|they)\s+|(?:are|were)\s+(?:they|you)\s+)?"
                  r"(?:(?:sound|look|seem)\s+|(?:a|too|very|really|so)\s+)*(?P<w>[a-z]+)(?:\s+(?:much|many|idea|plan|enough))?\s*\??\s*$", re.I)


def tag_judgement(q: str) -> bool:
    """A short yes/no question closing the message judges what it says (:data:`_TAG`)."""
    m = _TAG.search(unquoted(q)) or _TAG.search(reading(q))
    return m is not None and (m["w"].casefold() in V.JUDGEMENTS or m["w"].casefold() in V.VERDICTS)


# how a thing works or why a thing of theirs behaves as it does: "How does my smart thermostat know ...?", "¿Cómo funciona
# la placa ...?" (read: "how works ..."), "Why do my glasses fog up ...?", "What's the difference between gross and net ...?";
# not what a person of theirs does ("Why does my sister live in Lisbon?", "How does my brother know Camille?")
_EXPLAIN = re.compile(r"^\s*(?:how\s+(?:does|do|can|could)\s+(?!(?:i|we|you)\b)(?P<a>(?:an?\s+|the\s+|my\s+|our\s+)?[\w' -]+?)\s+(?:work|function|know|tell)\b"
                      r"|how\s+(?:works?|functions?)\b|why\s+(?:does|do)\s+(?P<b>(?:my|our|the|a|an)\s+[\w-]+(?:\s+[\w-]+)?)\s+(?!have\b|live\b|work\b)[a-z]+"
                      r"|what(?:['’]s|\s+is)\s+the\s+difference\s+between\b"
                      # what a thing of theirs does, tells or means: "What does the 'ECO' mode on my dishwasher do differently?",
                      # "What is the check engine light on my dashboard telling me?", glossed "what mean the care symbols on ..."
                      r"|what\s+(?:(?:does|do|is|are)\s+)?(?P<c>(?:the|an?)\s+[^?]+?)\s+(?:do|doing|mean|means|telling|tell|indicate|signal)\b)", re.I)
_HUMAN = re.compile(PERSON_WORD.pattern.replace("|dog|cat|puppy|kitten|team", ""), re.I)


# what anyone needs, can or does, asked through the person or a thing of theirs: "Can my dog eat grapes?", "Does my
# houseplant need more water in winter?", "How much vitamin D do I need per day?", "Why do I get a headache when I skip
# coffee?" (a habit under a condition, not "Why did I move?"), "I weigh 82 kg, how much is that in pounds?"
_KNOWLEDGE = re.compile(r"^\s*(?:can|could|may|should)\s+(?:my|our|a|an|the)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:eat|drink|have|take|be|go|get)\b"
                        r"|^\s*(?:does|do)\s+(?:my|our)\s+[\w-]+(?:\s+[\w-]+)?\s+need\b"
                        r"|^\s*how\s+(?:much|many)\s+[\w\s-]+?\s+(?:do|does|should|can)\s+(?:i|we|you|my\s+\w+|an?\s+\w+)\s+(?:need|burn|eat|drink|take|sleep|get|lose)\b"
                        r"|\d[^?]*\b(?:is|are)\s+(?:that|this|it|they)\s+in\s+[a-z]+"
                        # "why" of what keeps happening under a condition, also as a gloss reads it ("why get I muscle ache only
                        # two days after the training?"), never of what they did ("Why did I move after ...?")
                        r"|^\s*why\b(?!\s+(?:did|was|were|had|am|is|are|have|has)\b)(?!\s+(?:do|does)\s+(?:i|we|my\s+\w+)\s+(?:have|live|work)\b)"
                        r"(?![^?]*\b\w+ed\b)[^?]*\b(?:when|whenever|after|once|every\s+time|if|before)\b", re.I)
# may they do it to a thing of theirs: "Can I refreeze my bread?", glossed "I can freeze my bread again?" (not to a person of theirs)
_MAY_I = re.compile(r"^\s*(?:(?:can|could|may|should)\s+(?:i|we)|(?:i|we)\s+(?:can|could|may|should))\s+\w+\s+(?P<t>(?:my|our)\s+[\w-]+(?:\s+[\w-]+)?)", re.I)


def knows(q: str) -> bool:
    """General knowledge asked through the person or a thing of theirs (:data:`_KNOWLEDGE`, in its
    words or English reading): what memory holds is not the answer."""
    if _KNOWLEDGE.search(unquoted(q)) or _KNOWLEDGE.search(reading(q)):
        return True
    m = _MAY_I.match(unquoted(q)) or _MAY_I.match(reading(q))
    return m is not None and not _HUMAN.search(m["t"])


def explains(q: str) -> bool:
    """Asks how something works or why a thing behaves as it does (:data:`_EXPLAIN`, in its words or
    English reading): general knowledge about their thing, never a fact memory holds."""
    m = _EXPLAIN.match(unquoted(q)) or _EXPLAIN.match(reading(q))
    subject = m["a"] or m["b"] or m["c"] or "" if m is not None else ""
    return m is not None and not _HUMAN.search(subject) and not re.search(r"\b[A-Z][\w’'-]*['’]s\b", subject)
