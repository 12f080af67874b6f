"""The profile-slot rules of :mod:`assistant.memory.language.rules` (see its docstring for the table).
Pure: no I/O."""

from __future__ import annotations

import re

from assistant.memory.language.cues import EMOJI, PERSON
from assistant.memory.language.gloss import english_words, known_words
from assistant.memory.language.phrasing import _APOS, third_person

# ----------------------------------------------------------------------------- slot rules

def K(p: str) -> str:
    return f"(?i:{p})"


_CAP = r"(?:(?:St|Ste|Mt|Ft|Dr)\.(?=\s+[A-Z])|[A-Z](?:[\w'’&-]|\.(?=\w))*|\d[\w-]*)"  # "St. Brigid's": the abbreviation opens the name
_CONNECT = r"(?:de|da|do|di|du|del|la|le|van|von|der|den|of|on|upon|am|im|y|&)"
# a day or a month after "on"/"in" is no part of a place's name ("the new place in Amager on Tuesday")
_DAY_NAME = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December)\b"


def PN(name: str = "x") -> str:
    """A proper-noun phrase: "New York", "Rio de Janeiro", "Ferrari 488 GTB"."""
    return rf"(?P<{name}>{_CAP}(?:\s+(?:{_CAP}|{_CONNECT}(?=\s+[A-Z])(?!\s+{_DAY_NAME})))*)"


_END = r"(?=\s*(?:[,.;:!?()]|$|\s(?i:because|but|since|and then|so that|which|who|when|though|although|and)\b))"
OBJ = r"(?P<x>[^,.;:!?()]+?)" + _END
SUBJ = r"(?:\b[Ii]\b|\b(?i:and)\b)"
ADV = r"(?:\s+(?i:also|just|recently|now|still|currently|actually|really|finally|already|officially))*"
_HAVE = r"(?:['’]ve|\s+(?i:have))"  # after the subject: "I've", "we have"
#: The present perfect's auxiliary after the subject: "I've moved to Leeds" (not "I'd moved": no longer true).
PERF = _HAVE + "?"
#: A verb's present auxiliaries after the subject: "I've been working at", "I am working at", "I'm
#: working at" (not "I had been living in Paris": no longer true).
AUX = r"(?:" + _HAVE + ADV + r"\s+(?i:been)|['’]m|\s+(?i:am))?"
#: Having something, after the subject: "I have", "we've got", "I got" (the partner and pet rules, and
#: :func:`assistant.memory.language.rules.extract`'s object that shares it).
HAS = K(r"(?:['’]ve|\s+have)(?:\s+got)?|\s+got")
#: A new job said by its start, up to its employer: "I started at", "I've just started working at".
_STARTED_AT = SUBJ + PERF + ADV + K(r"\s+(?:started|began)\s+(?:work(?:ing)?\s+)?at\s+")
ROLE = r"(?P<role>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,4}?)"
_ROLE_END = r"(?=\s+(?i:at|for|in|with|since|on|the week|because|and|but|from)\b|\s*[,.;!?]|$|\s*" + EMOJI + ")"
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


#: A home ("a flat in Redland", "the old farmhouse in Naumburg"), its place named.
_DWELLING = (K(r"(?:(?:an?|the|my|our)\s+)?(?:(?:new|old|little|small|tiny|big|lovely)\s+)?(?:flat|house|apartment|place|home|cottage|farmhouse"
                r"|cabin|bungalow|condo|townhouse)") + r"(?:\s+(?i:on|at)\s+[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})?"  # "on Avenida Grecia"
            + K(r"\s+in\s+") + THE + PN())


_POSSESSIVE = re.compile(r"['’]s(?:\s.*)?$")  # "Duarte's", "Euclides's 70th": whose, not the name


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


_NAME_END = r"(?![\w'’-])(?!\s+(?i:friend|boss|colleague|neighbou?r|mate)\b)(?=\s*(?:[,.;:!?()]|$|\s(?i:and|but|who|he|she|so|now)\b|\s\W))"


def _named(m: re.Match[str]) -> tuple[str, str] | None:
    """A relation's name said with "is" (the two rules above): its slot and fact, None when the name is a word."""
    if m["x"].casefold() in english_words():
        return None
    if m["rel"]:
        return "partner", f"User's {m['rel']} is {m['x']}."
    return f"family.{m['frel'].lower()}", f"User's {m['frel']} is {m['x']}."


def _slot_rules() -> list[tuple[re.Pattern, object]]:
    """(pattern, build) pairs: ``build(match)`` gives the (slot, fact) the match states, several of
    them ("a nurse at the Royal Infirmary": a job title and where they work), or None when a second
    look says the match states none ("I'm Roman Catholic")."""
    R: list[tuple[str, object]] = [
        (K(r"\bmy name(?:['’]s| is)\s+") + PN(), lambda m: ("name", f"User's name is {m['x']}.")),
        (K(r"\bcall me\s+") + PN() + _END, lambda m: ("name", f"User's name is {m['x']}.")),
        # an introduction by full name, or by name and age: "I'm Matilde Brandt, I turned 47", "I'm Ana, 34, and ..."
        (_IM + r"\s+(?P<x>[A-Z][\w'’-]+\s+[A-Z][\w'’-]+|[A-Z][\w'’-]+(?=,\s*\d{1,3}\b))(?=\s*(?:[,.!;]|$))",  # not "Roman Catholic"
         lambda m: None if any(w.casefold() in known_words() for w in m["x"].split()) else ("name", f"User's name is {m['x']}.")),
        (r"^" + K(r"(?:hi|hello|hey)") + r"[,!]?\s+" + _IM + r"\s+" + PN() + r"(?=\s*(?:[,.!]|$))",
         lambda m: ("name", f"User's name is {m['x']}.")),
        (SUBJ + AUX + ADV + K(r"\s+(?:live|living|reside|residing)\s+in\s+") + THE + PN(),
         lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        (SUBJ + PERF + ADV + K(r"\s+(?:moved|relocated)(?:\s+back)?") + r"(?:" + K(r"\s+from\s+") + PN("f") + ")?"
         + K(r"\s+to\s+") + THE + PN(), lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        # "just moved into a flat in Redland", "we finally got the keys to the old farmhouse in Naumburg": a home of
        # their own in a named place; "our new flat in Amager" too
        (r"(?:\b[Ii]\b|\b[Ww]e\b|\b(?i:and)\b)" + PERF + ADV + K(r"\s+(?:moved\s+into|got\s+the\s+keys\s+(?:to|for)|signed\s+(?:the\s+)?lease\s+(?:on|for))\s+")
         + _DWELLING, lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        (K(r"\b(?:my|our)\s+new\s+") + _DWELLING, lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        # "got a flat in Inverness!!" (the subject left out), "found a house in Ghent": a home got; "rent for my flat in Oban":
        # a home of theirs in a named place (not "my old flat in ...")
        (r"(?:\b[Ii]\b|\b[Ww]e\b|\b(?i:and)\b|^)" + PERF + ADV + K(r"\s*(?:got|found|bought)\s+(?=(?:an?|the|our|my)\s)") + _DWELLING + r"\b(?!\s+(?i:for)\b)",  # not "for my mum", "for the weekend"
         lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        (K(r"\b(?:my|our)\s+(?:(?:little|small|tiny|big|lovely)\s+)?(?:flat|house|apartment|cottage)\s+in\s+") + THE + PN(),
         lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        # "Thiago and I now share a flat in Delfshaven", "we're renting a cottage in Kinsale": where they live
        (r"(?:\b[Ii]\b|\b[Ww]e\b)" + AUX + ADV + K(r"\s+(?:share|sharing|rent|renting)\s+") + _DWELLING + r"\b(?!\s+(?i:for|over)\s+(?:the|a|two|three)\b)",  # not a holiday's
         lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        # "the removal van dropped the last of our boxes at the new place in Amager": the new home, in a clause of their own
        # (or where they are, in a clause of no one else: "first night in the new flat in Almaty")
        (r"(?!.*\b(?i:he|she|they|his|her|their)\b)(?!.*\b(?i:my|our)\s+(?:\w+\s+)?(?i:" + PERSON[3:-1] + r")\b)"
         r"(?=.*\b(?:our|my|we|I)\b|.*\b(?i:in|at|into)\s+the\s+new\b)" + K(r".*?\bthe\s+new\s+")
         + _DWELLING, lambda m: ("home_city", f"User lives in {_the(m)}{m['x']}.")),
        (_IM + K(r"\s+(?:originally\s+)?from\s+") + THE + PN(), lambda m: ("hometown", f"User is from {_the(m)}{m['x']}.")),
        (SUBJ + K(r"\s+grew up in\s+") + THE + PN(), lambda m: ("hometown", f"User grew up in {_the(m)}{m['x']}.")),
        (SUBJ + K(r"\s+was born in\s+") + r"(?!\d|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b)" + THE + PN(),  # not "born in 1987"
         lambda m: ("hometown", f"User was born in {_the(m)}{m['x']}.")),
        (SUBJ + AUX + ADV + K(r"\s+work(?:ing)?\s+(?P<p>at|for)\s+") + THE + PN(),
         lambda m: ("employer", f"User works {m['p'].lower()} {_the(m)}{m['x']}.")),
        # "I work as a court stenographer for the Multnomah County Circuit Court", "I work in the ICU at the QEUH"
        (SUBJ + AUX + ADV + K(r"\s+work(?:ing)?\s+(?:as|in|on)\s+") + r"(?:[\w'’&-]+\s+){1,5}?" + K(r"(?P<p>at|for)\s+") + THE + PN(),
         lambda m: ("employer", f"User works {m['p'].lower()} {_the(m)}{m['x']}.")),
        (SUBJ + ADV + K(r"\s+(?:got|started|began|accepted)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:job|position|role)\s+(?:at|with)\s+") + THE + PN(),
         lambda m: ("employer", f"User works at {_the(m)}{m['x']}.")),
        # "I've accepted a job as logistics coordinator at Van Dijk Shipping": the new job's title and employer
        (SUBJ + PERF + ADV + K(r"\s+(?:got|accepted|took|landed|was\s+offered)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:job|position|role)\s+as\s+")
         + r"(?P<art>(?i:an?)\s+)?" + ROLE + K(r"\s+(?:at|with)\s+") + THE + PN(),
         lambda m: [("job_title", f"User works as {(m['art'] or '')}{m['role']}."), ("employer", f"User works at {_the(m)}{m['x']}.")]),
        # "I start on 1 June as piano technician at the uni's Reid School of Music": a new job said by its start, as ... at ...
        (SUBJ + PERF + ADV + K(r"\s+(?:start|starts|started|begin|began)\s+(?:on\s+[^,.;!?]{1,25}?\s+|in\s+[^,.;!?]{1,15}?\s+|next\s+\w+\s+)?as\s+")
         + r"(?P<art>(?i:an?)\s+)?" + ROLE + K(r"\s+(?:at|with|for)\s+") + r"(?:(?i:the)\s+[a-z]+['’]s\s+)?" + THE + PN(),
         lambda m: [("job_title", f"User works as {(m['art'] or '')}{m['role']}."), ("employer", f"User works at {_the(m)}{m['x']}.")]),
        # "I got the night operations lead job at the Llullaillaco Array": the title said before "job"
        (SUBJ + PERF + ADV + K(r"\s+(?:got|accepted|took|landed)\s+(?:a\s+|the\s+)(?:new\s+)?") + r"(?!new\b|job\b)" + ROLE
         + K(r"\s+(?:job|position|role)\s+(?:at|with)\s+") + THE + PN(),
         lambda m: [("job_title", f"User works as {m['role']}."), ("employer", f"User works at {_the(m)}{m['x']}.")]),
        # "first day at ribeira", "my first full week at Kastrup is done": a new job said by its first days (not "Tobi's first day at ...")
        # "first day as hatchery manager": the new job's title said by its first days
        (r"(?<!['’]s )(?<!\bhis )(?<!\bher )(?<!\btheir )" + K(r"\b(?:my\s+)?first\s+(?:full\s+)?(?:day|week|shift)\s+as\s+(?P<art>an?\s+|the\s+)?")
         + ROLE + r"(?:" + _ROLE_END + r"|(?=\s+(?i:done|over|complete|finished|went|was|is|today|yesterday)\b))"
         + r"(?:" + K(r"\s+(?:at|for|with)\s+") + THE + PN() + ")?",  # "... at Fjord1": the employer too
         lambda m: [("job_title", f"User works as {(m['art'] or '')}{m['role']}.")] + ([("employer", f"User works at {_the(m)}{m['x']}.")] if m["x"] else [])),
        (r"(?<!['’]s )(?<!\bhis )(?<!\bher )(?<!\btheir )" + K(r"\b(?:my\s+)?first\s+(?:full\s+)?(?:day|week|shift)\s+(?:at|with)\s+") + THE + PN(),
         lambda m: ("employer", f"User works at {_the(m)}{m['x']}.")),
        # "as of today I'm officially the sole owner of Frost & Grain": a business of their own is where they work
        (_IM + ADV + r"\s+(?P<o>" + K(r"(?:the\s+|an?\s+)?(?:(?:sole|proud|new|co|joint)[\s-]+)?(?:owner|co-?owner)") + r")" + K(r"\s+of\s+") + THE + PN(),
         lambda m: ("employer", f"User works at {_the(m)}{m['x']} as {m['o']}.")),
        # "I started at the Port of Leixões last Monday as a flood-risk analyst": a new job's employer and title
        (_STARTED_AT + THE + PN(),
         lambda m: ("employer", f"User works at {_the(m)}{m['x']}.")),
        # "started at a cabinet-making studio called Oakline"
        (_STARTED_AT + K(r"(?:an?|the)\s+") + r"(?:[\w-]+\s+){1,3}?"
         + K(r"(?:called|named)\s+") + PN(), lambda m: ("employer", f"User works at {m['x']}.")),
        (_STARTED_AT + r"(?:the\s+)?" + PN("e")
         + r"[^.;!?]{0,40}?" + K(r"\s+as\s+(?P<art>an?\s+)?") + ROLE + _ROLE_END,
         lambda m: ("job_title", f"User works as {(m['art'] or '').strip() + ' ' if m['art'] else ''}{m['role']}.")),
        (SUBJ + ADV + K(r"\s+work\s+as\s+(?P<art>an?\s+)?") + ROLE + _ROLE_END,
         lambda m: ("job_title", f"User works as {(m['art'] or '').strip() + ' ' if m['art'] else ''}{m['role']}.")),
        (_IM + r"\s+(?P<art>an?)\s+" + ROLE + K(r"\s+(?:at|for)\s+") + THE + PN(),  # "a nurse at the Royal Infirmary": job and where
         lambda m: [("job_title", f"User is {m['art']} {m['role']} at {_the(m)}{m['x']}."), ("employer", f"User works at {_the(m)}{m['x']}.")]),
        (SUBJ + ADV + K(r"\s+(?:got|was|have been|['’]ve been|just got)\s+promoted\s+to\s+") + ROLE + _ROLE_END
         + r"(?:" + K(r"\s+(?:at|in)\s+") + PN() + ")?",
         lambda m: ("job_title", f"User was promoted to {m['role']}" + (f" at {m['x']}." if m["x"] else "."))),
        (K(r"\bmy\s+") + K(_REL_PARTNER) + K(_NAMED) + PN(), lambda m: ("partner", f"User's {m['rel']} is {m['x']}.")),
        # "Diego and I have been together almost three years", "Lucía and I are officially a couple": a partner by what they are
        (PN() + K(r"\s+and\s+I(?:['’]ve been|\s+have been|['’]re|\s+are)") + ADV + K(r"\s+(?:together|a\s+couple|dating|an\s+item)\b"),
         lambda m: ("partner", f"User's partner is {m['x']}.")),
        (SUBJ + K(r"(?:['’]m|\s+am|\s+got|\s+recently got)\s+(?P<st>married|engaged)\s+to\s+") + PN(),
         lambda m: ("partner", f"User is {m['st'].lower()} to {m['x']}.")),
        (K(r"\bmy\s+") + K(_REL_FAMILY) + K(_NAMED) + PN(),  # "our cousin Duarte's (birthday)": Duarte
         lambda m: (f"family.{m['rel'].lower()}", f"User's {m['rel']} is {_POSSESSIVE.sub('', m['x'])}.")),
        # "My boyfriend is Tobias.", "Tobias is my boyfriend", "Ingrid is my sister": the relation and its name said with
        # "is" (a word the English lexicon knows is no name: "my husband is English")
        (K(r"\bmy\s+") + r"(?:" + K(_REL_PARTNER) + r"|" + K(_REL_FAMILY).replace("?P<rel>", "?P<frel>") + r")"
         + K(r"\s+is\s+") + PN() + _NAME_END, _named),
        (r"(?<![\w'’])" + PN() + K(r"\s+is\s+my\s+") + r"(?:" + K(_REL_PARTNER) + r"|" + K(_REL_FAMILY).replace("?P<rel>", "?P<frel>")
         + r")" + _NAME_END, _named),
        # "I have a brother called Ravi", "I've got a sister, Ana": the relation with its name
        (SUBJ + K(r"(?:\s+have|['’]ve|\s+have got|['’]ve got|\s+got)\s+(?:an?|one)\s+") + K(_REL_FAMILY) + K(r"(?:,| called| named)\s+") + PN(),
         lambda m: (f"family.{m['rel'].lower()}", f"User's {m['rel']} is {m['x']}.")),
        (SUBJ + HAS + K(r"\s+(?:an?)\s+") + K(_REL_PARTNER) + K(r"(?:,| called| named)\s+") + PN(),
         lambda m: ("partner", f"User's {m['rel']} is {m['x']}.")),
        (SUBJ + ADV + r"(?:" + HAS + r"|" + K(r"\s+adopted|\s+own") + r")" + K(r"\s+(?:an?|one|my)\s+") + _PET
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


SLOT_RULES = _slot_rules()
_PARTNER_WORD = re.compile(K(_REL_PARTNER) + "$")
_FAMILY_WORD = re.compile(K(_REL_FAMILY) + "$")


def relation_slot(rel: str) -> str | None:
    """The profile slot of a relation word: "husband" -> "partner", "brother" -> "family.brother";
    None for others (a friend, a neighbour, a cat)."""
    r = rel.strip()
    if _PARTNER_WORD.match(r):
        return "partner"
    return f"family.{r.lower()}" if _FAMILY_WORD.match(r) else None

