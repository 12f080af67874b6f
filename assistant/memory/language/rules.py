"""Deterministic extraction for the common cases, so that even a tiny model captures them.

``extract(text, observed_at)`` splits a user message into sentences, grounds each one's
relative dates against ``observed_at`` (:func:`assistant.memory.language.dates.ground`), and returns
:class:`Candidate` facts written in the third person ("User lives in Shanghai."), keeping the
person's own words for names and things ("Ferrari 488 GTB", "assistant manager").

Profile slots (``Candidate.slot``; kind ``profile``):

    name            "User's name is Alice."               my name is / call me / Hi, I'm
    home_city       "User lives in Berlin."               I live in / I moved to
    hometown        "User is from Lyon." / "User grew up in Lyon." / "User was born in Lyon."
    employer        "User works at Tesco."                I work at|for / got a job at
    job_title       "User works as a nurse." / "User is a nurse at X." / "User was promoted to assistant manager."
    partner         "User's wife is Anna." / "User is married to Anna."
    family.<rel>    "User's sister is Anna."              rel as said: sister, mom, son ...
    pet             "User has a dog named Rex."
    birthday        "User's birthday is June 5."          never grounded to a year
    allergy         "User is allergic to peanuts."
    diet            "User is vegetarian." / "User doesn't eat pork."
    favourite.<x>   "User's favourite restaurant is Olive Garden."  x = the thing, spaces as "_"

Facts (kind ``fact``, no slot): any first-person statement with something worth keeping -- a date,
a name, a number, or a life-event/preference verb -- converted to the third person with its
transition and reason kept ("User switched from Vim to Emacs because of org-mode."). Questions,
requests to the assistant and hedges ("I think", "I wonder") are not facts.

Pure apart from the lazy dateparser import inside ``ground``; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Iterable

from assistant.memory.language.clauses import WE, clauses
from assistant.memory.language.clauses import people as named_people
from assistant.memory.language.dates_intl import MONTH_NAMES
from assistant.memory.language.match import NOT_ORDINAL_DATE
from assistant.memory.language.casual import as_their, asides_after, unshout, written
from assistant.memory.language.cues import EMOJI, NOT_AFTER_TITLE, PERSON, SCHEDULED, STANDING, has_first_person, imperative, own_names, strip_fillers
from assistant.memory.language.gloss import LANGS
from assistant.memory.language.langid import detect
from assistant.memory.language.dates import ground
from assistant.memory.language.today import annual_dated
from assistant.memory.language.attitude import dependent
from assistant.memory.language.mood import frame_only, not_asserted
from assistant.memory.language.shifts import shift_kind
from assistant.memory.language.phrasing import _APOS, conjugate, finish, third_person  # noqa: F401 - re-exported
from assistant.memory.language.slots import HAS, PN, SLOT_RULES, relation_slot
from assistant.memory.records import Kind
from assistant.memory.language.validate import STOPWORDS, TEMPLATE_WORDS, proper_nouns, words

EXTRACTOR = "rules"
EXTRACTOR_VERSION = "1"
SLOTS = ("name", "home_city", "hometown", "employer", "job_title", "partner", "family.<relation>", "pet",
         "birthday", "allergy", "diet", "favourite.<thing>")  # fmt: skip
MAX_SENTENCE_CHARS = 400


@dataclass(frozen=True)
class Candidate:
    """An extracted fact, not yet validated or written."""

    text: str
    kind: Kind = Kind.FACT
    slot: str | None = None
    valid_at: date | None = None
    confidence: float = 0.8
    extractor: str = EXTRACTOR
    entities: tuple[str, ...] = ()
    about: int | None = None  # LLM only: index of the existing memory shown to it (0..n-1)
    sources: tuple[str, ...] = field(default=(), repr=False)  # texts it must be supported by


# ----------------------------------------------------------------------------- sentences

_LEAD = re.compile(
    r"^(?:(?:oh|well|so|btw|by the way|also|and|but|anyway|hey|hi|hello|actually|fun fact|just so you know"
    r"|fyi|ok|okay|yes|yeah|guess what|honestly)\b[\s,:;!.-]*|no\b[,:;!.-]+\s*)+",  # "No, ..." -- never "No como carne"
    re.I,
)
_SPLIT = re.compile(r"(?<=[.!?。！？])" + NOT_AFTER_TITLE + NOT_ORDINAL_DATE + r"\s+|\n+")  # "Dr. Natarajan" is one sentence


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def _ground_sentence(s: str, observed_at: datetime) -> tuple[str, date | None]:
    """Ground relative dates; birthdays/anniversaries are recurring: their dates stay as said. A date
    said by a name ("on Saturday", "next Thursday", "by Christmas", "on October 14") or an ordinal
    ("on the 30th") keeps the person's words, with the date after it: "on Saturday (2024-03-16)"."""
    if re.search(r"birthday|anniversary", s, re.I):
        return s, None
    g = ground(s, observed_at)
    parts, pos = [], 0
    for sp in g.spans:
        parts.append(s[pos:sp.start])
        named = re.search(r"[A-Z]", sp.original) or re.search(r"\d(?:st|nd|rd|th)\b", sp.original)  # "on October 14 (2025-10-14)"
        bare = re.sub(r"^(?i:on|in|the week of|since|until|till|by|before|after|from|during)\s+", "", sp.replacement)
        parts.append(f"{sp.original} ({bare})" if named and sp.replacement != sp.original else sp.replacement)
        pos = sp.end
    parts.append(s[pos:])
    return "".join(parts), g.valid_at


# ----------------------------------------------------------------------------- generic facts

_FIRST = re.compile(r"^(?:[Ii]\b|[Ii]" + _APOS + r"(?:m|ve|ll|d)\b|[Mm]y\b)")
_NOT_A_FACT = re.compile(
    r"\b(?:you|your|yours|u)\b|^(?:[Ii]\s+(?:think|guess|wonder|suppose|hope|wish|feel like|need help|want to know|"
    r"was wondering|don['’]t know|am not sure)|[Ii]['’]m not sure|[Ii]['’]d like to know|[Ii]['’]m curious)\b|"
    r"\b(?:please|can you|could you|would you|tell me|help me|show me|explain)\b",
    re.I,
)
_SIGNAL_VERBS = re.compile(
    r"\b(?:love[sd]?|like[sd]?|prefer(?:s|red)?|hate[sd]?|enjoy(?:s|ed)?|dislike[sd]?|adore[sd]?|can['’]t stand|"
    r"start(?:ed|ing)?|quit|bought|sold|adopted|married|divorced|graduated|moved|moving|switch(?:ed|ing)?|"
    r"visit(?:ed|ing)?|went|travel(?:l?ed|l?ing)|joined|left|learn(?:ed|t|ing)|study(?:ing)?|studied|play(?:s|ed|ing)?|"
    r"drive[s]?|drove|own(?:s|ed)?|lost|broke|finished|retired|hired|fired|born|pregnant|engaged|allergic|"
    r"vegetarian|vegan|live[sd]?|living|work(?:s|ed|ing)?|promoted|got a|got my|have a|have an|have two|have three|"
    r"training|running|cooking|reading|writing|building)\b",
    re.I,
)


_NAMES_SUBJECT = r"(?:{names})(?:['’]s)?\s+[a-z]"
_SUBJECT_DROPPED = re.compile(r"^(?:(?:just|finally|recently|also|officially)\s+)?(?:got|moved|started|finished|bought|sold|adopted"
                              r"|quit|joined|graduated|passed|broke|lost|won|went|came back|arrived|booked|signed|retired"
                              r"|spent|visited|flew|drove|ran|(?P<ing>moving|starting|heading|flying|leaving))\s+\w", re.I)
# a clause that only says how the person feels right now: a feeling verb, an evaluative word, a time
# word at most ("I feel great so far", "honestly feeling a bit tired today") -- nothing named, counted or dated
_FEELING = re.compile(r"^(?:(?:[Ii]|[Ii]['’]m|[Ii] am|WE|we['’]re)\s+)?(?:(?:[a-z]+ly|just|still|so|really|pretty|quite|a bit|kind of)\s+)*"
                      r"(?:feel|feels|felt|feeling)\s+(?:(?:[a-z]+ly|so|really|pretty|quite|very|a bit|a little|kind of)\s+)*"
                      r"[a-z]+(?:\s+(?:so far|today|now|right now|lately|at the moment|these days|again|on \d{4}-\d\d-\d\d))?[.!]*$"
                      # "I'm so tired today", "we're really excited": a degree word before one adjective is a mood
                      r"|^(?:[Ii]['’]m|[Ii] am|WE are|WE['’]re|[Ww]e['’]re)\s+(?:so|really|very|super|pretty|quite|totally|absolutely"
                      r"|a bit|kind of|kinda|soo+)\s+[a-z]+(?:\s+(?:so far|today|now|right now|lately|at the moment|these days|again|on \d{4}-\d\d-\d\d))?[.!]*$")
# a clause whose subject is a thing or a comment on the clause before ("the side effects are rough", "which works well")
# "the baby was up four times": the household's own people and pets are no thing
_HOUSEHOLD_NP = re.compile(r"^(?:the|these|those)\s+(?:(?:little|older|younger|eldest|oldest|youngest|new|two|three)\s+)?(?i:" + PERSON[3:-1] + r")\b", re.I)
_COMMENT = re.compile(r"^(?:which|lo cual|lo que|ce qui|ce que|o que|was|welches)\b", re.I)
_THING_SUBJECT = re.compile(r"^(?:nobody|no one|everyone|everybody|someone|somebody|nothing|everything|what|this|that|it|there|the|these|those|ça|cela|c['’]est|isso|isto|das|这|那)\b", re.I)
# the same in the other languages: a definite article before a noun (German nouns are capitalised; "la"/"le"/"a" are also
# pronouns, so only the unambiguous articles of Spanish and Portuguese), or German "es" with a verb ("es schüttet"),
# after a subordinator ("weil der Server ... ausgefallen ist")
_SUB_INTL = r"(?:(?:weil|da|denn|obwohl|porque|aunque|parce que|car|pois|embora|because)\s+)?"
_THING_SUBJECT_INTL = re.compile(r"^" + _SUB_INTL + r"(?:(?:der|die|das|den|dem)\s+(?:[a-zäöüß]+\s+)?[A-ZÄÖÜ]|(?:el|los|o|os)\s+[a-zà-ÿ]"
                                 r"|es\s+[a-zäöüß]+t\b"
                                 # "la nuit a été courte", "la casa es grande": an article, its noun, a copula or auxiliary
                                 r"|(?:le|la|les|l['’]|las|a|as)\s*[a-zà-ÿ]+\s+(?:est|a|sont|était|ont|es|era|está|son|fue|é|foi|são)\b)")
# the household's people and pets, also named by an adjective or a number ("el mayor", "la pequeña", "die Kleine", "os dois")
_HOUSEHOLD_INTL = re.compile(r"^" + _SUB_INTL + r"\w+\s+(?:\w+\s+)?(?:Hund|Katze|Kinder|Kind|Baby|Kleine|Kleinen|Große|Großen|Älteste|Ältere"
                             r"|Jüngste|Jüngere|Zwillinge|Beiden|Oma|Opa|perro|gato|niños?|niñas?|bebé|nene|abuel[oa]s?|hij[oa]s?|mayor|menor"
                             r"|pequeñ[oa]s?|mediano|gemel[oa]s|mellizos|dos|tres|chat|chien|enfants?|bébé|aînée?|cadet(?:te)?|petite?|jumeaux"
                             r"|deux|cachorr[oa]|gat[oa]s?|crianças?|filh[oa]s?|bebê|caçula|velh[oa]|nov[oa]|dois|duas|gêmeos)\b")
# a date or a time said in words: a month, a weekday, "tomorrow", "next week", "this year" (five languages)
_MONTH_OR_NUMBER = re.compile(r"\d|\b(?:" + "|".join(dict.fromkeys(m for ms in MONTH_NAMES.values() for m in ms)) + r"|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lunes|martes"
                              r"|miércoles|jueves|viernes|sábado|domingo|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|segunda"
                              r"|terça|quarta|quinta|sexta|morgen|mañana|demain|amanhã|woche|wochenende|jahr|monat|semana|año|mes"
                              r"|semaine|mois|an|année|ano|mês)\b", re.I)
# a tag at the end of a clause: "..., fingers crossed", "... lol"
_TAG = re.compile(r"(?:[\s,]+(?:lol|lmao|haha+|hehe|fingers crossed|tbh|xx?|:\)|:D|😂|🤞|🙏))+\s*[.!]*$", re.I)
# laughter in the six languages: what follows it in the sentence is an aside, a joke about what came
# before ("Juego al pádel los sábados, jaja, | y siempre pierdo", "faço faculdade de direito, kkk não durmo")
_LAUGH = re.compile(r"(?:^|[\s,，]+)(?:(?:ha){2,}h?|(?:he){2,}|(?:ja){2,}|(?:je){2,}|(?:ji){2,}|k{3,}|(?:rs){2,}|(?:hi){2,}|lol|lmao|mdr|ptdr|xd"
                    r"|😂|🤣)(?=[\s,.!]|$)|(?:哈){2,}|呵呵|嘿嘿", re.I)
_NUMBER_WORDS = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
                           r"|sixty|seventy|eighty|ninety|hundred)\b", re.I)


def _generic(grounded: str, had_date: bool, people: set[str] = frozenset(), household: str = "User's household") -> str | None:
    """The clause as a fact: "User ..." (first person), "<Name> ..." (one of the person's people),
    or, for a first-person clause in another language, "User: <the clause>". Laughter ends it."""
    laugh = _LAUGH.search(grounded)
    s = _TAG.sub("", _LEAD.sub("", grounded[: laugh.start()] if laugh else grounded)).strip().rstrip(",，")
    if not s or not strip_fillers(s) or len(s) > MAX_SENTENCE_CHARS or s.rstrip().endswith(("?", "？")) or _NOT_A_FACT.search(s):
        return None  # "Por cierto": a filler alone is no fact
    if (dropped := _SUBJECT_DROPPED.match(s)) and not _FIRST.match(s):  # "Just got back from Crete" -> "I just got back ..."
        s = ("I'm " if dropped["ing"] else "I ") + s[0].lower() + s[1:]  # "Moving to San Pedro on August 22" -> "I'm moving ..."
    if len(s.split()) < 2 and not re.search(r"[\u4e00-\u9fff]", s):
        return None
    if _FEELING.match(s):
        return None  # "honestly feel great so far": a passing feeling, not something to keep
    if _FIRST.match(s) or s.startswith(WE):
        return finish(third_person(s, household))
    if people and re.match(_NAMES_SUBJECT.format(names="|".join(re.escape(p) for p in sorted(people, key=len, reverse=True))), s):
        return finish(third_person(s, household))
    if imperative(s) or STANDING.search(s):
        return None  # an instruction to the assistant stays in the episode, as before
    # "Der Umzug ist im Juni": a dated event of their life stays
    thing_intl = _THING_SUBJECT_INTL.match(s) and not (had_date or _MONTH_OR_NUMBER.search(s))
    if _COMMENT.match(s) or ((_THING_SUBJECT.match(s) and not (had_date and SCHEDULED.search(s)) or thing_intl) and not has_first_person(s)
                             and not _HOUSEHOLD_NP.match(s) and not _HOUSEHOLD_INTL.match(s)):
        return None  # "the house is chaos", "which works well", "was ehrlich gesagt super ist": a comment, not the person
    if re.search(r"\b(?:I|I['’]m|I['’]ve|my)\b", s) and re.sub(EMOJI + "|\ufe0f", "", s).isascii():  # "first day ✂️ my new boss is ..." too
        s = third_person(s)  # an English clause without its subject: "eczema flares up when I'm stressed"
    return finish("User: " + re.sub(r"\bWE\b", household, s))


def names_relation(name: str, text: str) -> bool:
    """``text`` gives a relation of the person that name ("User's neighbour is Pieter."); a
    nationality or creed is no name ("User's wife is Japanese.")."""
    return (name[:1].isupper() and text.startswith("User's ") and text.rstrip(".").endswith(f" is {name}")
            and not re.search(r"(?:ese|ish|ic|ist|ian)$", name))


# ----------------------------------------------------------------------------- entry point

_PARTNER = re.compile(r"\b(?i:my|our)\s+(?i:wife|husband|partner|spouse|girlfriend|boyfriend|fianc[ée]e?),?\s+([A-Z][\w'’-]+)")


def _first_person(text: str) -> str:
    """A clause with "we"/"our" said as "I"/"my", for the slot rules ("we have a dog named Rex")."""
    t = re.sub(r"\b([Oo])ur\b", lambda m: "My" if m[1] == "O" else "my", text)
    t = re.sub(r"\b[Ww]e(?:['’]re| are)\b", "I'm", t)
    t = re.sub(r"\b[Ww]e(['’](?:ve|d|ll))\b", r"I\1", t)  # "we've got a dog called Rex"
    return re.sub(r"\b[Ww]e\b(?!['’])", "I", t)


# a name, its relation in apposition, then a relative clause as the only predicate ("oh and Matjes, our ferret, who steals socks")
_APPOS_WHO = re.compile(r"(?P<np>(?:^|(?<=[\s,;(]))[A-Z][\w'’-]+,\s+(?i:my|our)\s+(?:[\w'’-]+\s+){0,2}?[\w'’-]+),\s+(?:who|which|that)\s+(?=[a-z])")


# a lead before a name in apposition: "oh and Matjes, our ferret, ..." is read from the name
_LEAD_NAME = re.compile(r"(?:^|(?<=[.!?]\s))" + _LEAD.pattern.removeprefix("^") + r"(?=[A-Z][\w'’-]+,\s+(?i:my|our)\s)", re.I)


def _as_written(text: str, observed_at: datetime) -> str:
    """The message as the clause rules read it: a birthday said as "today" named by its day, asides
    in brackets after their sentence, shouting and chat typing undone, a lead-in before a name left
    out, "Matjes, our ferret, who steals socks" as "Matjes, our ferret, steals socks"."""
    text = written(unshout(asides_after(annual_dated(text, observed_at.date()))))
    return as_their(_APPOS_WHO.sub(r"\g<np>, ", _LEAD_NAME.sub("", text)))


def extract(text: str, observed_at: datetime, names: Iterable[str] = ()) -> list[Candidate]:
    """Profile slots and facts found in a user message, one clause at a time (see the module
    docstring). ``names``: the person's own people and pets already known (from memory)."""
    out: list[Candidate] = []
    seen: set[str] = set()

    def emit(cand: Candidate) -> None:
        key = cand.text.casefold()
        if key not in seen:
            seen.add(key)
            out.append(cand)

    text = _as_written(text, observed_at)
    people = set(names) | own_names(text) | named_people(text, names)
    partners = list(dict.fromkeys(_PARTNER.findall(text)))
    household = f"User and {partners[0]}" if len(partners) == 1 else "User's household"
    found = clauses(text, people)
    ground_of = [_ground_sentence(cl.resolved, observed_at) for cl in found]
    dated: dict[int, date] = {}  # sentence -> the date its first dated clause grounds (a change's date)
    for cl, (_, valid) in zip(found, ground_of):
        if valid is not None:
            dated.setdefault(cl.sentence, valid)
    for k, cl in _asserted(text, found, people):
        if cl.relation:
            people.add(cl.relation[2])
        grounded, valid = ground_of[k]
        if valid is None and shift_kind(cl.text):
            valid = dated.get(cl.sentence)  # "I changed jobs last week and now work as a chef": chef since last week
        said = _having(cl, found[:k]) or _with_subject(cl, found[:k])  # "we have ..., and a beagle named Biscuit"
        if said == cl.text and cl.resolved.startswith("my "):
            said = cl.resolved  # "Her name's Camille" after "I'm seeing someone": "my partner's name is Camille"
        slot_text, _ = _ground_sentence(_first_person(said), observed_at)
        src = (cl.text, grounded, _first_person(cl.text), slot_text)
        slot_texts = set()
        for pattern, build in SLOT_RULES:
            for m in pattern.finditer(slot_text):
                built = build(m)  # type: ignore[operator]  # (slot, fact), several, or None: the rule's own second look says no
                for slot, fact in [built] if isinstance(built, tuple) else built or ():
                    fact = finish(fact)
                    slot_texts.add(fact.casefold())
                    emit(Candidate(fact, Kind.PROFILE, slot, valid, 0.9, entities=tuple(_entities(fact)), sources=src))
        if cl.relation and not any(cl.relation[2].casefold() in t for t in slot_texts):
            np, rel, name = cl.relation
            if re.match(r"(?i:my|our)\b", np):  # other languages keep the relation in the clause's own fact
                fact = finish(f"User's {rel} is {name}")
                slot_texts.add(fact.casefold())
                slot = relation_slot(rel)  # "Kasper, my brother, ...": the family.brother slot
                emit(Candidate(fact, Kind.PROFILE if slot else Kind.FACT, slot, None, 0.9, entities=(name,), sources=src))
        generic = _generic(grounded, valid is not None, people, household)
        if generic and (valid is not None or not slot_texts or _adds_words(generic, slot_texts)):
            emit(Candidate(generic, Kind.FACT, None, valid, 0.8, entities=tuple(_entities(generic)), sources=src))
        # "My brother is Kasper. Kasper repairs bicycles.": the next clauses may speak of him by name
        people.update(e for c in out for e in c.entities if names_relation(e, c.text))
    return out


def _asserted(text: str, found: list[Any], people: set[str]) -> Iterable[tuple[int, Any]]:
    """(index, clause) of the clauses of ``text`` the person asserts: not a hypothetical, an
    opinion or hearsay, a claim about the world, only about today ... (:func:`mood.not_asserted`),
    nor the content of such a clause, nor an aside after laughter. ``people`` may grow while
    this is read (a clause's relation names someone the next clauses speak of)."""
    told: set[int] = set()  # clauses that are someone else's words: the content after a frame ("Mein Vater meint, ...")
    dropped: set[int] = set()
    for k, cl in enumerate(found):
        sentence = _sentence_of(text, found, cl.sentence)
        # the content of a clause that is no statement ("Ich könnte mir vorstellen, | aufs Land zu ziehen") is none either
        content_of_dropped = k - 1 in dropped and found[k - 1].sentence == cl.sentence and dependent(cl.text)
        after_laugh = k and found[k - 1].sentence == cl.sentence and _LAUGH.search(found[k - 1].text) is not None
        if k in told or content_of_dropped or after_laugh or not_asserted(cl.text, sentence, people):
            dropped.add(k)
            if frame_only(cl.text) and k + 1 < len(found) and found[k + 1].sentence == cl.sentence:
                told.add(k + 1)
            continue  # a hypothetical, an opinion or hearsay, a claim about the world: not the person's statement
        yield k, cl


def asserts_something(text: str, names: Iterable[str] = ()) -> bool:
    """Whether the person asserts anything in ``text`` (one statement unit): a sentence whose
    every clause is only supposed, only about today, someone else's words ... is no statement,
    so it is not kept as the message's copy either."""
    people = set(names) | own_names(text) | named_people(text, names)
    return next(iter(_asserted(text, clauses(text, people), people)), None) is not None


_SUBJECT = re.compile(r"\b(I|[Ww]e)\b(?!.*\b(?:I|[Ww]e)\b)")
_BARE_VERB = re.compile(r"(?:(?:just|recently|finally|also|still|now)\s+)?(?:[a-z]+ed|went|got|bought|sold|left|took|began|became|started|quit|moved|switched"
                        r"|live|work|teach|study)\b")
_NO_SUBJECT = re.compile(r"(?:been|was|doing|going)\b")  # an aside without a subject: "been doing it 12 yrs"


def _with_subject(cl: Any, before: list[Any]) -> str:
    """A coordinated clause whose subject is elided ("we packed up and moved to Malmö") with the
    first-person subject of the clause before it, for the slot rules: "we moved to Malmö"; clauses
    between without a subject of their own are passed over ("i tune pipe organs 🎹 been doing it
    12 yrs, live in cluj-napoca" -> "i live in cluj-napoca")."""
    if not _BARE_VERB.match(cl.text):
        return cl.text
    for prev in reversed([p for p in before if p.sentence == cl.sentence]):
        if m := _SUBJECT.search(prev.text):
            return f"{m[1]} {cl.text}"
        if not _BARE_VERB.match(prev.text) and not _NO_SUBJECT.match(prev.text):
            return cl.text  # someone else's clause between
    return cl.text


_HAVING = re.compile(r"\b(I|[Ww]e)(" + HAS + r"|\s+own|\s+adopted)\b")
_OBJECT_ONLY = re.compile(r"(?:an?|two|three|another)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:named|called)\s+[A-Z]")


def _having(cl: Any, before: list[Any]) -> str | None:
    """A clause that is only an object with its name ("a beagle named Biscuit who eats
    everything") after a clause of its sentence where the person has something ("we have a
    daughter called Tilly"): the object with that subject and verb ("we have a beagle named
    Biscuit ..."), for the slot rules, else None."""
    if not _OBJECT_ONLY.match(cl.text):
        return None
    for prev in reversed([p for p in before if p.sentence == cl.sentence]):
        if m := _HAVING.search(prev.text):
            return f"{m[1]}{m[2]} {cl.text}"
    return None


def _sentence_of(text: str, found: list[Any], index: int) -> str:
    """The text of sentence ``index``: from its first clause to its last."""
    mine = [c for c in found if c.sentence == index]
    return text[mine[0].start:mine[-1].end]


def _adds_words(fact: str, others: set[str]) -> bool:
    """Whether ``fact`` says something the slot texts of its sentence do not (a content word)."""
    covered = {w.casefold() for o in others for w in words(o)}
    skip = covered | STOPWORDS | TEMPLATE_WORDS
    return any(w.casefold() not in skip for w in words(fact))


def _entities(fact: str) -> list[str]:
    """Proper-noun phrases of a fact ("Ferrari 488 GTB", "Olive Garden") for entity links."""
    found = re.findall(PN("e"), fact)
    lang = detect(fact)
    return [e for e in dict.fromkeys(found) if e not in ("User", "User's") and not e[0].isdigit()
            and not (lang in LANGS and _common_words(e, lang))]  # "La", "Hier", "Letzte Woche": words, not names


def _common_words(phrase: str, lang: str) -> bool:
    """Every word of ``phrase`` is a word of ``lang``'s lexicon (a capitalised sentence opening,
    a German noun), so it names no one and nothing."""
    from assistant.memory.language.gloss import known  # deferred: the lexicons load on first use

    return all(known(w, lang) for w in phrase.split())


def relink_entities(store: Any, memory: Any) -> Any:
    """After ``memory``'s text was edited: the proper nouns the new text names join its entity
    links (the store already dropped the links the text no longer mentions). Returns the memory
    as stored (re-read when links were added)."""
    names = [n for n in _entities(memory.text) if n not in memory.entities]
    if not names:
        return memory
    store.set_entities(memory.id, [*memory.entities, *names], actor="user")
    return store.get(memory.id)
