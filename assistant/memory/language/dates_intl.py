"""Past relative dates in the four other alphabetic capture languages (es, fr, de, pt): "ayer",
"la semana pasada", "hier", "la semaine dernière", "gestern", "letzte Woche", "ontem", "na
semana passada", and the month or year before. :mod:`.dates` grounds them like the English ones
(the statement's start is the day, or the Monday of the week, the first of the month, the 1st of
January), but the person's words stay as written: no English date is put into their sentence.

French "hier" counts only in a French sentence (:func:`.langid.detect`): German "hier" is "here".
The other phrases are no word of another language (a short sentence can be misjudged, so
"Anteayer fuimos al cine." is not checked). Only the past: "mañana" and "Morgen" are also
"morning".

    past_day(date(2026, 12, 5), "day", 1)    -> date(2026, 12, 4)   ("ayer")
    past_day(date(2026, 12, 5), "week", 1)   -> date(2026, 11, 28)  (its week: 2026-11-23)
    past_day(date(2026, 12, 5), "month", 1)  -> date(2026, 11, 5)   (its month: November)
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from assistant.memory.language.langid import detect

#: Month names of the four other alphabetic capture languages (folded), read by capture's sentence
#: split, its dated-event check and retrieval's date and age checks.
MONTH_NAMES: dict[str, tuple[str, ...]] = {
    "de": ("januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"),
    "pt": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"),
}

# (language, phrase pattern, granularity, how many units back)
_PHRASES: tuple[tuple[str, str, str, int], ...] = (
    ("es", r"anteayer", "day", 2), ("es", r"ayer", "day", 1),
    ("es", r"(?:la\s+)?semana\s+pasada", "week", 1), ("es", r"(?:el\s+)?mes\s+pasado", "month", 1),
    ("es", r"(?:el\s+)?año\s+pasado", "year", 1),
    ("fr", r"avant-hier", "day", 2), ("fr", r"hier", "day", 1),
    ("fr", r"(?:la\s+)?semaine\s+(?:dernière|passée)", "week", 1), ("fr", r"(?:le\s+)?mois\s+dernier", "month", 1),
    ("fr", r"(?:l['’]\s*année\s+dernière|l['’]\s*an\s+dernier)", "year", 1),
    ("de", r"vorgestern", "day", 2), ("de", r"gestern", "day", 1),
    ("de", r"(?:letzte|vergangene)\s+Woche", "week", 1), ("de", r"(?:letzten|vergangenen)\s+Monat", "month", 1),
    ("de", r"(?:letztes|vergangenes)\s+Jahr", "year", 1),
    ("pt", r"anteontem", "day", 2), ("pt", r"ontem", "day", 1),
    ("pt", r"(?:na\s+)?semana\s+passada", "week", 1), ("pt", r"(?:no\s+)?mês\s+passado", "month", 1),
    ("pt", r"(?:no\s+)?ano\s+passado", "year", 1),
)  # fmt: skip


def past_day(observed: date, granularity: str, back: int) -> date:
    """A day inside the period ``back`` units before ``observed`` (:mod:`.dates` takes its period)."""
    if granularity == "day":
        return observed - timedelta(days=back)
    if granularity == "week":
        return observed - timedelta(days=7 * back)
    if granularity == "month":
        y, m = divmod(observed.year * 12 + observed.month - 1 - back, 12)
        return date(y, m + 1, 1)
    return date(observed.year - back, 1, 1)


def _sentence(text: str, start: int) -> str:
    left = max(text.rfind(c, 0, start) for c in ".!?\n")
    rights = [i for i in (text.find(c, start) for c in ".!?\n") if i >= 0]
    return text[left + 1 : min(rights) if rights else len(text)]


def _rule(lang: str, granularity: str, back: int):
    def rule(m: re.Match, observed: date, future: bool) -> tuple[date, str] | None:
        if m.group(0).lower() == "hier" and detect(_sentence(m.string, m.start())) != lang:
            return None
        return past_day(observed, granularity, back), granularity

    return rule


#: (pattern, rule) pairs; a rule returns (day, granularity) or None (another language's sentence).
RULES = [(r"(?<![\w-])" + p + r"(?![\w-])", _rule(lang, gran, back)) for lang, p, gran, back in _PHRASES]
