"""Which of the six capture languages a short text is in (issue 28): MiniLM's cosine between
texts in two languages is noise (0.4-0.5 for unrelated pairs, measured on the dev split), so a
memory answer across languages needs other evidence (:func:`assistant.memory.retrieval.answer.choose`).

``detect(text)``: "zh" when the text has a CJK ideograph; else the language whose function
words (:data:`~.vocabulary.FUNCTION_WORDS`) occur most often, ties and texts with none -> "en"
(extracted facts say "User ..." in English). Accented letters typical of one language break a
tie ("ã"/"õ" Portuguese, "ß"/"ä"/"ö"/"ü" German, "ñ"/"¿" Spanish, "ç"/"è"/"ê" French).
"""

from __future__ import annotations

import re

from assistant.memory.retrieval.vocabulary import FUNCTION_WORDS

_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_MARKS = {"pt": "ãõ", "de": "ßäöü", "es": "ñ¿¡", "fr": "çèêàù"}


def detect(text: str) -> str:
    """"en", "es", "de", "fr", "pt" or "zh" (see the module docstring)."""
    if _CJK.search(text):
        return "zh"
    ws = [w.casefold().replace("’", "'") for w in _WORD.findall(text)]
    low = text.casefold()
    best, top = "en", (0, 0)
    for lang, fw in FUNCTION_WORDS.items():
        score = (sum(w in fw for w in ws), sum(c in low for c in _MARKS.get(lang, "")))
        if score > top:
            best, top = lang, score
    return best

