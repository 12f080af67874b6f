"""Changes said in plain words that do not name what they replace ("I drink tea these days",
"I work at the hospital now", "I got a new car, a Kia", "ahora vivo en Valencia", "我现在住在北京"):
which statements are such *shifts*, and which earlier statement of the same topic each one ends.
Pure, no I/O (issue 23).

A statement is a shift when it carries a change cue (:data:`_CHANGE`: a marker of the present
state -- now, these days, nowadays, ahora, jetzt, maintenant, agora, 现在 -- or a change verb or
"new"), and none of the cues that say nothing ended: an addition (:data:`_ADDITION`: also, as
well, another, too, auch, también, aussi, também, 也), a plan (:data:`_PLAN`) or an explicitly past
state (:data:`_PAST`). These are cues of tense and aspect in six languages, not topics: the topic
is found by the embedder.

Which earlier state: among the current records first said before the shift (not from its own
message, not themselves an ending), the one whose MiniLM vector is closest to the shift's, if
that cosine is at least ``shift_cosine`` (calibrated on ``tests/data/truth_dev.json`` only):

    target(shift) = argmax_{old said earlier} cos(v_old, v_shift),  kept iff cos >= shift_cosine

The decision itself stays :func:`~.temporal.resolve` (the later-starting state supersedes).
"""

from __future__ import annotations

import re
import unicodedata

# a present state or a change: en, es, de, fr, pt, zh
_CHANGE = re.compile(
    r"\b(?:now|nowadays|these days|lately|anymore|any more|no longer|instead|new|switched|changed|moved|"
    r"started|became|joined|got divorced|split up|broke up|separated|quit|"
    r"ahora|hoy en día|actualmente|ya no|en vez de|en lugar de|nuevo|nueva|me mudé|cambié|"
    r"jetzt|inzwischen|mittlerweile|nicht mehr|stattdessen|neue[nrms]?|umgezogen|gewechselt|"
    r"maintenant|désormais|actuellement|ne .{1,20} plus|au lieu de|nouveau|nouvelle|nouvel|déménagé|changé|"
    r"agora|hoje em dia|atualmente|já não|não .{1,20} mais|em vez de|novo|nova|mudei|troquei)\b"
    r"|现在|如今|最近|不再|换了|搬到|改成|新的",
    re.I,
)
# nothing ended: an addition
_ADDITION = re.compile(
    r"\b(?:also|as well|another|too|in addition|besides|auch|noch ein\w*|zusätzlich|también|además|otro|otra|"
    r"aussi|également|un autre|une autre|também|outro|outra)\b|也|还有|另一",
    re.I,
)
# nothing ended yet: a plan or a wish
_PLAN = re.compile(
    r"\b(?:going to|gonna|will|'ll|plan|planning|might|may|maybe|hope|want to|thinking of|next (?:year|month|week|spring|summer|autumn|fall|winter)|"
    r"voy a|vamos a|quiero|quizás|tal vez|el año que viene|el próximo|"
    r"werde|werden|möchte|vielleicht|nächste[nsm]?|"
    r"vais|allons|peut-être|l'année prochaine|prochain\w*|"
    r"vou|vamos|talvez|quero|próximo|próxima)\b|打算|计划|明年|将要|可能",
    re.I,
)
# an explicitly past state
_PAST = re.compile(
    r"\b(?:used to|back in|when I was|as a (?:kid|child|student)|years ago|in (?:19|20)\d\d|"
    r"solía|de niño|de niña|cuando era|früher|damals|als kind|autrefois|quand j'étais|"
    r"costumava|quando eu era|antigamente)\b|以前|小时候|过去",
    re.I,
)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text.replace("’", "'"))


def is_shift(text: str) -> bool:
    """``text`` states a new present state that replaces an earlier one (module docstring)."""
    t = _fold(text)
    return bool(_CHANGE.search(t)) and not (_ADDITION.search(t) or _PLAN.search(t) or _PAST.search(t))


def keeps_earlier(text: str) -> bool:
    """``text`` adds to, plans, or tells the past of a state: it ends nothing."""
    t = _fold(text)
    return bool(_ADDITION.search(t) or _PLAN.search(t) or _PAST.search(t))
