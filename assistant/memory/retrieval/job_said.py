"""Whether a question asks what someone does for a living, and whether a memory says it (issue
28.4: "What does Sanne do for work?" is not answered by "... that's where I met Sanne"). Pure; no I/O."""

from __future__ import annotations

import re

from assistant.memory.retrieval.aliases import FAMILY_WORDS
from assistant.memory.retrieval.named_forms import JOB, tagged_named_forms
from assistant.memory.retrieval.vocabulary import STATE_WORDS

# "What does Sanne do?", "what does my ex do for a living?", "tell me what my brother does for work"
_WHO_ASKED = r"(?:(?:my|our)\s+(?:[\w’'-]+\s+){0,3}?[\w’'-]+|(?-i:[A-Z])[\w’'-]+)"
_ASKS_JOB = re.compile(r"^\s*what\s+(?:does|did)\s+" + _WHO_ASKED + r"\s+do(?:\s+for\s+(?:work|a\s+living|money))?\s*[?.!]*\s*$"
                       r"|\bwhat\s+(?:does|did)\s+" + _WHO_ASKED + r"\s+do\s+for\s+(?:work|a\s+living|money)\b"
                       r"|\bwhat\s+" + _WHO_ASKED + r"\s+(?:does|did)\s+for\s+(?:work|a\s+living|money)\b"
                       r"|\bwhat\s+" + _WHO_ASKED + r"\s+does\s*[?.!]*\s*$"  # "Remind me what Noor does."
                       r"|\bwhere\s+(?:does|did)\s+" + _WHO_ASKED + r"\s+work\b"  # "Where does Noor work?": her job says where
                       r"|\b(?:job|profession|occupation|line\s+of\s+work)\b", re.I)
# a word of work, or a Romance/German copula: "é arquiteta", "es médico", "ist Ärztin" name a job without an article
_JOB_WORDS = re.compile(r"\b(?:job|jobs|works?|worked|working|profession|career|employed|retired|runs|ran|owns|teaches|taught|studies|"
                        r"trabaja|trabalha|arbeitet|travaille|é|es|ist|est)\b", re.I)


def asks_job_of(question: str) -> bool:
    """The (English) question asks what someone does for a living."""
    return _ASKS_JOB.search(question) is not None


_STATE = "(?:" + "|".join(sorted(STATE_WORDS)) + ")"


def says_job_of(name: str, text: str) -> bool:
    """``text`` says what ``name`` does for a living: a job by its clause structure ("Joost is a
    carpenter.", "Kasper repairs bicycles.") in any sentence, a word of work or a copula of another
    language (:data:`_JOB_WORDS`), or "<name> ... is <job>." as a gloss reads a Romance job."""
    if _JOB_WORDS.search(text):
        return True
    # "Beatriz, the wife of Rafael, is architect." (a gloss: Romance languages name a job without an article)
    # "Rui, what is train driver of metro of Porto." ("o Rui, que é maquinista do metro do Porto"): where, after the job
    # "My dad Klaus was a carpenter his whole life and ...": after an article, whatever follows
    # (not a state or a date: "Mira is coming too", "aisha's birthday is the 13th of march")
    if re.search(rf"\b{re.escape(name)}\b(?!['’]s)[^.!?]*?\b(?:is|was)\s+(?:an?\s+[\w-]+|(?:the\s+)?(?!\d|\w+ing\b|{_STATE}\b)(?:[\w-]+\s+){{0,2}}(?!{_STATE}\b)[\w-]+"
                 rf"(?:\s+(?:of|in|at|for|on)\s+[^.!?;]*)?\s*(?:[.!?;]|$))|\b{re.escape(name)}\b[^.!?]*?\b(?:he|she)['’]s\s+an?\s+[\w-]+", text, re.I):
        return True
    # an aside after the name that names a worker: "Madina (best friend, pharmacist, still in Astana)"
    aside = re.search(rf"\b{re.escape(name)}\s*\((?P<a>[^)]*)\)", text, re.I)
    if aside and any(re.fullmatch(r"(?:an?\s+)?[a-z]+(?:ist|ian|eer|or|er)", w.strip(), re.I) and w.strip().casefold() not in FAMILY_WORDS
                     for w in aside["a"].split(",")):  # "(best friend, pharmacist)", not "(brother)"
        return True
    return any(slot == JOB for part in re.split(r"(?<=[.!?;])\s+|,\s+", text) for _f, slot in tagged_named_forms(part.strip()))
