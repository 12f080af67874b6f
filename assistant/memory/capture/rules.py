"""Deterministic extraction for the common cases, so that even a tiny model captures them.

``extract(text, observed_at)`` splits a user message into sentences, grounds each one's
relative dates against ``observed_at`` (:func:`assistant.memory.capture.dates.ground`), and returns
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
from typing import Any

from assistant.memory.capture.dates import ground
from assistant.memory.records import Kind
from assistant.memory.capture.validate import STOPWORDS, TEMPLATE_WORDS, proper_nouns, words

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


# ----------------------------------------------------------------------------- third person

_APOS = "['’]"
_ADVERBS = frozenset(
    "also just recently now still currently actually really finally already officially usually often "
    "sometimes never always mostly totally absolutely definitely even only probably".split()
)
_VERB_FIXED = {
    "am": "is", "have": "has", "do": "does", "go": "goes", "don't": "doesn't", "don’t": "doesn’t",
    "haven't": "hasn't", "haven’t": "hasn’t", "was": "was", "wasn't": "wasn't", "wasn’t": "wasn’t",
}  # fmt: skip
_INVARIANT = frozenset(
    """can could will would shall should may might must did didn't didn’t can't can’t cannot won't won’t
    wouldn't wouldn’t couldn't couldn’t shouldn't shouldn’t went got had made took bought saw met ran came
    left found felt gave told thought knew lost won began became brought built sold spent kept held drove
    flew ate wrote broke chose fell forgot grew hurt put quit set sat stood taught understood woke wore paid
    said slept swam sang spoke threw read let cut hit shut lit led fed meant sent lent bent dealt dug hung
    heard""".split()
)
_PARTICIPLE_HINT = re.compile(r"(?:ed|en|been|gone|done|had|got|made|seen|known)$", re.I)
_FIRST_PERSON = re.compile(
    r"\b(?P<i>[Ii])" + _APOS + r"(?P<c>m|ve|ll|d)\b(?P<rest>\s+\w+)?"
    r"|\b(?P<ii>[Ii])\b(?P<advs>(?:\s+(?:" + "|".join(sorted(_ADVERBS)) + r"))*)(?P<sp>\s+)(?P<verb>[\w’']+)"
    r"|\b(?P<poss>[Mm]y|[Mm]ine)\b|\b(?P<obj>[Mm]e|[Mm]yself)\b|\b(?P<lone>I)\b"
)


def conjugate(verb: str) -> str:
    """Third-person singular of a present-tense verb ("live" -> "lives"); other forms unchanged."""
    low = verb.lower()
    if low in _VERB_FIXED:
        return _VERB_FIXED[low]
    if low in _INVARIANT or low.endswith(("ed", "n't", "n’t")) or not low.isalpha() or len(low) < 2:
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str) -> str:
    """Rewrite a first-person statement about the person as a statement about "User"
    ("I live in Lyon and my sister visits me" -> "User lives in Lyon and User's sister visits User")."""

    def sub(m: re.Match) -> str:
        if m["i"]:
            c, rest = m["c"].lower(), m["rest"] or ""
            if c == "d":
                nxt = rest.strip()
                aux = "had" if nxt and _PARTICIPLE_HINT.search(nxt) else "would"
                return f"User {aux}{rest}"
            return "User " + {"m": "is", "ve": "has", "ll": "will"}[c] + rest
        if m["ii"]:
            return f"User{m['advs']}{m['sp']}{conjugate(m['verb'])}"
        if m["poss"]:
            return "User's"
        if m["obj"] or m["lone"]:
            return "User"
        return m.group(0)

    return _FIRST_PERSON.sub(sub, text)


def finish(text: str) -> str:
    """Trim, drop trailing emphasis, end with a period."""
    t = " ".join(text.split()).strip(" ,;:-–—")
    t = re.sub(r"[!]+$", "", t).rstrip()
    if t and t[-1] not in ".?":
        t += "."
    return t


# ----------------------------------------------------------------------------- sentences

_LEAD = re.compile(
    r"^(?:(?:oh|well|so|btw|by the way|also|and|but|anyway|hey|hi|hello|actually|fun fact|just so you know"
    r"|fyi|ok|okay|yes|yeah|no|guess what|honestly)\b[\s,:;!.-]*)+",
    re.I,
)
_SPLIT = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def _ground_sentence(s: str, observed_at: datetime) -> tuple[str, date | None]:
    """Ground relative dates; birthdays/anniversaries are recurring: their dates stay as said."""
    g = ground(s, observed_at)
    if re.search(r"birthday|anniversary", s, re.I):
        return s, None
    return g.text, g.valid_at


# ----------------------------------------------------------------------------- slot rules

def K(p: str) -> str:
    return f"(?i:{p})"


_CAP = r"(?:[A-Z](?:[\w'’&-]|\.(?=\w))*|\d[\w-]*)"
_CONNECT = r"(?:de|da|do|di|du|del|la|le|van|von|der|den|of|on|upon|am|im|y|&)"


def PN(name: str = "x") -> str:
    """A proper-noun phrase: "New York", "Rio de Janeiro", "Ferrari 488 GTB"."""
    return rf"(?P<{name}>{_CAP}(?:\s+(?:{_CAP}|{_CONNECT}(?=\s+[A-Z])))*)"


_END = r"(?=\s*(?:[,.;:!?()]|$|\s(?i:because|but|since|and then|so that|which|who|when|though|although|and)\b))"
OBJ = r"(?P<x>[^,.;:!?()]+?)" + _END
SUBJ = r"(?:\b[Ii]\b|\b(?i:and)\b)"
ADV = r"(?:\s+(?i:also|just|recently|now|still|currently|actually|really|finally|already|officially))*"
ROLE = r"(?P<role>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,4}?)"
_ROLE_END = r"(?=\s+(?i:at|for|in|with|since|on|the week|because|and|but|from)\b|\s*[,.;!?]|$)"
_IM = r"(?:\b[Ii]" + _APOS + r"m|\b[Ii] am)"
_REL_PARTNER = r"(?P<rel>wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse)"
_REL_FAMILY = (r"(?P<rel>mother|mom|mum|father|dad|sister|brother|son|daughter|grandmother|grandma|granny"
               r"|grandfather|grandpa|aunt|uncle|cousin|niece|nephew|stepmother|stepfather|stepson|stepdaughter)")  # fmt: skip
_NAMED = r"(?:" + _APOS + r"s name is|,| is called| is named| named| called|)\s+"
_PET = (r"(?P<pet>(?:[a-z][\w-]*\s+){0,2}?(?:dog|puppy|cat|kitten|hamster|rabbit|bunny|parrot|budgie|bird|fish"
        r"|goldfish|turtle|tortoise|snake|lizard|gecko|horse|pony|guinea pig|ferret|retriever|labrador|poodle"
        r"|terrier|beagle|bulldog|spaniel|shepherd|husky|dachshund|corgi))")  # fmt: skip
_DIET = (r"(?P<x>(?:an?\s+)?(?:strict\s+)?(?:vegetarian|vegan|pescatarian|pescetarian|gluten[- ]free|"
         r"lactose[- ]intolerant|kosher|halal|teetotal(?:er)?|on an? [\w-]+ diet))\b")  # fmt: skip


THE = r"(?P<the>(?i:the)\s+)?"


def _the(m: re.Match) -> str:
    return m["the"] or ""


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _slot_rules() -> list[tuple[re.Pattern, object]]:
    R: list[tuple[str, object]] = [
        (K(r"\bmy name(?:['’]s| is)\s+") + PN(), lambda m: ("name", f"User's name is {m['x']}.")),
        (K(r"\bcall me\s+") + PN() + _END, lambda m: ("name", f"User's name is {m['x']}.")),
        (r"^" + K(r"(?:hi|hello|hey)") + r"[,!]?\s+" + _IM + r"\s+" + PN() + r"(?=\s*(?:[,.!]|$))",
         lambda m: ("name", f"User's name is {m['x']}.")),
        (SUBJ + ADV + K(r"\s+(?:live|am living|['’]m living|reside)\s+in\s+") + THE + PN(),
         lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        (SUBJ + ADV + K(r"\s+(?:moved|relocated)(?:\s+back)?") + r"(?:" + K(r"\s+from\s+") + PN("f") + ")?"
         + K(r"\s+to\s+") + THE + PN(), lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        (_IM + K(r"\s+(?:originally\s+)?from\s+") + THE + PN(), lambda m: ("hometown", f"User is from {_the(m)}{m['x']}.")),
        (SUBJ + K(r"\s+grew up in\s+") + THE + PN(), lambda m: ("hometown", f"User grew up in {_the(m)}{m['x']}.")),
        (SUBJ + K(r"\s+was born in\s+") + THE + PN(), lambda m: ("hometown", f"User was born in {_the(m)}{m['x']}.")),
        (SUBJ + ADV + K(r"\s+work(?:ing)?\s+(?P<p>at|for)\s+") + PN(),
         lambda m: ("employer", f"User works {m['p'].lower()} {m['x']}.")),
        (SUBJ + ADV + K(r"\s+(?:got|started|began|accepted)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)\s+(?:at|with)\s+") + PN(),
         lambda m: ("employer", f"User works at {m['x']}.")),
        (SUBJ + ADV + K(r"\s+work\s+as\s+(?P<art>an?\s+)?") + ROLE + _ROLE_END,
         lambda m: ("job_title", f"User works as {(m['art'] or '').strip() + ' ' if m['art'] else ''}{m['role']}.")),
        (_IM + r"\s+(?P<art>an?)\s+" + ROLE + K(r"\s+(?:at|for)\s+") + PN(),
         lambda m: ("job_title", f"User is {m['art']} {m['role']} at {m['x']}.")),
        (SUBJ + ADV + K(r"\s+(?:got|was|have been|['’]ve been|just got)\s+promoted\s+to\s+") + ROLE + _ROLE_END
         + r"(?:" + K(r"\s+(?:at|in)\s+") + PN() + ")?",
         lambda m: ("job_title", f"User was promoted to {m['role']}" + (f" at {m['x']}." if m["x"] else "."))),
        (K(r"\bmy\s+") + K(_REL_PARTNER) + K(_NAMED) + PN(), lambda m: ("partner", f"User's {m['rel']} is {m['x']}.")),
        (SUBJ + K(r"(?:['’]m|\s+am|\s+got|\s+recently got)\s+(?P<st>married|engaged)\s+to\s+") + PN(),
         lambda m: ("partner", f"User is {m['st'].lower()} to {m['x']}.")),
        (K(r"\bmy\s+") + K(_REL_FAMILY) + K(_NAMED) + PN(),
         lambda m: (f"family.{m['rel'].lower()}", f"User's {m['rel']} is {m['x']}.")),
        (SUBJ + ADV + K(r"\s+(?:have|got|adopted|own)\s+(?:an?|one|my)\s+") + _PET
         + r"(?:" + K(r"\s+(?:named|called)\s+") + PN() + ")?",
         lambda m: ("pet", f"User has {_a(m['pet'])} {m['pet']}" + (f" named {m['x']}." if m["x"] else "."))),
        (K(r"\bmy\s+") + _PET + K(_NAMED) + PN(), lambda m: ("pet", f"User has {_a(m['pet'])} {m['pet']} named {m['x']}.")),
        (K(r"\bmy\s+birthday\s+is\s+(?:on\s+)?") + OBJ, lambda m: ("birthday", f"User's birthday is {m['x']}.")),
        (SUBJ + K(r"\s+was\s+born\s+on\s+") + OBJ, lambda m: ("birthday", f"User was born on {m['x']}.")),
        (_IM + ADV + K(r"\s+(?:(?:very|severely|deathly|really|mildly|a bit|slightly)\s+)?allergic\s+to\s+") + OBJ,
         lambda m: ("allergy", f"User is allergic to {m['x']}.")),
        (SUBJ + K(r"\s+have\s+(?P<art>an?)\s+") + r"(?P<x>[\w -]+?)" + K(r"\s+allergy\b"),
         lambda m: ("allergy", f"User has {m['art']} {m['x']} allergy.")),
        (_IM + ADV + r"\s+" + K(_DIET), lambda m: ("diet", f"User is {m['x']}.")),
        (SUBJ + ADV + K(r"\s+(?P<neg>don['’]t|do not|never|no longer|can['’]t)\s+(?P<v>eat|drink)\s+") + OBJ,
         lambda m: ("diet", third_person(f"I {m['neg']} {m['v']} {m['x']}").rstrip(".") + ".")),
        (K(r"\bmy\s+(?:all[- ]time\s+)?(?P<fav>favou?rite)\s+") + r"(?P<thing>[\w-]+(?:\s+[\w-]+){0,2}?)"
         + K(r"\s+(?P<v>is|are)\s+") + OBJ,
         lambda m: (f"favourite.{m['thing'].lower().replace(' ', '_')}", f"User's {m['fav']} {m['thing']} {m['v']} {m['x']}.")),
    ]
    return [(re.compile(p), f) for p, f in R]


_SLOT_RULES = _slot_rules()

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


def _generic(grounded: str, had_date: bool) -> str | None:
    s = _LEAD.sub("", grounded).strip()
    if not s or len(s) > MAX_SENTENCE_CHARS or s.rstrip().endswith("?") or not _FIRST.match(s):
        return None
    if _NOT_A_FACT.search(s):
        return None
    if not (had_date or proper_nouns(s[1:]) or re.search(r"\d", s) or _SIGNAL_VERBS.search(s)):
        return None
    return finish(third_person(s))


# ----------------------------------------------------------------------------- entry point

def extract(text: str, observed_at: datetime) -> list[Candidate]:
    """Profile slots and facts found in a user message (see the module docstring)."""
    out: list[Candidate] = []
    seen: set[str] = set()

    def emit(cand: Candidate) -> None:
        key = cand.text.casefold()
        if key not in seen:
            seen.add(key)
            out.append(cand)

    for sentence in sentences(text):
        grounded, valid = _ground_sentence(sentence, observed_at)
        src = (sentence, grounded)
        slot_texts = set()
        for pattern, build in _SLOT_RULES:
            for m in pattern.finditer(grounded):
                slot, fact = build(m)  # type: ignore[operator]
                fact = finish(fact)
                slot_texts.add(fact.casefold())
                emit(Candidate(fact, Kind.PROFILE, slot, valid, 0.9, entities=tuple(_entities(fact)), sources=src))
        generic = _generic(grounded, valid is not None)
        if generic and (valid is not None or not slot_texts or _adds_words(generic, slot_texts)):
            emit(Candidate(generic, Kind.FACT, None, valid, 0.8, entities=tuple(_entities(generic)), sources=src))
    return out


def _adds_words(fact: str, others: set[str]) -> bool:
    """Whether ``fact`` says something the slot texts of its sentence do not (a content word)."""
    covered = {w.casefold() for o in others for w in words(o)}
    skip = covered | STOPWORDS | TEMPLATE_WORDS
    return any(w.casefold() not in skip for w in words(fact))


def _entities(fact: str) -> list[str]:
    """Proper-noun phrases of a fact ("Ferrari 488 GTB", "Olive Garden") for entity links."""
    found = re.findall(PN("e"), fact)
    return [e for e in dict.fromkeys(found) if e not in ("User", "User's") and not e[0].isdigit()]


def relink_entities(store: Any, memory: Any) -> Any:
    """After ``memory``'s text was edited: the proper nouns the new text names join its entity
    links (the store already dropped the links the text no longer mentions). Returns the memory
    as stored (re-read when links were added)."""
    names = [n for n in _entities(memory.text) if n not in memory.entities]
    if not names:
        return memory
    store.set_entities(memory.id, [*memory.entities, *names], actor="user")
    return store.get(memory.id)
