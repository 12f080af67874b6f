"""Pure text helpers for retrieval: entity n-grams and slot-shaped questions. No I/O. Query
cleaning, FTS5 tokens and the MATCH expression are :mod:`assistant.memory.store.sqlite.fts`;
BM25 itself is FTS5's ``bm25()`` (:mod:`.retriever`).
"""

from __future__ import annotations

import re
from typing import Iterable

from assistant.memory.retrieval.questions import direct
from assistant.memory.store.sqlite.fts import fold

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


# -- entities ---------------------------------------------------------------------------------

STOPWORDS = frozenset(
    "a an the i me my mine myself you your we our us he him his she her they them their it its "
    "is am are was were be been being do does did have has had will would shall should can could "
    "may might must what which who whom whose where when why how that this these those there here "
    "and or but if then than so of in on at to for from by with about into over after before "
    "up down out off again any some all each every no not only own same too very just also "
    "tell remember know please yes ok okay like get got go going".split()
)


def query_ngrams(text: str, max_words: int = 4) -> list[str]:
    """Folded word n-grams (1..max_words) that could name an entity: not only stopwords,
    at least 3 characters."""
    words = [w.replace("’", "'") for w in _WORD.findall(fold(text))][:200]
    words = [w[:-2] if w.endswith("'s") else w for w in words]
    out: dict[str, None] = {}
    for n in range(1, max_words + 1):
        for i in range(len(words) - n + 1):
            gram = words[i : i + n]
            if all(w in STOPWORDS for w in gram):
                continue
            s = " ".join(gram)
            if len(s) >= 3:
                out.setdefault(s, None)
    return list(out)


# -- profile slots ----------------------------------------------------------------------------

# slot -> (slot names it may be stored under, question patterns on folded text)
SLOT_QUESTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "name": (
        ("name", "full_name", "first_name", "user_name"),
        (r"\bwhat(?:'s| is| was)? my (?:full |first |real )?name\b", r"\bwho am i\s*[?.!]*$",
         r"\bwhat (?:do|should) (?:you|people|they|others|folks) call me\b", r"\bwhat am i called\b",
         r"\bdo you (?:know|remember) my name\b", r"\bwhat (?:i'm|i am|im) called\b", r"我叫什么", r"我的名字"),
    ),
    "home_city": (
        ("home_city", "home", "city", "residence", "location", "address", "home_address", "lives_in"),
        (r"\bwhere do i (?:live|reside)\b", r"\bwhere am i (?:living|based|located) (?:now|these days|at the moment)?\s*[?.!]*$",
         r"\bwhere(?:'s| is) (?:my )?home\b", r"\b(?:what|which) (?:city|town|country|place) (?:do i live in|am i (?:living|based|settled) in|do i call home)\b",
         r"\bwhat(?:'s| is) my (?:home )?(?:address|city)\b", r"我住(?:在)?哪"),
    ),
    "employer": (
        ("employer", "company", "workplace", "work", "works_at"),
        (r"\bwhere do i work\b", r"\bwho do i work for\b", r"\b(?:who|what)(?:'s| is) my employer\b",
         r"\b(?:what|which) (?:company|firm|organi[sz]ation) do i work (?:for|at)\b", r"\bwho employs me\b",
         r"\bwhere am i (?:employed|working)\b", r"我在哪(?:里|儿)?(?:工作|上班)"),
    ),
    "occupation": (
        ("occupation", "job", "job_title", "profession", "role", "title"),
        (r"\bwhat(?:'s| is) my (?:job|occupation|profession|job title|line of work)\b",
         r"\bwhat do i do for (?:a )?(?:living|work)\b", r"\bwhat (?:kind of )?work do i do\b", r"我(?:是)?做什么工作"),
    ),
    "birthday": (
        ("birthday", "birthdate", "date_of_birth", "dob"),
        (r"\bwhen(?:'s| is) my birthday\b", r"\bwhen was i born\b", r"\bwhat(?:'s| is) my (?:birthday|date of birth|birth date)\b",
         r"我(?:的)?生日"),
    ),
    "age": (("age",), (r"\bhow old am i\b",)),
    "hometown": (
        ("hometown", "home_town", "birthplace", "origin", "grew_up"),
        (r"\bwhere (?:did i grow up|am i from|was i born|do i come from)\b", r"\bwhat(?:'s| is) my (?:hometown|home town|birthplace)\b",
         r"\bwhere (?:am i|do i come) originally from\b",
         r"\b(?:what|which) (?:town|city|place|country) (?:am i (?:originally )?from|do i come from|did i grow up in|was i born in)\b"),
    ),
    "partner": (
        ("partner", "spouse", "wife", "husband", "girlfriend", "boyfriend"),
        (r"\bwho(?:'s| is) my (?:partner|wife|husband|spouse|girlfriend|boyfriend|fiancee?)\b",
         r"\bwhat(?:'s| is) my (?:partner|wife|husband|spouse|girlfriend|boyfriend|fiancee?)(?:'s name| called)\b",
         r"\bwho am i (?:dating|married to|seeing|in a relationship with|engaged to|going out with)\b"),
    ),
    "email": (("email", "email_address"), (r"\bwhat(?:'s| is) my e-?mail(?: address)?\b",)),
    "phone": (("phone", "phone_number", "mobile"), (r"\bwhat(?:'s| is) my (?:phone|mobile|cell)(?: phone)?(?: number)?\b",)),
}
_SLOT_RES = {slot: [re.compile(p) for p in pats] for slot, (_names, pats) in SLOT_QUESTIONS.items()}

# Parameterized slots, named as capture names them (assistant.memory.language.rules):
# ``family.<relation>``, ``favourite.<thing>`` (spaces as "_"), ``pet``, ``allergy``, ``diet``.
_RELATIVES = {
    "mother": ("mother", "mom", "mum", "mama"), "father": ("father", "dad", "papa"),
    "grandmother": ("grandmother", "grandma", "granny"), "grandfather": ("grandfather", "grandpa"),
    "sister": ("sister",), "brother": ("brother",), "son": ("son",), "daughter": ("daughter",),
    "aunt": ("aunt",), "uncle": ("uncle",), "cousin": ("cousin",), "niece": ("niece",), "nephew": ("nephew",),
    "kids": ("kids", "children"), "parents": ("parents",), "sibling": ("sibling", "siblings"),
}  # fmt: skip
_REL_ALIAS = {alias: group for group in _RELATIVES.values() for alias in group}
_REL = "|".join(sorted(_REL_ALIAS, key=len, reverse=True))
_DYNAMIC_SLOTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), slot)
    for p, slot in (
        (rf"\bwho(?:'s| is| are) my (?P<rel>{_REL})\s*[?.!]*$", "family"),
        (rf"\bwhat(?:'s| is| are) my (?P<rel>{_REL})(?:'s|s')? names?\b", "family"),
        (r"\bwhat(?:'s| is| are) my favou?rite (?P<thing>[^\W\d_]+(?: [^\W\d_]+)?)", "favourite"),
        (r"\b(?:what(?:'s| is) my pet(?:'s)? (?:name|called)|what is my pet called|do i have (?:a |any )?pets?|what pets? do i have)\b", "pet"),
        (r"\b(?:what am i allergic to|am i allergic to|do i have (?:any )?allerg(?:y|ies)|anything i'?m allergic to)\b"
         r"|\b(?:must|should|have to|need to) (?:i )?avoid\b.*\ballerg|\bi(?:'m| am) allergic\b.*\?$", "allergy"),
        (r"\b(?:am i (?:a )?(?:vegetarian|vegan|pescatarian)|what(?:'s| is) my diet|do i eat (?:meat|fish|pork|beef|dairy))\b", "diet"),
    )
)


def slot_question(text: str) -> tuple[str, ...]:
    """Slots a slot-shaped question asks for ("where do I live" -> ("home_city",),
    "who is my sister" -> ("family.sister",)); () if none. A recall request is also read as the
    direct question it asks ("Remind me which town I'm originally from.")."""
    qs = list(dict.fromkeys(fold(t).replace("’", "'") for t in (text, direct(text))))
    out: dict[str, None] = {slot: None for slot, res in _SLOT_RES.items() if any(r.search(q) for r in res for q in qs)}
    for rx, kind in _DYNAMIC_SLOTS:
        m = next((found for q in qs if (found := rx.search(q)) is not None), None)
        if m is None:
            continue
        if kind == "family":
            rel = m.group("rel")
            out.setdefault(f"family.{_REL_ALIAS[rel][0]}", None)
        elif kind == "favourite":
            words = m.group("thing").split()
            out.setdefault(f"favourite.{'_'.join(words)}", None)
            if len(words) > 1:
                out.setdefault(f"favourite.{words[0]}", None)
        else:
            out.setdefault(kind, None)
    return tuple(out)


def slot_names(slots: Iterable[str]) -> tuple[str, ...]:
    """Every stored slot name that answers these slots (relatives under all their names)."""
    out: dict[str, None] = {}
    for s in slots:
        if s in SLOT_QUESTIONS:
            names: Iterable[str] = SLOT_QUESTIONS[s][0]
        elif s.startswith("family."):
            names = [f"family.{a}" for a in _RELATIVES.get(s.split(".", 1)[1], (s.split(".", 1)[1],))]
        else:
            names = (s,)
        for name in names:
            out.setdefault(name, None)
    return tuple(out)
