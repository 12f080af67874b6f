"""A clause that holds only for the day it is said: a plan, a mood or a choice for today, said
in the present or the future ("think I'll skip the gym tonight", "wir bestellen Döner", "ce soir je
regarde un film", "hj tô com uma preguiça enorme"). Its truth ends with the day, so it is no
memory; the conversation keeps it. Decided by temporal semantics, not by topic:

    today_only(clause, sentence) =
        scoped   -- the clause names today/tonight/this evening (six languages), or its sentence
                    opens with one (a fronted time adverbial scopes over the clauses coordinated
                    with it: "Heute hab ich keinen Bock zu kochen, | wir bestellen Döner"), or a
                    clause before it in the sentence does and it names no time of its own ("Das
                    Wetter ist heute furchtbar, | ich bleibe lieber drinnen")
        and not past  -- a completed event of today can last ("I passed my driving test today",
                    "trabalhei doze horas hoje", "我今天搬家了"): past forms of the six languages
        and not a change  -- "I start my new job today" begins a lasting state (shifts.shift_kind)
        and no number -- "my dentist appointment is at 3 today" is dated and kept
        and no name   -- "Hoy adopté un gato, | se llama Simón": a name lasts
        and no day of the year -- "it's my birthday today": a birthday or an anniversary comes back
                    every year; :func:`annual_dated` names its day

Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from assistant.memory.language.cues import past_tense
from assistant.memory.language.langid import detect
from assistant.memory.language.shifts import shift_kind

_TODAY = (r"today|tonight|this evening|this afternoon|this morning|heute(?:\s+abend|\s+nachmittag|\s+früh)?|heut|hoy|esta noche"
          r"|esta tarde|esta mañana|aujourd['’]hui|ce soir|cet après-midi|ce matin|hoje(?:\s+à\s+noite)?|hj|esta noite|esta manhã")
_TODAY_IN = re.compile(r"\b(?:" + _TODAY + r")\b|今天|今晚|今早|今天晚上", re.I)
# the sentence opens with it, after a filler at most ("Bon, ce soir ...", "Ugh, today ...", "so tonight ...")
_TODAY_FIRST = re.compile(r"^(?:(?:ok(?:ay)?|so|well|ugh|bon|bref|alors|also|naja|pues|bueno|bom|enfim|嗯|唉)[,!.]?\s+)?(?:"
                          + _TODAY + r")\b|^(?:今天|今晚|今早)", re.I)
# a past form: an auxiliary with a participle (de, fr, es, pt), a preterite (es, pt, de), Chinese 了/过
_PAST_DE = re.compile(r"\b(?:war|waren|hatte|hatten|wurde|wurden)\b|\b(?:hab|habe|hat|haben|bin|ist|sind)\b(?:\s+\w+)*?\s+"
                      r"(?<!zu )(?:ge\w+(?:t|en)|(?:be|ver|er|ent|zer|über)\w+(?:t|en)|\w+iert)\b", re.I)
_PAST_FR = re.compile(r"\b(?:j['’]ai|ai|as|a|avons|avez|ont|suis|es|est|sommes|êtes|sont)\s+(?:\w+\s+)?\w+(?:é|ée|és|ées|is|it|u|ue|us|ert|ort)\b", re.I)
_PAST_ES = re.compile(r"\b(?:he|has|ha|hemos|han)\s+\w+(?:ado|ada|ido|ida|to|cho)\b|\b\w{2,}(?:é|í|ó|aste|iste|aron|ieron)\b", re.I)
_NOT_PAST_ES = re.compile(r"\b(?:café|bebé|josé|qué|aquí|allí|ahí|así|sí|mí|también|además|después|través|según)\b", re.I)
_PAST_PT = re.compile(r"\b\w{2,}(?:ei|ou|eu|iu|aram|eram|iram)\b", re.I)
_NOT_PAST_PT = re.compile(r"\b(?:sou|vou|estou|tou|tô|dou|meu|seu|teu|eu|céu|chapéu|museu|europeu|nosso|isso|ou|sei|dei)\b", re.I)
_PAST_ZH = re.compile(r"(?<!算)了|过")  # 算了: "forget it", no aspect


# an English "-ed" word after a copula or a degree word is an adjective: "I'm so tired", "feeling stressed"
_ED_ADJECTIVE = re.compile(r"\b((?:am|is|are|['’]m|['’]re|be|been|feel|feeling|get|getting|so|very|really|pretty|quite|too|bit)\s+)\w+ed\b", re.I)


# a time of its own: the clause is not about the today named before it ("I'm tired today, but tomorrow I ...")
_OTHER_TIME = re.compile(r"\b(?:tomorrow|yesterday|tonight|next|last|every|always|usually|never|morgen|gestern|nächste\w*|letzte\w*|jeden|immer"
                         r"|nie|mañana|ayer|próxim\w*|pasad\w*|cada|siempre|nunca|demain|hier|prochain\w*|dernier\w*|chaque|toujours"
                         r"|jamais|amanhã|ontem|semana que vem|todo|sempre|nunca)\b|明天|昨天|每天|总是|下周", re.I)


def _past(clause: str) -> bool:
    if past_tense(_ED_ADJECTIVE.sub(r"\1", clause)) or _PAST_DE.search(clause) or _PAST_FR.search(clause) or _PAST_ZH.search(clause):
        return True
    es = [m for m in _PAST_ES.finditer(clause)  # -aré/-eré/-iré: the future ("pediré pizza")
          if not _NOT_PAST_ES.fullmatch(m.group().split()[-1]) and not re.search(r"(?:aré|eré|iré)$", m.group())]
    pt = [m for m in _PAST_PT.finditer(clause) if not _NOT_PAST_PT.fullmatch(m.group())]
    return bool(es or pt)


def _names_someone(clause: str, sentence: str = "") -> bool:
    """A capitalised word after the first ("se llama Simón"): a name, which lasts. German
    capitalises every noun, so there only a name the clause calls someone counts."""
    rest = clause.split(None, 1)[1] if len(clause.split()) > 1 else ""
    if detect(sentence or clause) == "de":
        return re.search(r"\b(?:heißt|namens|genannt)\s+[A-ZÄÖÜ]", clause) is not None
    return re.search(r"\b[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+", rest) is not None


def today_only(clause: str, sentence: str = "") -> bool:
    """True when ``clause`` (of ``sentence``) holds only for today (see the module docstring)."""
    c = clause.strip()
    before = sentence[: sentence.find(c)] if sentence and c in sentence else ""
    inherited = _TODAY_FIRST.match((sentence or c).strip()) is not None or _TODAY_IN.search(before) is not None
    scoped = _TODAY_IN.search(c) is not None or (inherited and _OTHER_TIME.search(c) is None)
    if not scoped or re.search(r"\d|[一二三四五六七八九十两]+[点号岁个年天]", c) or _names_someone(c, sentence) or ANNUAL.search(c):
        return False
    return not _past(c) and shift_kind(c) is None


#: A day that comes back every year (six languages).
_ANNUAL_WORDS = (r"birthday|bday|anniversary|name\s*day|cumpleaños|cumple|aniversario|geburtstag|jahrestag|namenstag|anniversaire"
                 r"|aniversário")
ANNUAL = re.compile(r"\b(?:" + _ANNUAL_WORDS + r")\b|生日|纪念日", re.I)
_RELATIVE_DAY = {"today": 0, "tomorrow": 1, "yesterday": -1}
_WHOSE = r"(?:my|our)\s+(?:[\w-]+\s+){0,3}?"
# "it's my birthday today", "today is our anniversary", "my birthday is tomorrow", "tomorrow's my bday"
_ANNUAL_SAID = re.compile(
    r"\b(?:it['’]s\s+(?P<a>" + _WHOSE + r"(?:" + _ANNUAL_WORDS + r"))\s+(?P<d1>today|tomorrow|yesterday)"
    r"|(?P<d2>today|tomorrow|yesterday)(?:['’]s|\s+is|\s+was)\s+(?P<b>" + _WHOSE + r"(?:" + _ANNUAL_WORDS + r"))"
    r"|(?P<c>" + _WHOSE + r"(?:" + _ANNUAL_WORDS + r"))(?:['’]s|\s+is|\s+was)\s+(?P<d3>today|tomorrow|yesterday))\b", re.I)


def annual_dated(text: str, day: date) -> str:
    """``text`` with a birthday or an anniversary said relative to the day it is said on (``day``)
    named by its day of the year: "it's my birthday today!!" said on 2026-07-09 -> "my birthday is
    on 9 July!!" (kept, and dated, where a plain "today" holds only for today); an age reached today
    or on a day is a birthday too ("34 today" -> "my birthday is on 9 July, I turned 34"; "Tuva
    turns 6 on 21 feb" -> "Tuva turns 6, Tuva's birthday is on 21 feb")."""
    def named(m: re.Match[str]) -> str:
        d = day + timedelta(days=_RELATIVE_DAY[(m["d1"] or m["d2"] or m["d3"]).lower()])
        return f"{m['a'] or m['b'] or m['c']} is on {d.day} {d.strftime('%B')}"

    def aged(m: re.Match[str]) -> str:
        return f"my birthday is on {day.day} {day.strftime('%B')}, I turned {m['n']}"

    def turns(m: re.Match[str]) -> str:
        whose = "my" if m["who"] == "I" else f"{m['who']}'s"
        return f"{m['who']} {m['v']} {m['n']}, {whose} birthday is on "

    return _TURNS_ON.sub(turns, _AGE_TODAY.sub(aged, _ANNUAL_SAID.sub(named, text)))


# "Tuva turns 6 on 21 feb", "I turn 40 on the 3rd": an age reached on a day is a birthday on that day
_TURNS_ON = re.compile(r"(?<![Tt]he )\b(?P<who>I|(?-i:[A-Z])[\w'’-]+)\s+(?P<v>turns|turn|is\s+turning|['’]s\s+turning|will\s+turn)\s+(?P<n>\d{1,3})\s+on\s+")


# "34 today 🎂", "turned 40 today!": an age reached today is a birthday today (the sentence opens with it)
_AGE_TODAY = re.compile(r"(?:^|(?<=[.!?]\s))(?:(?:I\s+)?turned\s+)?(?P<n>\d{1,3})\s+today\b", re.I)
