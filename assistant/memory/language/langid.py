"""Which of the six capture languages a short text is in: MiniLM's cosine between texts in two
languages (and among texts in one language other than English) is noise (0.4-0.5 for unrelated
pairs, measured on the answers dev split), so retrieval's memory answers across languages
(:func:`assistant.memory.retrieval.answer.choose`) and consolidation's plain-word changes
(:mod:`assistant.memory.consolidation.plans.shifts`) need other evidence there.

``detect(text)``: "zh" when the text has a CJK ideograph; else the language whose function
words (:data:`FUNCTION_WORDS`) occur most often, ties and texts with none -> "en" (extracted
facts say "User ..." in English). Accented letters typical of one language break a tie ("ã"/"õ"
Portuguese, "ß"/"ä"/"ö"/"ü" German, "ñ"/"¿" Spanish, "ç"/"è"/"ê" French). A tie left then goes to
the tied language whose lexicon (:mod:`.gloss`) knows more than half of the text's words, else to
English: "Ich wohne seit drei Jahren in Leipzig." ties "ich" with "in", and every word of it is
German. A text with no function word is the language whose lexicon knows more than half of its
words that are no English words ("Que carro temos?"), else English.
"""

from __future__ import annotations

import re

#: Function words of the six capture languages, for :func:`detect`
#: (a stopword profile: the language whose function words a text uses most). Single letters and
#: words shared by several languages ("a", "o", "de") are left out where they would tie.
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset("the an is are was were i i'm i've my me you your he she it we our they and or of to in on at for with "
                    "what who where when which how do does did have has not from by this that".split()),
    "es": frozenset("el la los las un una es son soy está estoy y del en con por para qué quién dónde cuándo cómo cuál mi mis tu "
                    "su nuestro nuestra tengo tiene me se no lo yo hago vivo".split()),
    "de": frozenset("der die das ein eine ist sind bin und oder von zu im mit für was wer wo wann wie ich mein meine meinen "
                    "mich mir du dein er sie es wir unser nicht auch noch heißt hat habe welche welcher".split()),
    "fr": frozenset("le la les une est sont suis et ou du des dans avec pour qui où quand comment je j' mon ma mes tu ton il "
                    "elle nous notre ne pas au aux ai quel quelle".split()),
    "pt": frozenset("o os as um uma é são sou estou e ou do da dos das em no na com por para quem onde quando como eu meu "
                    "minha meus nosso nossa não ao tenho tem qual".split()),
}  # fmt: skip
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_MARKS = {"pt": "ãõ", "de": "ßäöü", "es": "ñ¿¡", "fr": "çèêàù"}


def detect(text: str) -> str:
    """"en", "es", "de", "fr", "pt" or "zh" (see the module docstring)."""
    if _CJK.search(text):
        return "zh"
    ws = [w.casefold().replace("’", "'") for w in _WORD.findall(text)]
    low = text.casefold()
    scores = {lang: (sum(w in fw for w in ws), sum(c in low for c in _MARKS.get(lang, ""))) for lang, fw in FUNCTION_WORDS.items()}
    top = max(scores.values())
    tied = [lang for lang, sc in scores.items() if sc == top]
    from assistant.memory.language.gloss import english_words, known  # it reads this module: imported when used

    if top == (0, 0):  # no function word: the language whose lexicon knows most of its non-English words ("Que carro temos?")
        english = english_words()
        counts = {lang: sum(known(w, lang) and w not in english for w in ws) for lang in FUNCTION_WORDS if lang != "en"}
        best = max(counts, key=lambda lang: counts[lang])
        return best if ws and 2 * counts[best] > len(ws) else "en"
    if len(tied) == 1:
        return tied[0]

    counts = {lang: sum(known(w, lang) for w in ws) if lang != "en" else 0 for lang in tied}
    best = max(tied, key=lambda lang: counts[lang])  # ties: the first, English
    return best if counts[best] > counts.get("en", 0) + len(ws) // 2 else "en" if "en" in tied else best

