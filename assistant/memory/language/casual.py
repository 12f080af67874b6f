"""English typed as people chat, read as written before the capture rules (issue 28): "im",
"dont", a lone "i", and names typed in lower case where a name stands (:func:`written`);
shouting in capitals (:func:`unshout`); a role held "as their X" (:func:`as_their`). Pure; no I/O.

    written("hi im mirela, i live in cluj-napoca with my husband sorin")
    # "hi I'm Mirela, I live in Cluj-Napoca with my husband Sorin"

A contraction without its apostrophe is restored only where it is no other word of a capture
language ("im" is German "in the": only in an English message; "wont", "ill", "id", "its" and
"were" are words and stay). A lower-case word becomes a name only in a name's place -- after "I'm"
(before a comma, "and" or an age: "im mirela, 38") or "my name is", after a relation ("my husband
sorin"), after "called"/"named", after a verb of living or moving and its preposition ("live in",
"moved to", "from") -- and only when no lexicon knows it
(:func:`~assistant.memory.language.gloss.english_words`): "im tired", "my husband works", "moved to a
flat" keep their words.
"""

from __future__ import annotations

import re

from rapidfuzz.distance import OSA

from assistant.memory.language.cues import EMOJI, INTERJECTION, PAST_WORD, PERSON, SHORT_REL
from assistant.memory.language.gloss import LANGS, english_words, lexicon
from assistant.memory.language.langid import detect
from assistant.memory.language.referents import resolve_third

_CONTRACTIONS = {
    "im": "I'm", "ive": "I've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't", "isnt": "isn't",
    "wasnt": "wasn't", "arent": "aren't", "werent": "weren't", "havent": "haven't", "hasnt": "hasn't", "hadnt": "hadn't",
    "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't", "hes": "he's", "shes": "she's",
    "thats": "that's", "theyre": "they're", "youre": "you're", "weve": "we've", "theyve": "they've",
}  # fmt: skip
_WORD = re.compile(r"\b(?:(?i:" + "|".join(_CONTRACTIONS) + r")|i)\b")  # "Hes a paramedic" opening an aside too
_NAME = r"(?P<n>[^\W\d_][^\W\d_'’]*(?:-[^\W\d_]+)*)"  # any alphabet's letters: "klaipėda", "gdańsk" (lower case: see capital)
#: A name's place, the lower-case name after it.
_PLACE_OF_NAME = re.compile(
    r"(?:\bI['’]m(?=\s+[^\W\d_'’-][\w'’-]*(?:\s*[,.!?;]|\s*$|\s+and\b|\s+\d))|\bmy\s+name\s+is|\b(?:called|named)|\b(?:my|our)\s+(?:[a-z]+\s+)?(?i:" + PERSON[3:-1] + r")"
    r"|\b(?:live|lives|living|lived|moved|moving|move|based|born|grew\s+up|from)\s+(?:in|to|from)?|\bfirst\s+(?:full\s+)?(?:day|week|shift)\s+at)\s+" + _NAME + r"\b"
)


#: a family word opening a clause in lower case, "my" left out ("mum lives in Taraz", "mums birthday is ...",
#: "dad says hi"): "my mum lives ...", "my mum's birthday ..." (a plural "mums are ..." is no possessive)
_BARE_FAMILY = re.compile(r"(?P<pre>(?:^|[.!?;:,(]\s*|\s[-–—]\s+|" + EMOJI + r"\ufe0f?\s+|\b(?:and|but|so|also)\s+))"
                          r"(?P<f>mum|mom|mam|dad|grandma|grandpa|granny|nana|(?:new\s+|old\s+)?(?:boss|manager|landlord|landlady|flatmate|roommate|therapist|physio))"
                          r"(?:(?P<s>['’]?s)(?=\s+(?!are\b|were\b|have\b)[a-z])|(?=\s+\w))")
#: a word inside a sentence in capitals (not "I", not after a sentence's end): a message that writes its names with
#: capitals ("mum rang from Bergen. Randi ..."), where a lower-case word after a relation is no name ("rang", "lol")
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<=\s)(?!I\b|I['’])[A-Z][a-z]+")
_RELATION_PLACE = re.compile(r"(?i:my|our)\b")  # the relation's place of a name ("my dad lol"), not a place's ("lives in oslo")
#: a past verb or an interjection: never a name ("my dad lol", "my sister rang")
_NOT_A_NAME = re.compile(PAST_WORD + "|" + INTERJECTION)
#: a relation typed short after a possessive: "my bf Tomas" -> "my boyfriend Tomas"
_SHORT_WORD = "|".join(SHORT_REL)  # "bf|gf"
_SHORT = re.compile(r"\b(?P<w>(?:my|our|her|his|ex|new)\s+)(?P<r>" + _SHORT_WORD + r")\b", re.I)
#: a relation and its name opening a clause, "my" left out ("sister Ingrid is a midwife", "bf Ewan works on the ferry")
_BARE_NAMED = re.compile(r"(?P<pre>(?:^|[.!?;:,(]\s*|\s[-–—]\s+|" + EMOJI + r"\ufe0f?\s+|\b(?:and|but|so|also)\s+))"
                         r"(?P<f>sister|brother|son|daughter|boyfriend|girlfriend|husband|wife|partner|aunt|uncle|cousin|niece"
                         r"|nephew|" + _SHORT_WORD + r")(?=\s+[A-Z][a-z])")
_OBJECT_NEXT = re.compile(r"\s+(?:you|me|him|her|us|them|it)\b", re.I)


def _mostly_english(text: str, lang: str) -> bool:
    """As many of the lower-case words are English ones as words of ``lang`` (the language guess):
    "hi im marisol, im a museum taxidermist" is English though its "im" reads as German; "Ich bin
    im Urlaub" is German."""
    ws = [w for w in re.findall(r"[^\W\d_]+", text) if w.islower() and w not in _CONTRACTIONS]  # "im" is both
    english, other = english_words(), lexicon(lang) if lang in LANGS else None
    en = sum(w in english for w in ws)
    return bool(ws) and other is not None and en >= 1 and en > sum(other.get((w,)) is not None for w in ws)


_TAG = re.compile(r"\s+(?i:btw|tbh|fyi|lol|haha+|lmao|imo|ngl)\b(?=\s*(?:[,.!?;:)]|$))")  # a chat tag ending a clause
_INTERJECTION = re.compile(r"(?:^|(?<=[.!?;]\s))(?i:" + INTERJECTION + r")\b[\s,!.]*(?=\w)")


def _contracted(m: re.Match[str]) -> str:
    word = m.group()
    full = _CONTRACTIONS.get(word.casefold(), "I")
    return full[:1].upper() + full[1:] if word[:1].isupper() else full


def written(text: str) -> str:
    """``text`` as written English when it is an English message (module docstring); as it is
    otherwise."""
    if (lang := detect(text)) != "en" and not _mostly_english(text, lang):
        return text
    # "ugh need a gift idea for my mom": no one called Ugh; "allergic to shellfish btw,": no "btw" kept
    text = _TAG.sub("", _INTERJECTION.sub("", _WORD.sub(_contracted, text)))
    text = _BARE_FAMILY.sub(lambda m: m["pre"] + "my " + m["f"] + ("'s" if m["s"] else ""), text)
    text = _BARE_NAMED.sub(lambda m: m["pre"] + "my " + SHORT_REL.get(m["f"].casefold(), m["f"]), text)
    text = _SHORT.sub(lambda m: m["w"] + SHORT_REL[m["r"].casefold()], text)  # "my bf Tomas": my boyfriend Tomas
    known = english_words()  # an English message: "my cat pfeffer" is named, though German knows "Pfeffer"

    names_capitalised = _CAPITALISED.search(text) is not None

    def capital(m: re.Match[str]) -> str:
        name = m["n"]
        if (not name.islower() or (names_capitalised and _RELATION_PLACE.match(m.group())) or name in known or name.split("-")[0] in known
                or _NOT_A_NAME.fullmatch(name) or _OBJECT_NEXT.match(m.string, m.end())):
            return m.group()  # "my niece set you up": a verb with its object, no name; "mum rang from Bergen": a verb
        return m.group()[: m.start("n") - m.start()] + "-".join(p[:1].upper() + p[1:] for p in name.split("-"))

    return _OPENING_NAME.sub(capital, _PLACE_OF_NAME.sub(capital, text))


#: a word no lexicon knows opening a sentence or a clause after "and"/"but", then a past verb: a name
#: ("jonas picked me up after", "caio came and charmed my mum"); "walked home" opens with a verb the lexicon knows
_OPENING_NAME = re.compile(r"(?:^|(?<=[.!?;]\s)|(?<=\b(?:and|but)\s))" + _NAME
                           + r"(?=\s+" + PAST_WORD + r"\b(?!\s+(?:by|to)\b))")


# words in capitals in a row, two or more: shouting, not names ("WE ADOPTED A GREYHOUND", "BIG NEWS!!!"; "MPK" alone stays)
_SHOUT = re.compile(r"\b(?:[A-Z]{2,}|[AI])(?:[ \t]+(?:[A-Z]{2,}|[AI])\b)+")


# a role held for an organisation the clause names: "working for the church there as their organ curator" (their: the church's)
_AS_THEIR = re.compile(r"(?<=\w)\s+as\s+(?:their|its)\s+(?=[a-z])")


def as_their(text: str) -> str:
    """``text`` with a role held "as their/its X" said as "as X" (:data:`_AS_THEIR`)."""
    return _AS_THEIR.sub(" as ", text)


def unshout(text: str) -> str:
    """``text`` with shouted runs in lower case (the pronoun "I" kept): "WE ADOPTED A GREYHOUND 😭 ...
    her name is Zefir" reads its greyhound, whom "her" is."""
    def lower(m: re.Match[str]) -> str:
        run = m.group()
        return re.sub(r"\b(?!I\b)\w+", lambda w: w.group().lower(), run) if re.search(r"[A-Z]{2}", run) else run
    return _SHOUT.sub(lower, text)


# an aside in brackets of two words or more, inside a sentence: "I inspect cable cars (yes really -- I'm the one on the rope) for Alpenseil."
_ASIDE = re.compile(r"\s*\((?P<a>[^()\n]*\w[^()\n]*\s[^()\n]*)\)")
_APPOSITION = re.compile(r"(?i:my|our|his|her|their|mi|mis|mon|ma|mes|mein|meine|meu|minha)\s+\w+(?:\s+\w+){0,2}(?P<p>[!?.]*)")
# an aside with a subject of its own is a clause of its own ("yes really -- I'm the one on the rope", "il est ingé son là-bas")
_OWN_SUBJECT = re.compile(r"\b(?:I|[Ii]['’](?:m|ve|ll|d)|he|she|hes|shes|we|they|it['’]s|je|j['’]|il|elle|ils|elles|nous|ich|er|sie|wir|yo|él|ella"
                          r"|nosotros|eu|ele|ela|nós|eles|elas)\b")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|\n|$")


#: a name in brackets right after a relation ("my mum (Gulnara) lives in Taraz"): the relation's name
_NAME_ASIDE = re.compile(r"\b(?P<r>(?i:" + PERSON[3:-1] + r"))\s*\(\s*(?P<n>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)\s*\)")
#: an aside opening with a bare relation ("Madina (best friend, pharmacist)"): the person's own
_BARE_RELATION = re.compile(r"(?:best\s+|old\s+|little\s+|big\s+|older\s+|younger\s+)?(?i:" + PERSON[3:-1] + r")\b(?!['’])")


def asides_after(text: str) -> str:
    """``text`` with each bracketed aside moved out of its sentence to just after it, as a sentence
    of its own when it has a subject of its own: the sentence reads whole ("I inspect cable cars for a
    living for a small outfit called Alpenseil.") and the aside is still read ("Yes really -- I'm the
    one on the rope."). An aside without a subject ("German originally (from Freiburg)") or of one
    word ("(Bruno)") stays where it is; "Bruno (my hawk) is 9" reads "Bruno, my hawk, is 9", "Madina (best
    friend, pharmacist) is coming" "Madina, my best friend, pharmacist, is coming", and a name in brackets
    after a relation is its name ("my mum (Gulnara) lives in Taraz": "my mum Gulnara lives in Taraz")."""
    text = _NAME_ASIDE.sub(lambda m: ("" if re.search(r"\b(?i:my|our|his|her|their|the|a|an)\s+(?:\w+\s+)?$", text[:m.start()]) else "my ")
                           + m["r"] + " " + m["n"], text)  # "my mum (Gulnara)", "Dad (Angus) is 72": "my mum Gulnara", "my Dad Angus"
    out, pos = [], 0
    while (m := _ASIDE.search(text, pos)) is not None:
        aside = m["a"].strip()
        if _BARE_RELATION.match(aside) and re.search(r"[A-Z][\w'’-]+$", text[pos:m.start()]):  # "Madina (best friend, ...)"
            out.append(text[pos:m.start()] + ", my " + aside + ",")
            pos = m.end()
            continue
        if (ap := _APPOSITION.fullmatch(aside)) is not None:  # "Bruno (my hawk) is 9": "Bruno, my hawk, is 9"
            out.append(text[pos:m.start()] + ", " + aside[:ap.start("p")] + ",")
            pos = m.end()
            continue
        if not _OWN_SUBJECT.search(aside):  # "German originally (from Freiburg)": a modifier, it stays
            out.append(text[pos:m.end()])
            pos = m.end()
            continue
        end = _SENTENCE_END.search(text, m.end())
        stop = end.end() if end.group() in ".!?。！？" else end.start()
        # whoever the sentence names before it, not a place ("Anders is flying in from Winnipeg (hes a paramedic)": Anders)
        before = re.findall(r"(?<![.!?]\s)(?<!\bin\s)(?<!\bat\s)(?<!\bto\s)(?<!\bon\s)(?<!\bof\s)(?<!\bnear\s)(?<!\bfrom\s)\b(?!I\b)[A-Z][\w'’-]+", text[pos:m.start()])
        if before and re.match(r"(?:she|he)(?=['’]?s\b|\s)", aside, re.I):  # "Luzia is 7 (she's obsessed ...)": Luzia
            aside = resolve_third(re.sub(r"^(s?he)s\b", r"\1's", aside, flags=re.I), before[-1])  # "hes a paramedic": "Anders is a paramedic"
        aside = aside[0].upper() + aside[1:] + ("" if aside[-1] in ".!?。！？" else ".")
        sentence = text[pos:m.start()] + text[m.end():stop]
        if not sentence.rstrip().endswith(tuple(".!?。！？")):
            sentence = sentence.rstrip() + "."  # "... and Pimenta (obviously, she's MY cat)": the sentence ends with the aside
        out.append(sentence + " " + aside)
        pos = stop
    return "".join(out) + text[pos:]


#: A question's first word as typed fast ("wats my job again", "wen is my interview"): the one
#: question word one edit away, when the typed word is no English word.
QUESTION_WORDS = ("what", "whats", "when", "whens", "where", "wheres", "who", "whos", "which", "how", "hows")
_FIRST = re.compile(r"^\s*([^\W\d_]+)")


def question_word(text: str) -> str:
    """``text`` with a fast-typed question word at its start spelled out ("wats my job" ->
    "what's my job"; "wat", "wen", "wher", "hw", "wich"; "whens" -> "when's"); an English word ("were") or one starting
    with another letter ("hat") stays."""
    m = _FIRST.match(text)
    if m is None:
        return text
    w = m.group(1).casefold()
    if w in QUESTION_WORDS:
        near = [w]  # "whens filips bday": "when's" (no apostrophe typed)
    elif w in english_words() or len(w) < 2:
        return text
    else:
        near = [q for q in QUESTION_WORDS if q[0] == w[0] and OSA.distance(w, q, score_cutoff=1) <= 1]
    if len(near) > 1:  # "wher": "where" (a letter short) before "when"
        near = [q for q in near if q.startswith(w)] or near
    if len(near) != 1:
        return text
    fixed = near[0].replace("s", "'s") if near[0].endswith("s") and near[0] != "whos" else near[0]
    fixed = "who's" if near[0] == "whos" else fixed
    fixed = fixed[0].upper() + fixed[1:] if m.group(1)[0].isupper() else fixed
    return text[: m.start(1)] + fixed + text[m.end(1):]
