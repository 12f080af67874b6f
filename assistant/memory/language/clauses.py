"""Cut a statement into clauses and resolve its pronouns, so that each clause stands on its own.

    [c.text for c in clauses("My partner Joost is a carpenter, and we have a cat called Pepper.")]
    # ["My partner Joost is a carpenter", "we have a cat called Pepper"]

Splitting follows clause structure, not phrase lists (English, Spanish, Portuguese, German,
French, Chinese):

1. ``;`` / ``；`` always end a clause;
2. a coordinator (and, but, so, while, y, e, pero, mas, und, aber, et, mais, 而且, 但是 ...) starts a
   new clause when a comma comes before it, or when a *subject* follows it (a personal pronoun or
   possessive: I, we, he, my, our, mi, nuestra, wir, unser, nous, notre, nós, 我 ...; or a
   capitalised name followed by a lower-case word: "and Ana loves jazz");
3. a comma followed directly by a subject starts a new clause (the comma splice "I'm 34, my wife
   is 35"), unless the clause before it is subordinate ("When I was young, I lived in Lyon");
4. a relative clause on a name ("my sister Ana, who lives in Porto, is a nurse"; who, que, qui,
   der/die) becomes its own clause with the name as subject ("Ana lives in Porto"), and is cut
   out of the clause it sits in ("my sister Ana is a nurse").

Each :class:`Clause` keeps ``text`` (``message[start:end]`` verbatim: the source span) and
``resolved``, the clause with its pronouns resolved (English):

- ``our``/``ours`` -> ``my``/``mine`` (our daughter is the person's daughter), ``we``/``us`` -> the
  marker ``WE`` (the person and their household: :func:`assistant.memory.language.rules.third_person`
  writes it as "User and <partner>" when the message names one partner, else "User's household");
- ``he/she/they`` (and him/his/her/them/their) -> the one person named in the same or the previous
  sentence, or the one of them a gendered word names (:mod:`.referents`: "a daughter called Tilly,
  she's 6, and a beagle named Biscuit"), or the third person the sentence opened with when the
  gender fits ("Dad took the train ... and he refused to let me pay", and a sentence opening with
  "He's ..." after it); otherwise left, and the validator rejects the fact;
- a clause that opens with a relation and a name ("My partner Joost is a carpenter", or the name
  first: "Kasper, my brother, repairs bicycles") is about the name: ``resolved`` = "Joost is a
  carpenter" (the relation itself is a profile fact of its own).

Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from assistant.memory.language.cues import CALLED_ONLY, EMOJI, FAMILY_NAME, OWN_NAME, OWN_SUBJECT, PAST, PAST_WORD, PERSON, REL_IS_NAME, TITLE_DOT
from assistant.memory.language.gloss import english_words
from assistant.memory.language.langid import detect
from assistant.memory.language.match import DE_MONTH
from assistant.memory.language.verbs import disagrees, verb_first, verbish
from assistant.memory.language.referents import (PRONOUN_FIRST, given_name, introduced, may_be, name_it, one_referent, own_subject, owner_of, pronoun_gender,
                                                 pronoun_target, resolve_foreign,
                                                 resolve_it, resolve_third, thing, third_topic)
from assistant.memory.language.mood import ASKING_START, COMMENT_START, CONDITION_AHEAD, CONDITION_START, HEARSAY_START, WORLD_SUBJECT

WE = "WE"  # marker for the person and their household (see the module docstring)


@dataclass(frozen=True)
class Clause:
    text: str  # verbatim: message[start:end]
    start: int
    end: int
    resolved: str  # pronouns resolved (see the module docstring)
    sentence: int  # index of the sentence it belongs to
    relation: tuple[str, str, str] | None = None  # ("My partner Joost", "partner", "Joost") it opens with


_SUBJ_EN = r"(?:nobody['’]s|nobody|no one|everyone|everybody|someone|somebody|nothing|everything|it|it['’]s|I|I['’](?:m|ve|d|ll)|we|we['’](?:re|ve|d|ll)|he|he['’]s|she|she['’]s|they|they['’](?:re|ve)|my|our|his|her|their)"
_SUBJ_INTL = (r"(?:yo|mi|mis|nuestr[oa]s?|él|ella|ellos|ellas|tengo|tenemos|vivimos|vivo|trabajo|trabaja|es|somos|estamos"
              r"|eu|meu|minha|meus|minhas|noss[oa]s?|ele|ela|eles|elas|temos|moramos|moro|sou|tenho"
              r"|le|les|lo|la|nos|ich|wir|er|sie|mein|meine|meinen|meinem|unser|unsere|unseren|unserem"
              r"|je|j['’]|nous|on|il|elle|ils|elles|mon|ma|mes|notre|nos"
              r"|[a-zç]{3,}ei|[a-zñ]{3,}[éí]"  # a first-person preterite: "trabalhei", "comprei"; "trabajé", "viví"
              r"|estoy|soy|voy|me|(?:no|não)\s+[a-zçñ]+(?:o|é|ei|oy|ou))")  # "y estoy ...", "y me siento ...", ", no sé ..."
SUBJECT = r"(?:(?i:" + _SUBJ_EN + r"|" + _SUBJ_INTL + r")(?=[\s,']|$)|[A-Z][\w'’-]+\s+(?!(?:and|or|y|e|und|et|ou|o)\b)[a-z])"
COORD = r"(?:and(?: then| also)?|but|so|while|whereas|plus|y|e|pero|mas|mais|aber|und|sondern|doch|et|donc|então|así que)"
_SPLIT = re.compile(
    r"\s*[;；]\s*"
    r"|\s*,\s*(?i:" + COORD + r")\s+"
    r"|\s+(?i:" + COORD + r")\s+(?=" + SUBJECT + r"|(?i:" + HEARSAY_START + r"|" + CONDITION_START + r"|" + ASKING_START + r")|" + WORLD_SUBJECT + r")"
    r"|\s*,\s*(?:(?i:also|plus|oh and|oh)\s+)?(?=" + SUBJECT + r"|" + COMMENT_START + r"|" + CONDITION_AHEAD + r")"  # ", also my wife ..."
    r"|\s*,\s*(?i:although|though|aunque|obwohl|bien que|même si|embora)\s+"
    # a lead-in's colon, an emoji between two clauses: "I think I can say it now: I'm seeing someone 😊 Her name's Camille",
    # "the Bechstein won't fit up the stairs 😭 sold it to a church" (a past verb, its subject left out)
    r"|\s*:\s+(?=(?:I|I['’](?:m|ve|d)|[Ww]e|[Mm]y|[Oo]ur)\b)|\s*" + EMOJI + r"+\s+(?=" + SUBJECT + r"|(?:been|was|were|had|so|lol|" + PAST_WORD + r")\b)"
    r"|\s+[—–-]\s+(?=(?i:i|i['’](?:m|ve|d))\s)"  # a dash before "I": "I'm a glassblower — I make condensers" ("— we ..." goes on)
    r"|\s+(?i:because|cause|coz|weil|porque|parce que|car|pois|因为)\s+(?=" + SUBJECT + r")"
    # "and honestly the side effects are rough": a new subject (a noun phrase with its verb) after "and"
    r"|(?:\s+(?i:and|but|so)\s+|\s*,\s*)(?=(?:[a-z]+ly\s+)?(?:the|this|that|these|those)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:is|are|was|were|has|have|had)\b)"
    # the same in the other languages after a comma: "..., das Hotel ist leider furchtbar", "..., la nuit a été courte";
    # and a demonstrative standing for the clause before: "..., das haben wir schon gebucht", "..., eso me encanta"
    r"|\s*,\s*(?=(?:der|die|das|el|la|los|las|le|les|o|a|os|as)\s+[\wÀ-ÿ-]+\s+(?:ist|sind|war|waren|hat|haben|es|está|están|son|fue"
    r"|est|sont|était|a|ont|é|estão|são|foi)\b|(?:das|dies|eso|esto|ça|cela|isso|isto)\s+[a-zäöüßà-ÿ])"
    r"|\s*，\s*(?:而且|并且|但是|可是|所以|不过)?\s*(?=我|他|她|我们|他们|她们)"
    r"|\s*，\s*(?:而且|并且|但是|可是|所以|不过)?\s*"
)
# a verb right after "and"/"und"/"e"/"y"/"et" with the subject left out: "I live in Cardiff and work in Newport"
# (an adverb may come first: "and honestly feel great", "and also teach yoga")
_SHARED = re.compile(r"(?:\s*,\s*(?:(?i:and|y|e|und|et|sowie)\s+)?|\s+(?i:and|y|e|und|et|sowie)\s+)"
                     r"(?=(?:(?:[a-z]+ly|also|still|now|just|often|always|never|sometimes|usually)\s+)?(?P<w>[a-zà-ÿäöüß][\w'’-]*)\s+\w)")


_SUBORDINATE = re.compile(r"^(?:if|when|whether|because|since|although|though|unless|while|once|before|after|as soon as"
                          r"|even if|in case|si|cuando|wenn|als|falls|ob|quand|lorsque|se|quando|como|como|如果|要是|当)\b", re.I)
_RELATIVE_WORDS = PERSON[3:-1] + r"|rabbit|bunny|hamster|parrot|horse|pony|tortoise|guinea pig|chickens?|hens?|goldfish|budgie|bird|ferret|gecko|lizard|snake|turtle"
_REL_NP = r"(?:(?i:my|our)\s+(?:[\w'’-]+\s+){0,2}?(?i:" + _RELATIVE_WORDS + r"))"
_RELATIVE = re.compile(r"(?P<name>\b[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?|\b" + _REL_NP + r"),?\s+(?P<who>who|que|qui|der|die)\s+"
                       r"(?P<rest>[^,;]+?)(?=\s*(?:,|;|$))")
# who or what a shared-subject clause goes on about: "I", "we", "Oscar", "my son Oscar", "my dad"
_HEAD_SUBJECT = re.compile(r"^(?:(?P<rel>" + _REL_NP + r")(?:\s+(?P<name>[A-Z][\w'’-]+))?|(?P<pn>[Ii](?=['’\s])|[Ww]e(?=['’\s])|[Hh]e\b|[Ss]he\b"
                           r"|[Tt]hey\b|[A-Z][\w'’-]+(?=\s+[a-z0-9])))")
_HEAD_SUBJECT_INTL = re.compile(r"^(?:(?i:o|a|os|as)\s+)?(?i:mi|mis|nuestr[oa]s?|mein|meine|unser|unsere|mon|ma|mes|notre|nos|meu|minha|meus|minhas|noss[oa]s?)"
                                r"\s+(?:[\wà-ÿäöüß][\w'’-]*\s+[A-ZÀ-Þ][\w'’-]+|(?:[a-zà-ÿäöüß][\w'’-]*\s+){1,2}[A-ZÀ-Þ][\w'’-]+|[\wà-ÿäöüß][\w'’-]*)"
                                r"(?=[\s,])")  # "Mein Bruder Felix", "mi mejor amiga Priya", "A minha mãe, ..."
_NAMES_ANY = re.compile(r"\b(?:called|named|name)\b")  # a clause naming something
# "Dr. Natarajan", "2.5h", "ab dem 1. Mai": one sentence
_SENT = re.compile(r"(?:[^.!?。！？\n]|" + TITLE_DOT + r"|(?<=\d)[.,](?=\d)|(?<=\b\d)\.(?=" + DE_MONTH + r")|(?<=\b\d\d)\.(?=" + DE_MONTH + r"))+[.!?。！？]*")
_TRIM = " \t\n,;:，；：—–-.!。！"  # a question keeps its "?"


_POSSESSED = re.compile(r"^(?i:my|our|mi|mis|nuestr[oa]s?|mein|meine|unser|unsere|mon|ma|mes|notre|nos|meu|minha|meus|minhas"
                        r"|noss[oa]s?)\s+[\w'’-]+$")


# a subordinate clause has its own subject: "..., seit sie letztes Jahr gestürzt ist"
_SUBORDINATE_INTL = re.compile(r"(?i:seit|weil|dass|wenn|als|ob|obwohl|während|bevor|nachdem|damit|porque|cuando|quando|parce|quand|depuis)\b")
_WHEN_INTL = re.compile(r"(?i:wenn|falls|cuando|quand|lorsque|quando)\b")
_AGE_ONLY = re.compile(r"^\d{1,3}\s+(?:years?|yrs?)\s+old\b(?!\s+(?:and|but)\s)", re.I)  # an age said with no one: "12 years old."
_REL_HEAD = re.compile(r"^" + _REL_NP + r"(?:\s+[A-Z][\w'’-]+)?$")  # "My best friend Amara and I met ...": one subject


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s] in _TRIM:
        s += 1
    while e > s and text[e - 1] in _TRIM:
        e -= 1
    return s, e


def _breaks(text: str, s: int, e: int) -> list[tuple[re.Match, bool]]:
    # "Jonas, our son, turned 4", "Forgot to mention Tattie, our ginger tabby cat.": one clause
    appositions = [(a.end("name"), a.end()) for a in _APPOS.finditer(text, s, e)]
    # "My eldest, Morven, loves volleyball": the comma after "my <relation>, <name>" ends the apposition
    appositions += [(a.end(), a.end() + 1) for a in _A_REL_NAME.finditer(text, s, e) if a.group()[:2].lower() in ("my", "ou")]
    found = [(m, False) for m in _SPLIT.finditer(text, s, e) if not any(a <= m.start() < b for a, b in appositions)]
    sentence = text[s:e]
    for m in _SHARED.finditer(text, s, e):
        if any(a <= m.start() < b for a, b in appositions):
            continue
        if verbish(m["w"], sentence, re.search(r"\w", m.group()) is not None) and not any(o.start() <= m.start() < o.end() for o, _ in found):
            found.append((m, True))
    return sorted(found, key=lambda t: t[0].start())


def _split(text: str, s: int, e: int) -> list[tuple[int, int, bool]]:
    """(start, end, subject left out) of the clauses of ``text[s:e]`` by rules 1-3 of the module
    docstring, and "and" + a verb (the subject of the clause before goes on)."""
    out: list[tuple[int, int, bool]] = []
    start, shared = s, False
    for m, sh in _breaks(text, s, e):
        head = text[start:m.start()]
        if not re.search(r"\w", head) or m.end() >= e:
            continue
        if m.group().strip() == "," and (_SUBORDINATE.match(head.strip()) or _WHEN_INTL.match(text[m.end():e].lstrip())):
            continue  # "When I was young, I lived in Lyon", "..., wenn wir weg sind" (a condition, no fact): one clause
        if len(head.split()) < 2 and not re.search(r"[\u4e00-\u9fff]", head):
            continue  # "Yes, I ..." / "Well, we ...": a filler, not a clause
        if "," not in m.group() and (_POSSESSED.match(head.strip()) or _REL_HEAD.match(head.strip())):
            continue  # "Mein Mann und ich haben ...", "My husband and I ...": one subject, not two clauses
        if m.start() < start:
            continue
        out.append((start, m.start(), shared))
        start, shared = m.end(), sh
    out.append((start, e, shared))
    return [(a, b, sh) for (a, b), sh in ((_trim(text, x, y), sh) for x, y, sh in out) if a < b]


# ----------------------------------------------------------------------------- resolution

_REL_NAME = re.compile(r"(?:^|(?<=[\s,;(]))(?P<np>(?i:my|our)\s+(?P<rel>(?:[\w'’-]+\s+){0,2}?(?i:" + _RELATIVE_WORDS + r"))(?:,)?\s+"
                       r"(?P<name>[A-Z][\w'’-]+))(?:,)?\s+(?=[a-z])")
# "Mi pareja Joost es ...", "Mein Mann Tariq ist ...", "Ma sœur Ana est ...", "Minha filha Leila tem ..."
_REL_NAME_INTL = re.compile(r"^(?P<np>(?i:mi|mis|nuestr[oa]s?|mein|meine|meinen|unser|unsere|mon|ma|mes|notre|nos|meu|minha"
                            r"|meus|minhas|noss[oa]s?)\s+(?P<rel>[\w-]+)(?:,)?\s+(?P<name>[A-Z][\w'’-]+))(?:,)?\s+(?=[a-zà-ÿ])")
# "a brother called Ravi", "un gato que se llama Chispa", "uma cachorra chamada Pipoca", 妹妹叫张悦
_NAMING = re.compile(r"(?:\b(?:called|named|llamad[oa]|se llama|chamad[oa]|se chama|namens|heißt|heisst|appel[ée]e?|s['’]appelle)\s+"
                     r"|叫)(?P<name>[A-Z][\w'’-]+|[\u4e00-\u9fff]{2,3}(?=[，。,.\s]|$))")
# "Kasper, my brother, repairs bicycles" (the name first, the relation after it); "a brother, Kasper"
_APPOS = re.compile(r"(?:^|(?<=[\s,;(]))(?P<np>(?P<name>[A-Z][\w'’-]+),\s+(?i:my|our)\s+(?P<rel>(?:[\w'’-]+\s+){0,2}?(?i:"
                    + _RELATIVE_WORDS + r"))(?:,\s+(?=[a-z])|(?=\s*(?:[.!?]\s*(?:$|[A-Z])|$))))")
# "a brother, Kasper", "twin boys, Leo and Harry", "two kids, Mia and Sam": the names after a relation
_A_REL_NAME = re.compile(r"\b(?i:an?|one|two|three|twin|my|our)\s+(?:[\w'’-]+\s+)?(?i:" + _RELATIVE_WORDS + r"|boys?|girls?),\s+"
                         r"(?P<name>[A-Z][\w'’-]+)(?:\s+(?:and|&)\s+(?P<name2>[A-Z][\w'’-]+))?\b")
# "Diego and I have been together ... He's a sound engineer": the one coordinated with the person is someone
_AND_I = re.compile(r"\b(?P<name>[A-Z][\w'’-]+)\s+(?:and|&)\s+I\b")
_OUR = re.compile(r"\b([Oo])ur(s?)\b")
_WE = re.compile(r"\b(?:[Ww]e|us)\b(?!['’])|\b[Ww]e(?=['’])")
_WE_CONTR = re.compile(r"\bWE['’](re|ve|d|ll)\b")


#: a name given to someone's relation: "Her husband is Fergal, he fixes boats" (the "he" is Fergal)
_THEIR_REL_IS_NAME = re.compile(r"\b(?i:his|her|their)\s+(?:[\w'’-]+\s+){0,2}?(?i:" + PERSON[3:-1] + r")\s+(?:is|was)\s+(?P<name>[A-Z][\w'’-]+)\b")


def _names_in(text: str, names: set[str]) -> list[str]:
    """People named in ``text``: known names and "my sister Ana" names, in order of appearance."""
    found = [(m.start("name"), re.sub(r"['’]s$", "", m["name"])) for m in OWN_NAME.finditer(text)]
    for rx in (re.compile(_REL_NAME_INTL.pattern[1:]), _NAMING, _REL_NAME, _APPOS, REL_IS_NAME, _AND_I, _THEIR_REL_IS_NAME):  # "my wife is Japanese": no name
        found += [(m.start("name"), m["name"]) for m in rx.finditer(text)
                  if rx not in (REL_IS_NAME, _AND_I, _THEIR_REL_IS_NAME) or m["name"].casefold() not in english_words()]
    for m in _A_REL_NAME.finditer(text):
        found += [(m.start(g), m[g]) for g in ("name", "name2") if m[g]]
    for n in names:
        for m in re.finditer(r"\b" + re.escape(n) + r"\b", text):
            found.append((m.start(), n))
    return list(dict.fromkeys(n for _, n in sorted(found)))


def people(text: str, known: Iterable[str] = ()) -> set[str]:
    """The person's own people and pets named in ``text`` ("my partner Joost", "mi pareja Joost"),
    plus the ``known`` names that occur in it."""
    return set(_names_in(text, set(known)))


def relation(text: str) -> tuple[str, str, str] | None:
    """The relation and name a clause opens with: ("My partner Joost", "partner", "Joost")."""
    rel = _REL_NAME.match(text) or _REL_NAME_INTL.match(text) or _APPOS.match(text)
    if rel is None:
        return None
    np = rel["np"] if not rel.re is _APPOS else text[rel.end("name"):rel.end("np")].strip(", ")
    return (np, rel["rel"], rel["name"])


def resolve(text: str, name: str | None, it: str | None = None) -> str:
    """One clause with its pronouns resolved (see the module docstring)."""
    t = resolve_it(text, it)
    t = _OUR.sub(lambda m: ("M" if m[1] == "O" else "m") + ("ine" if m[2] else "y"), t)
    t = _WE.sub(WE, t)
    t = _WE_CONTR.sub(lambda m: f"{WE} " + {"re": "are", "ve": "have", "d": "had", "ll": "will"}[m[1].lower()], t)
    rel = _REL_NAME.match(t) or _APPOS.match(t)  # English only: other languages keep their words ("User: Mein Bruder Paul ist Banker")
    if rel:
        t = rel["name"] + " " + t[rel.end():]
    return resolve_third(t, name)


def _referents(sentence: str, here: list[str]) -> list[str]:
    """Whom he/she/they may stand for: the names of the sentence, else its unnamed "my dad"s."""
    if here:
        return here
    return list(dict.fromkeys(m.group().lower() for m in re.finditer(r"\b" + _REL_NP, sentence)))


#: an English past verb after a capitalised first word: that word is its subject ("Jonas picked me up")
_PAST_AFTER = re.compile(r"\s+" + PAST_WORD + r"\b")


def _subject(resolved: str, known: set[str]) -> str | None:
    """The subject a clause hands on to a shared-subject clause after it ("I", "WE", "Oscar")."""
    if resolved.startswith(WE):
        return WE
    intl = _HEAD_SUBJECT_INTL.match(resolved)  # "Mi madre tiene 70 años | y vive sola": "Mi madre" goes on
    if intl:
        return intl.group().strip()
    if (named := CALLED_ONLY.match(resolved)) is not None:  # "Se llama Amparo | y es alérgica a los gatos": Amparo goes on
        return named["n"]
    m = _HEAD_SUBJECT.match(resolved)
    # a capitalised first word that is no known name ("Moro em ..."); "Tilly's 6 | and obsessed with": Tilly's
    if m is None or (m["pn"] and m["pn"][0].isupper() and m["pn"] not in ("I", "We", "He", "She", "They") and m["pn"] not in known
                     and not FAMILY_NAME.fullmatch(m["pn"])  # "Dad took the train ... and he refused": Dad
                     and not _PAST_AFTER.match(resolved, m.end())  # "Jonas picked me up after, | hes still on nights": Jonas
                     and not (m["pn"][:-2] in known and re.match(r"[\w-]+['’]s\s+\d", resolved))):
        return None
    return m["name"] or m["rel"] or m["pn"]


def clauses(text: str, known_names: Iterable[str] = ()) -> list[Clause]:
    """The clauses of ``text`` in order, each with its pronouns resolved."""
    names = set(known_names)
    out: list[Clause] = []
    previous: list[str] = []
    introduced_before: str | None = None  # what the clause before introduced, for "It's called ..." (referents.name_it)
    fresh = True  # the clause before introduced it
    dropped: str | None = None  # whom an es/pt clause without its subject was read as: the next one goes on with them
    opening: str | None = None  # the third person the sentence before opened with
    topic_name: str | None = None  # the name the message opens with, for an age said alone
    for i, sm in enumerate(_SENT.finditer(text)):
        s, e = _trim(text, sm.start(), sm.end())
        if s >= e:
            continue
        sentence = text[s:e]
        here = _names_in(sentence, names)
        names.update(here)
        candidates = _referents(sentence, here) or previous
        single = one_referent(candidates, sentence)  # "a daughter called Tilly, she's 6, and a beagle": Tilly
        lang = detect(sentence)
        last_subject: str | None = None
        subject_of = ""  # the clause last_subject is the subject of
        it: str | None = None
        first = True
        owner: str | None = None  # whose thing the clause before was about ("Mum's birthday is April 23rd, she turns 66": Mum)
        for a, b, shared in _split(text, s, e):
            body = text[a:b]
            # he/she stands for the third person the sentence opened with ("Dad took the train ... and he refused
            # to let me pay"), or, opening a sentence, the one the sentence before opened with ("He's bought himself")
            near = opening if first else (third_topic(last_subject, names, subject_of) or owner)
            topic = near if not first or PRONOUN_FIRST.match(body) else None
            foreign_topic = near if near in names else None  # "Nilton a dû partir ..., il était": a name, not "my sister"
            if topic and topic != single and (g := pronoun_gender(body)) and may_be(topic, g, text) \
                    and (single is None or not re.match(r"(?i:my|our)\s", topic)):  # "my best pal" is no better than her name
                single = topic
            first = False
            who = own_subject(body, names, text) or pronoun_target(single, here, previous, text, (s, a, b), body)
            rel = _RELATIVE.search(text, a, b)
            if rel and rel.start("name") == a and "," not in text[rel.end("name"):rel.start("who")]:
                rel = None  # "Tendría que llamar ...": a capitalised first word with "que" is no name with its relative clause
            if rel:
                ante = rel["name"]
                head = text[a:rel.end("name")]
                tail_s, tail_e = _trim(text, rel.end(), b)
                english = rel["who"] == "who"
                rest = text[rel.start("rest"):rel.end("rest")]
                rel_resolved = f"{ante} {rest}" if english else f"{head}, {rel['who']} {rest}"
                main = head + (" " + text[tail_s:tail_e] if tail_s < tail_e and re.match(r"[a-zà-ÿ]", text[tail_s]) else "")
                if main != head or len(head.split()) > len(ante.split()) + 1:
                    out.append(Clause(main, a, tail_e if main != head else rel.end("name"), resolve(main, who), i, relation(main)))
                out.append(Clause(rest, rel.start("rest"), rel.end("rest"), resolve(rel_resolved, who), i))
                last_subject = ante
                continue
            if last_subject and (shared or verb_first(body, sentence)) and not _SUBORDINATE_INTL.match(body) \
                    and not OWN_SUBJECT.match(body) and not disagrees(last_subject, body):  # ", also I'm allergic": its own
                goes_on = last_subject[:-2] if last_subject.endswith(("'s", "’s")) and body.split()[0] in PAST else last_subject
                resolved = resolve(f"{goes_on} {body}", who, it)  # "Zefir's 4 | and came from ...": Zefir came
            elif topic_name and _AGE_ONLY.match(body):  # "Pepper died this morning ... 12 years old.": Pepper's age
                resolved = f"{topic_name} is {body}"
            else:
                resolved = resolve(name_it(body, introduced_before), who, it)
            if lang != "en":  # "Oma Gerda ist ... gezogen. Sie ist jetzt 93": Oma Gerda
                resolved, dropped = resolve_foreign(resolved, text[:a], lang, dropped, foreign_topic)
            out.append(Clause(body, a, b, resolved, i, relation(body)))
            if given := given_name(resolved, introduced_before):  # "Her name's Camille, she plays cello": Camille
                single = given
                names.add(given)
            # what a clause introduced waits one clause that names nothing ("adopted a dog!!! rescue from the shelter in
            # Santo da Serra, she's called Bolacha": the dog)
            new = introduced(body)
            introduced_before = new or (introduced_before if fresh and not _NAMES_ANY.search(body) else None)
            fresh = new is not None
            if (subj := _subject(resolved, names)) is not None:
                if not out[:-1] and re.fullmatch(r"[A-Z][a-zà-ÿ'’-]+", subj) and subj not in ("We", "He", "She", "They", "It"):
                    topic_name = subj  # the one the message opens with
                last_subject, subject_of = subj, resolved
                if _PAST_AFTER.match(resolved, len(subj)) and re.fullmatch(r"[A-Z][a-zà-ÿ-]+", subj) and subj not in ("We", "He", "She", "They"):
                    names.add(subj)  # "Jonas picked me up after, | hes still on night shifts": Jonas
            owner = owner_of(resolved, names) if subj is None else None
            it = thing(resolved) or it
        previous = candidates
        opening = third_topic(last_subject, names, subject_of)
    return out


def clause_cuts(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """Spans of the clauses of the sentence ``text[s:e]`` that can each be cut out and leave the
    others reading well: a clause's span takes the connector before it (", and "), the first one
    the connector after it. One span (s, e) for a one-clause sentence."""
    parts = _split(text, s, e)
    if len(parts) < 2:
        return [(s, e)]
    out = [(s, parts[1][0])]
    out += [(parts[k - 1][1], parts[k][1]) for k in range(1, len(parts))]
    return out
