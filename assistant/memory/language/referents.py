"""What a pronoun stands for, read by :func:`assistant.memory.language.clauses.clauses`. Pure.

- "she"/"he" when a sentence names more than one: the one its words give that gender ("we have a
  daughter called Tilly, she's 6, and a beagle named Biscuit": Tilly, the one named next to
  "daughter"; :func:`one_referent`), or the name a clause just gave (:func:`given_name`);
- "it" within a sentence: the thing the clause before has (:func:`thing`, :func:`resolve_it`);
- what the clause before introduced, named by the next ("I've joined a choir! It's called Coro da
  Ribeira.", "I'm seeing someone. Her name's Camille.": :func:`introduced`, :func:`name_it`);
- a third-person pronoun opening a clause in another capture language: the one name before it
  ("Sie ist jetzt 93" after "Oma Gerda ist ... gezogen."; :func:`resolve_foreign`), never a
  guess between two; in Spanish and Portuguese, which drop the subject, a clause opening with a
  third-person verb too ("o Sr. Armando tem a chave. Mora no número 47" -> "Sr. Armando mora ...").

    one_referent(["Tilly", "Biscuit"], sentence)   # "Tilly"
"""

from __future__ import annotations

import re
from typing import Sequence

from assistant.memory.language.cues import EMOJI, FAMILY_NAME, PAST, SUBJECT_DROPPED, WEEKDAY

FEMALE = frozenset("""mother mum mom mummy mommy wife daughter sister girlfriend fiancee aunt niece grandmother grandma
    granny nan girl stepmother stepdaughter""".split())
MALE = frozenset("""father dad daddy husband son brother boyfriend fiance uncle nephew grandfather grandpa grandad boy
    stepfather stepson""".split())
#: Words at most between a gender word and the name it gives: "a daughter called Tilly", "my sister, Ana".
NEAR = 3

_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.I)
_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.I)
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def one_referent(candidates: Sequence[str], sentence: str) -> str | None:
    """The one candidate "she"/"he" stands for: the only candidate; else, when the sentence uses
    one gender's pronouns only, the only candidate named within :data:`NEAR` words of a word of
    that gender (or a relation phrase of it: "my dad"); else None."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    she, he = _SHE.search(sentence) is not None, _HE.search(sentence) is not None
    if she == he:
        return None
    gender = FEMALE if she else MALE
    toks = [t.casefold() for t in _TOKEN.findall(sentence)]
    fits = [c for c in candidates if _gendered(c, gender, toks)]
    return fits[0] if len(fits) == 1 else None


def pronoun_gender(clause: str) -> frozenset[str] | None:
    """:data:`FEMALE` for a clause with "she"/"her" only, :data:`MALE` for "he"/"his" only, else None."""
    she, he = _SHE.search(clause) is not None, _HE.search(clause) is not None
    return None if she == he else FEMALE if she else MALE


#: A relation of several people: no he/she/him/her stands for it.
_PLURAL = re.compile(r"\b(?i:parents|kids|children|twins|boys|girls|grandparents|in-laws|folks|friends|cousins|siblings|neighbours|neighbors)\b")


def may_be(candidate: str, gender: frozenset[str], text: str) -> bool:
    """``candidate`` may be the one a pronoun of ``gender`` stands for: it is not known as the
    other gender, by its own words ("Dad") or by the gendered word nearest its name in ``text``
    ("my big sister Leonor")."""
    if _PLURAL.search(candidate):  # "my parents" is never "him"
        return False
    toks = [t.casefold() for t in _TOKEN.findall(text)]
    other = MALE if gender is FEMALE else FEMALE
    return not _gendered(candidate, other, toks) or _gendered(candidate, gender, toks)


def _gendered(candidate: str, gender: frozenset[str], toks: list[str]) -> bool:
    """The candidate is a relation phrase of ``gender`` ("my dad"), or the gendered word nearest
    its name (within :data:`NEAR` words) is of ``gender`` ("my brother Tom and my sister Ana":
    Tom is a brother's name, Ana a sister's)."""
    words = [w.casefold() for w in _TOKEN.findall(candidate)]
    if any(w in gender for w in words):
        return True
    at = [i for i, t in enumerate(toks) if words and t == words[0]]
    near = sorted((abs(i - j), t) for i in at for j, t in enumerate(toks) if (t in FEMALE or t in MALE) and abs(i - j) <= NEAR + 1)
    return bool(near) and near[0][1] in gender


# -- "it" within a sentence
# what "it" stands for: the thing the clause before has, drives, owns ... ("a Kia Niro", "eczema")
_THING = re.compile(r"\b(?:have|has|had|got|drive|drives|own|owns|bought|use|uses|rent|rents)\s+(?:got\s+)?(?:an?\s+|the\s+|a new\s+)?"
                    r"(?P<x>[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*)*|(?:[a-z][\w-]+\s+)?[a-z][\w-]+(?=\s+(?:my|our|for|since|at|in|on|with|coming\s+up)\b|\s*[:,.!]?\s*$))")
# "the Oliwa job got pushed back", "the Bechstein won't fit up the stairs" (a thing the person named: after "the")
_DEFINITE_SUBJECT = re.compile(r"^(?P<x>(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?:[A-Z][\w-]*\s+|[a-z][\w-]+\s+){0,2}?[a-z][\w-]+|[Tt]he\s+[A-Z][\w-]+)"
                               r"\s+(?:got|gets|is|was|has|had|will|won['’]t|can['’]t|didn['’]t|doesn['’]t|isn['’]t|wasn['’]t|wouldn['’]t)\s+(?!it\b)")
_IT = re.compile(r"\b(?P<w>[Ii]t)(?P<c>['’]s)?\b(?!['’])")


def thing(resolved: str) -> str | None:
    """The thing a clause has ("WE drive a Kia Niro" -> "Kia Niro"; "I got a big job coming up" ->
    "my big job"; "Anna has a cat" -> "the cat"), else the definite thing it opens with ("the Oliwa
    job got pushed back" -> "the Oliwa job"), for an "it" in the next clause."""
    m = _THING.search(resolved)
    first = m["x"].split()[0] if m else ""
    if m is None or m["x"] in ("it", "them", "that", "this", "WE") or first in ("it", "them", "us", "been", "being", "to", "got", "gone", "done", "had") \
            or (first[0].islower() and first.endswith("ed")):  # "got us tickets", "got pushed back": no thing
        d = _DEFINITE_SUBJECT.match(resolved)
        return d["x"][0].lower() + d["x"][1:] if d else None
    if first[0].islower():
        return ("my " if re.match(r"(?:I|WE)\b", resolved) or SUBJECT_DROPPED.match(resolved) else "the ") + m["x"]
    return m["x"]


def resolve_it(text: str, it: str | None) -> str:
    if it is None:
        return text
    return _IT.sub(lambda m: it + (" is" if m["c"] else ""), text)


# -- naming what the clause before introduced ("I've joined a choir! It's called Coro da Ribeira.")
_INDEFINITE = re.compile(r"\b(?:an?|some)\s+(?P<np>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)(?:\s+from\s+(?:the|a)\s+[a-z]+)?\s*[.!?]*\s*$"
                         r"|\b(?P<one>someone|somebody)\b")  # "adopted a grey cat from the shelter": the cat
_ROMANCE = re.compile(r"\b(?:seeing|dating|going out with|in love with|falling for)\s+(?:someone|somebody)\b", re.I)
# an emoji may open it ("adopted a dog!!! 🐶 her name is bolacha"); after "name is" a word in lower case is a name too
_NAMING = re.compile(r"^(?:" + EMOJI + r"|\s)*(?:(?:(?i:it|she|he)(?:['’]s|\s+is)\s+(?:called|named)|(?i:her|his|its)\s+name(?:['’]s|\s+is))\s+(?=[A-Z])"
                     r"|(?i:her|his|its)\s+name(?:['’]s|\s+is)\s+(?!(?:the|a|an|my|our|your|so|very|really|not|just|like|too|also)\b)(?=[a-zà-ÿ]+\b(?!\s+(?:is|was|a|an|the)\b)))")
_ASIDE = re.compile(r"\s*" + EMOJI + r".*$")  # after an emoji: an aside ("a greyhound 😭💕 retired racer")
_WHEN_AFTER = re.compile(r"\s+(?:(?:last|this|next)\s+(?:week|weekend|month|year|night|" + WEEKDAY + r")"
                         r"|yesterday|today|tonight|this\s+morning|(?:a\s+)?(?:few\s+)?(?:days?|weeks?|months?)\s+ago)(?=\s*[.!?]*\s*$)", re.I)
_NAMED_IT = re.compile(r"\b(?:named|called)\s+(?:it|him|her)\b(?=\s+[A-Z])")  # "we called him Pim": the cat just adopted


def introduced(sentence: str) -> str | None:
    """What a sentence introduces for the next one to name: "partner" for "I'm seeing someone",
    the last indefinite noun phrase it ends with, an aside after an emoji aside ("I've joined a choir!"
    -> "choir"; "we adopted a greyhound 😭💕 retired racer" -> "greyhound"), else None."""
    if _ROMANCE.search(sentence):
        return "partner"
    m = _INDEFINITE.search(_WHEN_AFTER.sub("", _ASIDE.sub("", sentence)))  # "adopted a cat last week!!": the cat
    if m and m["one"] and (v := re.search(r"\b(?P<v>[a-z]+ed|met|saw|found)\s+(?:someone|somebody)\b", sentence, re.I)):
        return f"{v['v'].lower()} someone"  # "met someone at a fado night. his name is caio": "I met someone called Caio"
    return m["np"] if m and m["np"] else None


def name_it(clause: str, thing: str | None) -> str:
    """The clause with the thing the sentence before introduced named ("It's called Coro da Ribeira"
    -> "my choir is called Coro da Ribeira"; "Her name's Camille" after "I'm seeing someone" ->
    "my partner's name is Camille"; "She named it Bolacha" -> "She named the leopard gecko Bolacha")."""
    if thing is None:
        return clause
    if m := _NAMING.match(clause):
        rest = clause[m.end():]
        if thing.endswith(" someone"):
            return f"I {thing} called " + rest[:1].upper() + rest[1:]
        return (f"my {thing}'s name is " if thing == "partner" else f"my {thing} is called ") + rest[:1].upper() + rest[1:]
    return _NAMED_IT.sub(f"named the {thing}", clause, count=1)


def given_name(resolved: str, thing: str | None) -> str | None:
    """The name a clause gave what the clause before introduced ("my partner's name is Camille"),
    for a "she"/"he" after it in the sentence, else None."""
    m = re.match(r"(?:my [\w' -]+?(?:'s name is|is called)|I [a-z]+ someone called) (?P<n>[A-Z][\w'’-]+)", resolved) if thing else None
    return m["n"] if m else None


# -- "sie" / "elle" / "ela" / "ella" / "她" in the other capture languages
#: A third-person subject pronoun opening a clause, by language (the English ones are resolved above).
_FOREIGN_HE = {"de": r"(?:[Ss]ie|[Ee]r)", "fr": r"(?:[Ee]lle|[Ii]l)", "pt": r"(?:[Ee]la|[Ee]le)", "es": r"(?:[Ee]lla|[Éé]l)", "zh": r"(?:她|他)"}
_LATIN_NAME = re.compile(r"(?<![\w'’])(?:(?:Sr|Sra|Dr|Dra|Mr|Mrs|Ms|Mme|Mlle|Prof)\.?\s+)?[A-ZÀ-Ý][a-zà-ÿ'’-]+(?:\s+[A-ZÀ-Ý][a-zà-ÿ'’-]+)?")
# "Oma Gerda ist ...", "Meine beste Freundin Priya arbeitet ...", "Mein Bruder Paul wohnt ...": the name the sentence opens with
_DE_LEAD = re.compile(r"^\s*(?:(?:Mein|Meine|Meinen|Unser|Unsere)\s+(?:[a-zäöüß]+\s+)?[A-ZÄÖÜ][a-zäöüß]+\s+)?"
                      r"(?P<n>[A-ZÄÖÜ][a-zäöüß]+(?:\s+[A-ZÄÖÜ][a-zäöüß]+)?)\s+(?:ist|hat|war|wohnt|lebt|arbeitet|wird|kommt|geht|liebt|mag|spielt|studiert|macht)\b")
_NOT_NAMES = frozenset("""Ich Wir Mein Meine Unser Unsere Der Die Das Ein Eine Je Nous Mon Ma Mes Le La Les Un Une Eu Nós Meu Minha O A Os As
    Um Uma Yo Nosotros Mi Mis El Los Las Una Sie Er Elle Il Ela Ele Ella Él""".split())


#: a preposition of place right before a capitalised word: a place, never whom "il"/"ele" stands for ("aqui em Almaty")
_AT_PLACE = re.compile(r"\b(?:em|en|in|im|nach|aus|à|au|dans)\s+$", re.I)


def foreign_referent(before: str, lang: str) -> str | None:
    """Whom a third-person pronoun opening a clause in another capture language stands for: the
    one name the text before it gives ("Oma Gerda ist ... gezogen. | Sie ist jetzt 93" -> "Oma
    Gerda"; "l'anniversaire de Camille, c'est le 9 octobre, et | elle rêve d'un pupitre" ->
    "Camille"; "Camille的妈妈Hélène下个月要来 | 她对花生过敏" -> "Hélène", the nearest), else None."""
    if lang == "de":  # nouns are capitalised: the subject a sentence opens with
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", before) if s.strip()]
        m = _DE_LEAD.match(re.sub(r"^[^:]{0,30}:\s*", "", sentences[-1])) if sentences else None
        if m and (g := re.fullmatch(r"([A-ZÄÖÜ][a-zäöüß]+)s\s+[A-ZÄÖÜ][a-zäöüß]+", m["n"])):
            return g[1]  # "Filips Geburtstag war toll, | er ist jetzt 10": the one whose birthday it was
        return m["n"] if m and m["n"].split()[0] not in _NOT_NAMES else None
    if lang == "zh":  # no spaces: a Latin name stands between characters
        names = re.findall(r"[A-ZÀ-Ý][a-zà-ÿ'’-]+", before)
        return names[-1] if names else None
    # a capitalised word inside a sentence (one opening it is any word: "Coucou !", "Petit truc ...")
    found = [m for m in _LATIN_NAME.finditer(before) if m.group().split()[0] not in _NOT_NAMES
             and not re.search(r"(?:^|[.!?:]\s*)$", before[:m.start()]) and not _AT_PLACE.search(before[:m.start()])]
    names = [m.group() for m in found]
    if len(set(names)) == 1:
        return names[-1]
    # es/pt: of several, the one a third-person verb follows ("A minha irmã Clara é parteira em Lisboa.": Clara; not
    # "Rafael" in "Beatriz, a mulher do Rafael, vive ...": a verb after a comma may be another's)
    subjects = {m.group() for m in found if lang in _PRO_DROP and _third_person_verb(before[m.end():].lstrip(" "), lang)}
    return subjects.pop() if len(subjects) == 1 else None


def resolve_foreign(clause: str, before: str, lang: str, went_on: str | None = None, topic: str | None = None) -> tuple[str, str | None]:
    """The clause with its opening third-person pronoun read as :func:`foreign_referent`; in a
    language that drops the subject (es, pt), a clause opening with a third-person singular verb
    (:func:`_third_person_verb`) gets that name as its subject ("Vive en el tercero" after "Mi
    vecina Carmen tiene un huerto." -> "Carmen vive en el tercero"; "Vivo en Vigo" is the person's),
    or ``went_on``, whom such a clause before it was read as ("Mora no número 47, é reformado da
    Marinha | e adora o Pilot": still Sr. Armando). Returns (the clause, whom a dropped subject
    was read as, else ``went_on``). ``topic``: the name the sentence (or, opening one, the sentence
    before) opened with, for a pronoun no single name before it gives ("Nilton a dû partir ..., il
    était encore en t-shirt": Nilton)."""
    pron = _FOREIGN_HE.get(lang)
    if pron is not None and re.match(pron + (r"(?=\S)" if lang == "zh" else r"\b"), clause):
        who = foreign_referent(before, lang) or topic
        return (re.sub(r"^" + pron, who, clause, count=1) if who else clause), went_on
    if lang in _PRO_DROP and _third_person_verb(clause, lang) and (who := went_on or foreign_referent(before, lang)):
        return f"{who} {clause[0].lower()}{clause[1:]}", who
    return clause, went_on


_PRO_DROP = frozenset({"es", "pt"})
#: English third-person singular verb forms ("lives", "is", "has"): the lexicon's reading of the verb.
_THIRD_EN = re.compile(r"(?:is|has|was|does|goes|[a-z]+[^sui\W]s|[a-z]+ies)")


def _third_person_verb(clause: str, lang: str) -> bool:
    """The clause opens with a verb the lexicon reads as third-person singular ("mora" -> "lives",
    "é" -> "is", "tiene" -> "has"); a word ending in -s is no such form in Spanish or Portuguese
    (a plural noun: "kilómetros")."""
    from assistant.memory.language.gloss import lexicon  # the lexicon is read once, when a clause needs it

    m = re.match(r"[^\W\d_]+", clause)
    if m is None or m.group().casefold().endswith("s"):
        return False
    en = lexicon(lang).word(m.group().casefold(), lang)
    return en is not None and _THIRD_EN.fullmatch(en) is not None


#: after "he's": the participles of "has" that cues.PAST does not list
_HAS_PARTICIPLES = frozenset("got been had done gone left seen made taken put bought brought".split())
_HE_ANY = re.compile(r"\b(?P<w>[Hh]e|[Ss]he|[Hh]im|[Hh]is|[Hh]er)\b(?P<c>['’](?:s|re|ve|ll|d)\b)?")  # "they" is never one name
_THEY_VERB = {"are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't", "don’t": "doesn’t"}


def resolve_third(text: str, name: str | None) -> str:
    """he/she/they (and their other forms) -> ``name``; unchanged when there is no single name."""
    if name is None:
        return text

    def sub(m: re.Match) -> str:
        w, c = m["w"].lower(), (m["c"] or "").lower().replace("’", "'")
        after = text[m.end():m.end() + 20]
        if w in ("his", "their") or (w == "her" and re.match(r"\s+[a-z]", after) and not re.match(r"\s+(?:to|at|in|on|for|with|and|a|an|the|some|something|anything|nothing|one|back|up|off|out|home)\b", after)):
            return f"{name}'s"
        if c in ("'re",):
            return f"{name} is"
        if c in ("'ve",):
            return f"{name} has"
        if c == "'ll":
            return f"{name} will"
        nxt = re.match(r"\s+(?:(?:already|just|never|finally|recently|also)\s+)?(?P<v>\d|[a-z]+)", text[m.end():m.end() + 40])
        if c == "'s" and nxt and not (nxt["v"][0].isdigit() or nxt["v"] in PAST or nxt["v"].endswith(("ed", "en")) or nxt["v"] in _HAS_PARTICIPLES):
            return f"{name} is"  # "hes brazilian and plays cello": Caio is, so "plays" goes on with Caio
        if c in ("'s", "'d"):
            return f"{name}{m['c']}"
        return name

    out = _HE_ANY.sub(sub, text)
    # "Ana have" -> "Ana has": a verb right after a resolved "they"
    return re.sub(r"\b(" + re.escape(name) + r")\s+(are|were|have|do|don['’]t)\b", lambda m: f"{m[1]} {_THEY_VERB[m[2]]}", out) \
        if re.search(r"\b[Tt]hey\b", text) else out


PRONOUN_FIRST = re.compile(r"^(?:he|she)\b", re.I)


def third_topic(subject: str | None, names: set[str], clause: str) -> str | None:
    """``subject`` (of ``clause``) when it is a third person a pronoun may stand for: a known name,
    "Dad", "my sister"; not one of two ("My sister Ana and my cousin Mia came over. She ...")."""
    if not subject or subject in ("WE", "I", "We", "He", "She", "They") or subject.lower() in ("he", "she", "they", "i", "we"):
        return None
    if re.search(re.escape(subject) + r"\s*(?:,|&|\b(?:and|y|e|und|et)\b)", clause, re.I):
        return None
    return subject if subject in names or FAMILY_NAME.fullmatch(subject) or re.match(r"(?i:my|our)\s", subject) else None


# -- whom a clause's pronouns stand for, given the sentence's candidates (:func:`~.clauses.clauses`)
_PRONOUN = re.compile(r"\b(?i:he|she|him|her|his)\b")
_OWNER = re.compile(r"(?P<n>[A-Z][\w-]+)['’]s\s+[a-z]")  # "Mum's birthday", "Lena's flat"


def pronoun_target(single: str | None, here: set[str], previous: list[str], text: str, span: tuple[int, int, int], body: str) -> str | None:
    """Whom the pronouns of the clause ``text[a:b]`` stand for: ``single``, unless it is named only
    after the clause (then the one the sentence before had: "Jonas and I are splitting up. No drama,
    he just doesn't want to leave, so I'm taking Pimenta": Jonas) or is known as the other gender
    ("Pimenta, she's MY cat"); None when no one fits. ``span``: (sentence start, clause start, clause end)."""
    s, a, b = span
    pron = _PRONOUN.search(body)
    if single in here and text.find(single, s) >= (a + pron.start() if pron else b):
        single = one_referent(previous, text[s:b]) if previous else None
    g = pronoun_gender(body)
    return None if single and g and not may_be(single, g, text) else single


def owner_of(resolved: str, known: set[str]) -> str | None:
    """The known name or family name owning a clause's subject ("Mum's birthday is ...": Mum), a
    later he/she's topic; None otherwise."""
    m = _OWNER.match(resolved)
    return m["n"] if m and (m["n"] in known or FAMILY_NAME.fullmatch(m["n"])) else None


#: a clause opening with a named subject ("my older sister Aizhan lives ...", "Nurlan is ..."), then his/her after its verb
_NAMED_HEAD = re.compile(r"(?:(?i:my|our)\s+(?:[\w'’-]+\s+){0,2}?)?(?P<n>[A-Z][\w'’-]+)\s+(?!and\b|&)[a-z][\w'’-]*\b")
_POSSESSIVE_PRON = re.compile(r"\b(?:his|her)\b")


def own_subject(body: str, names: set[str], text: str) -> str | None:
    """The named subject of the clause a possessive his/her after its verb belongs to ("my older
    sister Aizhan lives in Karaganda with her two boys": Aizhan's, whoever the sentence opened with)."""
    m = _NAMED_HEAD.match(body)
    p = _POSSESSIVE_PRON.search(body, m.end()) if m else None
    if m is None or p is None or m["n"] not in names or set(re.findall(r"\b[A-Z][\w'’-]+", body[m.end():p.start()])) & names:
        return None  # "Jonas sent a video of my nephew Emil taking his first steps": Emil's, the nearer
    g = pronoun_gender(body)
    return m["n"] if g is None or may_be(m["n"], g, text) else None
