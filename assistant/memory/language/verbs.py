"""Which word is a verb, for cutting clauses (:mod:`.clauses`): English verbs a shared-subject clause
opens with, es/pt/fr finite forms by their ending or their English in the lexicon, German lower-case
words; and whether a subject can go on into a clause by agreement. Pure; no I/O.
"""

from __future__ import annotations

import re

from assistant.memory.language.cues import PAST
from assistant.memory.language.langid import detect

VERBS = frozenset(
    """live work study teach drive own have love like hate play run walk take use need want go visit cook make read write
    train speak sing sell buy volunteer coach help look care spend plan hope try swim cycle ride knit paint do enjoy
    prefer manage run lead build fix grow keep raise breed collect bake garden hike climb dance commute earn pay save
    attend belong suffer struggle miss get feel""".split()
)  # fmt: skip
_DE_FUNCTION = frozenset("der die das den dem des ein eine einen einem einer im in am an auf mit zu zum zur von bei für"
                         " nach aus über unter vor so sehr auch noch nicht".split())  # fmt: skip


def verbish(word: str, sentence: str, joined: bool = True) -> bool:
    """Whether ``word`` (after "and", or after a comma when not ``joined``) is a verb whose
    subject is left out (after "and" or a comma, :data:`~.clauses._SHARED`)."""
    w = word.lower()
    if re.search(r"\b(?:ich|und|der|die|das|ist|wir)\b", sentence, re.I) and re.search(r"\b(?:ich|wir|mein\w*|unser\w*)\b", sentence, re.I):
        return w not in _DE_FUNCTION  # German: nouns are capitalised, so a lower-case word there is a verb
    if w in VERBS or w[:-1] in VERBS or w[:-2] in VERBS or w in PAST or (w.endswith("ed") and len(w) > 4):
        return True
    if len(w) > 3 and w.endswith("o") and w not in ("como", "pero", "todo", "tanto", "mucho", "muito"):
        return True  # es/pt: 1st person
    # es/pt/fr: a third person present or past ("y usa un inhalador", "e começa na escolinha", "et veut faire
    # médecine", "y viene a casa"): a verb ending, then a word a verb takes (an article, a preposition, an
    # infinitive); nouns there take an article first, and a determiner or a pronoun is no verb
    lang = detect(sentence)
    if lang not in ("es", "pt", "fr"):
        return False
    # a short verb after a bare comma is the verb of an apposition's head ("mon mari, Thomas, est boulanger")
    return (joined and glossed_verb(w, lang)) or (len(w) > 2 and re.search(r"(?:a|e|ó|ou|eu|iu|it|ut|ait)$", w) is not None
                                      and w not in _ROMANCE_FUNCTION)


def verb_first(body: str, sentence: str) -> bool:
    """An es/pt/fr clause that opens with a finite verb by the lexicon ("es profesora jubilada"
    after "mi madre Rosa vive cerca,"): its subject is the one of the clause before."""
    first = body.split(maxsplit=1)[0] if body.split() else ""
    lang = detect(sentence)
    return first.islower() and lang in ("es", "pt", "fr") and glossed_verb(first.strip(",;"), lang)


def disagrees(subject: str, body: str) -> bool:
    """A third-person singular subject cannot go on into a clause opening with a plain present verb
    ("my mum's birthday is March 14, | need to post something": the person needs to, not Mum)."""
    w = body.split(maxsplit=1)[0] if body.split() else ""
    return subject not in ("I", "WE") and " and " not in subject and w in VERBS


_EN_FINITE = frozenset("is was has goes are were does".split())


def glossed_verb(word: str, lang: str) -> bool:
    """``word`` of ``lang`` is a verb by its English in the lexicon (:mod:`.gloss`): a finite form
    ("va" -> "goes", "tem" -> "has", "a" -> "has" in French, "es" -> "is"), so the short and
    irregular verbs the ending rule cannot see split too ("Lucía tiene siete años | y va a la escuela")."""
    from assistant.memory.language.gloss import lexicon  # deferred: read the lexicon only when a sentence needs it

    en = lexicon(lang).word(word, lang)
    return bool(en) and (en in _EN_FINITE or en in PAST or (en.endswith("s") and (en[:-1] in VERBS or en[:-2] in VERBS)))


_ROMANCE_FUNCTION = frozenset("""una une este esta ese esa aquella cette cet entre sobre sempre siempre toute toda tudo nada rien
    muy mucha muita poca pouca otra outra autre cada chaque quelque alguna alguma ninguna nenhuma nuestra nossa notre votre
    vuestra leur dela dele mientras enquanto pendant ainda encore aussi toujours jamais nunca tambe aquí aqui ahora agora ya
    que qui quoi cuya mesma misma même elle ella ela nosotra cette tarde noche noite semana fecha date hora heure madre mère
    padre père mae mãe casa escuela escola école empresa entreprise oficina offre""".split())  # fmt: skip
