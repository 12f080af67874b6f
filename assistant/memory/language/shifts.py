"""Which statements say that a state *changed* without naming the state it replaces ("I drink
tea these days", "I got a new car, a Kia", "ahora vivo en Valencia", "我现在住在北京"). Pure, no
I/O (issue 23; the earlier state each one ends is found by meaning in
:mod:`assistant.memory.consolidation.plans.shifts`).

These are cues of tense and aspect in six languages, a closed grammatical class, not topics:

- :data:`_NOW` -- a marker that the present state differs from before: now, these days,
  nowadays, no longer, any more, instead, switched, changed, moved, "new", a value raised or
  lowered to a number ("GP upped my levothyroxine to 100 micrograms") (ahora, jetzt,
  maintenant, agora, 现在 ...);
- :data:`_BEGIN` -- a beginning: started, joined, became, took up, a first day/week as or at (empezé, angefangen, commencé,
  comecei, 开始): weaker, since a beginning often adds ("I started learning piano");
- what ends nothing: an addition (:data:`_ADDITION`: also, as well, another, too, auch, también,
  aussi, também, 也), a plan or wish (:data:`_PLAN`), an explicitly past state (:data:`_PAST`).

    shift_kind(text) = None  if addition / plan / past cue
                       "now"   elif a _NOW cue
                       "begin" elif a _BEGIN cue
                       None    otherwise
"""

from __future__ import annotations

import re
import unicodedata

from assistant.memory.language.langid import FUNCTION_WORDS

_NOW = re.compile(
    r"\b(?:now(?! and (?:then|again))|nowadays|these days|lately|anymore|any more|no longer|instead|switched|changed|moved|"
    r"got divorced|split up|broke up|separated|quit|gave up|stopped|"
    r"ahora|hoy en día|actualmente|ya no|en vez de|en lugar de|me mudé|cambié|dejé de|"
    r"jetzt|inzwischen|mittlerweile|nicht mehr|kein\w* mehr|stattdessen|umgezogen|gewechselt|aufgehört|"
    r"maintenant|désormais|actuellement|ne .{1,20} plus|au lieu de|déménagé|changé|arrêté|"
    r"agora|hoje em dia|atualmente|já não|não .{1,20} mais|em vez de|mudei|troquei|parei)\b"
    r"|\b(?:upped|bumped|hiked|adjusted|raised|increased|lowered|reduced|cut|dropped|put\s+(?:up|down)|(?:went|goes|going|gone)\s+(?:up|down))\b(?=[^.!?;]{0,40}?\bto\s+[£$€]?\d)"  # a value changed: "upped my levothyroxine to 100"
    r"|现在|如今|最近|不再|换了|搬到|改成|新的"
    r"|(?-i:\b(?:new|nuev[oa]|neue[nrms]?|nouve(?:au|lle|l)|nov[oa])\b)",
    re.I,
)
_BEGIN = re.compile(
    r"\b(?:started|began|begun|joined|became|took up|taken up|first (?:full )?(?:day|week|shift|night) (?:as|at)|"
    r"empecé|empezé|comencé|empiezo|angefangen|begonnen|commencé|comecei|entrei)\b|开始|加入",
    re.I,
)
_ADDITION = re.compile(
    r"\b(?:also|as well|another|too|in addition|besides|on top of|alongside|second|auch|noch ein\w*|zusätzlich|zweite\w*|también|además|otr[oa]|"
    r"segund[oa]|aussi|également|un autre|une autre|deuxième|também|outr[oa])\b|也|还有|另一|第二",
    re.I,
)
_PLAN = re.compile(
    r"(?-i:\bmay\b)|\b(?:going to|gonna|will|'ll|plan|planning|might|maybe|hope|want to|wanna|thinking of|thinking about|"
    r"next (?:year|month|week|spring|summer|autumn|fall|winter)|soon|"
    r"voy a|vamos a|quiero|quizás|tal vez|el año que viene|el próximo|la próxima|pronto|"
    r"werde|werden|möchte|will|vielleicht|nächste[nsm]?|bald|"
    r"vais|allons|peut-être|l'année prochaine|prochain\w*|bientôt|"
    r"vou|vamos|talvez|quero|próxim[oa]|em breve)\b|打算|计划|明年|将要|可能|想要",
    re.I,
)
_PAST = re.compile(
    r"\b(?:used to|back in|when I was|as a (?:kid|child|student|teenager)|years ago|in (?:19|20)\d\d|"
    r"solía|de niñ[oa]|cuando era|früher|damals|als kind|autrefois|quand j'étais|"
    r"costumava|quando eu era|antigamente)\b|以前|小时候|过去",
    re.I,
)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text.replace("’", "'"))


def keeps_earlier(text: str) -> bool:
    """``text`` adds to, plans, or tells the past of a state: it ends nothing."""
    t = _fold(text)
    return bool(_ADDITION.search(t) or _PLAN.search(t) or _PAST.search(t))


def planned(text: str) -> bool:
    """``text`` tells a plan or a wish (:data:`_PLAN`: "thinking of getting her a Polaroid"), not
    what happened."""
    return bool(_PLAN.search(_fold(text)))


def shift_kind(text: str) -> str | None:
    """"now" / "begin" when ``text`` states a new present state that may replace an earlier one,
    else None (module docstring)."""
    t = _fold(text)
    if keeps_earlier(t):
        return None
    if _NOW.search(t):
        return "now"
    if _BEGIN.search(t):
        return "begin"
    return None


def without_cues(text: str) -> str:
    """``text`` without its change cues ("I drink green tea in the mornings these days" -> "I
    drink green tea in the mornings"), for comparing what the state is about."""
    t = _NOW.sub(" ", _fold(text))
    return re.sub(r"\s+", " ", re.sub(r"\s+([,.!?])", r"\1", t)).strip(" ,")


_TOKEN = re.compile(r"[^\W\d_]+")
_FUNCTION = frozenset().union(*FUNCTION_WORDS.values()) | {"user"}  # "User" of an extracted fact
_HAN = re.compile(r"[\u4e00-\u9fff]+")


#: Verbs that give a name ("Se llama Amparo", "Su profe nueva se llama Frau Ahrens"): they say what
#: someone is called, no state two statements could share.
_NAMING = frozenset("llama llaman llamo chama chamam chamo heißt heisst heiße appelle appellent called named".split())


def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` that say what it is about, for languages where MiniLM's cosine is
    blind: words of 3+ letters that are no function word of the six languages
    (:data:`~assistant.memory.language.langid.FUNCTION_WORDS`) nor a naming verb, no change cue and not the
    "User" of an extracted fact; Chinese as character pairs (bigrams) of the text without cues."""
    t = without_cues(text)
    words = {w.casefold() for w in _TOKEN.findall(_HAN.sub(" ", t)) if len(w) >= 3} - _FUNCTION - _NAMING
    pairs = {run[i:i + 2] for run in _HAN.findall(t) for i in range(len(run) - 1)}
    return frozenset(words | pairs)
