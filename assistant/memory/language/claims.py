"""Claims: what a memory asserts about the person, as (relation, value), so that an update can
find every copy of the value it replaces and paraphrases can be recognised as one fact. Pure,
no I/O.

    claims("User lives in Beijing, near the Drum Tower.")  -> (Claim("home_city", {"beijing"}),)
    claims("I sold my bike, I take the train to work now") -> (Claim("commute", {"train"}, change=True),
                                                             Claim("*", {"bicycle"}, ended=True))

**Subject.** Only statements about the person count. Verbatim episodes say "I"/"my"; extracted
facts say "User"/"User's" (or "The user"); some say the person's own name ("Dana has a dog").
:func:`canonical_subject` rewrites all of them to "I"/"my" first (the name comes from the
``name`` profile slot: :func:`person_names`), so one set of first-person patterns reads all
three. "My sister lives in Beijing" states nothing about where the person lives.

**Relations** (:data:`SINGLE_VALUED`): the person has one value at a time -- home city,
employer, job title, partner, commute mode, diet, car, a favourite *thing*. A statement of a
new value is a *change* when it says so ("moved to", "now", "switched", "these days").

**Ended values**: "I quit my job at Tesco", "I no longer eat meat", "I sold my bike", "I
stopped cycling", "I don't drink coffee anymore", "I switched from Vim to Emacs" (Vim ended),
"I moved from Berlin to Lisbon" (Berlin ended). An ended claim's value is the *head* of what
ended: its proper nouns if it has any, else its content words without light verbs ("eat meat"
-> {"meat"}). Relation ``*`` when no relation pattern names it.

**Values** are normalised word sets: casefolded, crude stems, and a few synonyms that name one
thing (bike/bicycle/cycle/cycling -> "bicycle", drive/car -> "car", walk/foot -> "walk").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import Iterable

from assistant.memory.language.text import STOP_WORDS, _stem

ANY = "*"

# Relations that hold one value at a time (an update retires the old value).
SINGLE_VALUED = frozenset({"home_city", "employer", "job_title", "partner", "commute", "diet", "car"})

# Profile slot names (as capture or a person names them) -> the relation they hold.
SLOT_RELATION = {
    **dict.fromkeys(("home", "home_city", "city", "location", "address", "home_address", "residence", "lives_in"), "home_city"),
    **dict.fromkeys(("employer", "company", "workplace", "works_at"), "employer"),
    **dict.fromkeys(("job", "job_title", "occupation", "role", "position", "title", "profession"), "job_title"),
    **dict.fromkeys(("partner", "spouse", "husband", "wife", "girlfriend", "boyfriend"), "partner"),
    "diet": "diet",
}  # fmt: skip

NAME_SLOTS = frozenset({"name", "full_name", "first_name", "preferred_name", "nickname", "user_name"})


@dataclass(frozen=True)
class Claim:
    """``relation`` (or ``*``), normalised ``value`` words; ``ended``: the statement says the value
    stopped; ``change``: it presents itself as an update ("moved to", "now")."""

    relation: str
    value: frozenset[str]
    ended: bool = False
    change: bool = False

    @property
    def single_valued(self) -> bool:
        return self.relation in SINGLE_VALUED or self.relation.startswith("favourite.")


# ----------------------------------------------------------------------------- normalising

_SYNONYMS = {
    "bike": "bicycle", "bicycle": "bicycle", "cycle": "bicycle", "cycl": "bicycle", "cycling": "bicycle",
    "biking": "bicycle", "bik": "bicycle", "ebike": "bicycle", "e-bike": "bicycle", "cyclist": "bicycle",
    "drive": "car", "driv": "car", "drove": "car", "car": "car", "walk": "walk", "foot": "walk",
    "underground": "metro", "subway": "metro", "tube": "metro", "metro": "metro",
    "vegetarian": "vegetarian", "veggie": "vegetarian",
}  # fmt: skip
# verbs that carry no topic of their own ("eat meat" is about meat)
_LIGHT = frozenset(
    """eat drink play use go do have take ride get make keep buy own ownership wear watch read listen
    going doing having taking using playing eating drinking riding getting making anymore longer more
    again now together regularly every day week weekend morning evening night old new little big small first
    second last beloved trusty lovely favourite favorite""".split()
)  # fmt: skip


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'")


def norm_word(word: str) -> str:
    low = word.casefold().strip("'-")
    if low in _SYNONYMS:
        return _SYNONYMS[low]
    stem = _stem(low)
    return _SYNONYMS.get(stem, stem)


def proper_word(word: str) -> str:
    """A proper noun as a value: casefolded, without surrounding punctuation, never stemmed."""
    return word.casefold().strip(".,;:!?'’\"()")


def value_words(phrase: str, *, light: bool = True) -> frozenset[str]:
    """Normalised content words of ``phrase`` (stop words out; light verbs out too if ``light``)."""
    out = set()
    for w in re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", phrase):
        low = w.casefold()
        if low in STOP_WORDS or (light and low in _LIGHT) or low in ("i", "my"):
            continue
        n = norm_word(low)
        if not (light and n in _LIGHT):
            out.add(n)
    return frozenset(out)


def head_words(phrase: str) -> frozenset[str]:
    """What a phrase is about: its proper nouns if it has any (not sentence-initial), else its
    content words without light verbs."""
    props = [w for i, w in enumerate(re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", phrase))
             if w[:1].isupper() and w not in ("I", "I'm") and (i > 0 or w.casefold() not in STOP_WORDS)]  # fmt: skip
    if props:
        return frozenset(proper_word(p) for p in props)
    return value_words(phrase)


# ----------------------------------------------------------------------------- the person

_NAME_VALUE = re.compile(r"(?:name is|name's|called|named|call me|I'm|I am)\s+(?P<n>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})")


def person_names(name_texts: Iterable[str]) -> tuple[str, ...]:
    """The person's names from the texts of their ``name`` slot records ("User's name is Dana
    Reyes." -> ("Dana Reyes", "Dana")), longest first."""
    names: set[str] = set()
    for text in name_texts:
        m = _NAME_VALUE.search(fold(text))
        if m is None:
            continue
        full = m["n"].strip()
        if full.casefold() in ("user", "the user"):
            continue
        names.add(full)
        names.add(full.split()[0])
    return tuple(sorted(names, key=lambda n: (-len(n), n)))


@lru_cache(maxsize=256)
def _subject_re(names: tuple[str, ...]) -> re.Pattern[str]:
    alts = ["[Tt]he user", "User"] + [re.escape(n) for n in names]
    return re.compile(r"\b(?:" + "|".join(alts) + r")(?P<poss>['’]s\b)?")


def canonical_subject(text: str, names: tuple[str, ...] = ()) -> str:
    """``text`` with the person as "I"/"my" ("Dana's dog" -> "my dog", "User lives" -> "I lives").
    A clause quoted in the person's words with a subject of its own ("User: Noé calls me 'Lu' now
    instead of Lukas.") keeps it: the label is no "I"."""
    return _subject_re(tuple(names)).sub(lambda m: "my" if m["poss"] else "I", fold(_HOUSEHOLD.sub("We", _QUOTED.sub("", text))))


# the label of a quoted clause with its own subject ("User: Noé calls me 'Lu' now", "User: she runs ..."); a
# clause without one is the person's ("User: Moved to Leeds last week.")
_HOUSEHOLD = re.compile(r"\bUser['’]s household\b")  # "User's household moved ...": "We moved ..."
_QUOTED = re.compile(r"^User:\s+(?=[A-Z][\w'’-]+\s+(?:is|was|has|had|[a-z]+s|[a-z]+ed)\b|(?:[Hh]e|[Ss]he|[Tt]hey|[Ii]t)\b)")


def canonical_text(text: str, names: tuple[str, ...] = ()) -> str:
    """``text`` with the person as "User" (for comparing paraphrases: "Dana has a dog named Miso."
    and "User has a dog named Miso." become the same text)."""
    return _subject_re(tuple(names)).sub(lambda m: "User's" if m["poss"] else "User", fold(text))


# ----------------------------------------------------------------------------- patterns

_I = r"\bI(?:['’](?:m|ve|ll|d))?"
_WE = r"\b(?:I|[Ww]e)(?:['’](?:m|ve|re|ll|d))?"  # a home is the household's: "we moved to Bath"
_ADV = r"(?:\s+(?:also|just|recently|now|still|currently|actually|really|finally|already|officially|usually|mostly|normally|always|happily))*"
_BE = r"(?:['’]m|\s+am|\s+is|\s+are)"
_PN = r"(?P<v>[A-Z][\w'’&.-]*(?:\s+(?:[A-Z][\w'’&.-]*|de|da|do|di|du|del|la|le|van|von|der|of|on|upon|am)(?=\s+[A-Z]|\b))*)"
_PHRASE = r"(?P<v>[^,.;:!?()]+?)"
_END = r"(?=\s*(?:[,.;:!?()]|$|\s(?:because|but|since|so|and|which|who|when|though|although|anymore|any more|now|these days|nowadays)\b))"
_NOW = re.compile(r"\b(?:now|nowadays|these days|anymore|any more|instead|switched|changed|moved|relocated|since)\b", re.I)
_MODES = r"bike|bicycle|e-?bike|cycle|train|tram|bus|metro|subway|underground|tube|car|taxi|scooter|ferry|boat|foot|motorbike|motorcycle"

_PETS = r"dog|puppy|cat|kitten|hamster|rabbit|bunny|parrot|budgie|bird|fish|goldfish|turtle|tortoise|snake|lizard|gecko|horse|pony|ferret"

# (relation, pattern, kind): kind "value" (a current value), "change" (a new value, an update),
# "ended" (the value stopped)
_RULES: list[tuple[str, str, str]] = [
    ("home_city", _WE + _ADV + r"\s+(?:lives?|living|resides?|(?:am|is|['’]m)\s+(?:living|based|settled))\s+in\s+(?:the\s+)?" + _PN, "value"),
    ("home_city", _WE + _ADV + r"\s+(?:has\s+|have\s+|['’]ve\s+)?(?:just\s+)?(?:moved|relocated)(?:\s+back)?(?:\s+from\s+(?:the\s+)?(?P<f>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*))?\s+to\s+(?:the\s+)?" + _PN, "change"),
    ("home_city", _WE + _ADV + r"\s+(?:have\s+|['’]ve\s+|has\s+)?(?:just\s+|finally\s+|officially\s+)*moved\s+into\s+(?:a|an|the|our|my)\s+(?:new\s+)?(?:[\w-]+\s+){0,2}?(?:house|flat|apartment|home|place)\s+in\s+(?:the\s+)?" + _PN, "change"),
    ("home_city", _WE + _ADV + r"\s+(?:(?:have\s+|has\s+)?been\s+|are\s+|am\s+|is\s+)?(?:renting|rent|rents|own|owns)\s+(?:a|an|the|our|my)\s+(?:[\w-]+\s+){0,2}?(?:flat|house|apartment|home|place|room)\s+in\s+(?:the\s+)?" + _PN, "value"),
    ("home_city", r"\b[Mm]y\s+(?:home|place|flat|apartment|house)\s+is\s+in\s+(?:the\s+)?" + _PN, "value"),
    ("employer", _I + _ADV + r"\s+(?:works?|working|(?:am|is|['’]m)\s+(?:working|employed))\s+(?:at|for)\s+(?:the\s+)?" + _PN, "value"),
    ("employer", _I + _ADV + r"\s+works?\s+as\s+(?:an?\s+)?(?:[\w-]+\s+){1,4}?(?:at|for)\s+(?:the\s+)?" + _PN, "value"),
    ("employer", _I + _ADV + r"\s+(?:handed|hand|gave|give|am\s+handing|['’]m\s+handing)\s+(?:in\s+)?(?:my\s+)?(?:notice|resignation)\s+(?:at|to)\s+" + _PN, "ended"),
    ("employer", _I + _ADV + r"\s+(?:got|started|starts?|began|accepted|took)\s+(?:a\s+|my\s+|the\s+)?(?:new\s+)?(?:job|position|role|offer)\s+(?:at|with)\s+" + _PN, "change"),
    ("employer", _I + _ADV + r"\s+(?:joined|joins?)\s+" + _PN, "change"),
    ("employer", _I + _ADV + r"\s+(?:quit|left|leaves?|(?:am|is|['’]m)\s+leaving)\s+(?:my\s+(?:job|position|role)\s+(?:at|with)\s+)?" + _PN, "ended"),
    ("employer", _I + _ADV + r"\s+(?:no\s+longer|don['’]t|doesn['’]t|do\s+not|does\s+not)\s+works?\s+(?:at|for)\s+" + _PN, "ended"),
    ("home_city", _WE + _ADV + r"\s+(?:no\s+longer|don['’]t|doesn['’]t|do\s+not|does\s+not)\s+(?:live|reside)\s+in\s+(?:the\s+)?" + _PN, "ended"),
    # "We left the flat in Bonfim", "I moved out of my place in Leith": the home that ended
    ("home_city", _WE + _ADV + r"\s+(?:have\s+|['’]ve\s+|has\s+)?(?:left|moved\s+out\s+of)\s+(?:a|an|the|our|my)\s+(?:old\s+)?(?:[\w-]+\s+){0,2}?(?:house|flat|apartment|home|place)\s+in\s+(?:the\s+)?" + _PN, "ended"),
    ("job_title", _I + _ADV + r"\s+works?\s+as\s+(?:an?\s+)?" + _PHRASE + r"(?=\s+(?:at|for|in|with|since)\b|" + _END[3:], "value"),
    ("job_title", _I + _BE + _ADV + r"\s+(?:an?)\s+" + r"(?P<v>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+(?:at|for)\s+[A-Z]", "value"),
    ("job_title", _I + _ADV + r"\s+(?:was|got|has\s+been|have\s+been|['’]ve\s+been)\s+promoted\s+to\s+(?:an?\s+)?" + _PHRASE + _END, "change"),
    ("partner", r"\b[Mm]y\s+(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse)(?:['’]s name is|\s+is|['’]s)\s+(?:called\s+|named\s+)?" + _PN, "value"),
    ("partner", _I + _BE + _ADV + r"\s+(?:married|engaged)\s+to\s+" + _PN, "value"),
    ("partner", r"\b[Mm]y\s+(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse)\s+(?-i:" + _PN + r")(?=\s+(?:and|is|was|has|had|will|would|who|,)|[.!?,]|$)", "value"),
    ("partner", _I + _BE + _ADV + r"\s+(?:dating|seeing|with)\s+" + _PN, "value"),
    ("partner", _I + _ADV + r"\s+(?:broke\s+up|split\s+up|separated)\s+(?:with|from)\s+" + _PN, "ended"),
    ("partner", _I + _ADV + r"\s+(?:divorced)\s+" + _PN, "ended"),
    # "Diego and I have been together almost three years" / "Diego and I broke up last weekend": said of the two
    ("partner", _PN + r"\s+and\s+I(?:['’]ve\s+been|\s+have\s+been|['’]re|\s+are)" + _ADV + r"\s+(?:together|a\s+couple|dating|an\s+item)\b", "value"),
    ("partner", _PN + r"\s+and\s+I" + _ADV + r"\s+(?:have\s+|['’]ve\s+)?(?:broke\s+up|split\s+up|separated|(?:got\s+)?divorced)\b", "ended"),
    ("commute", _I + _ADV + r"\s+(?P<v>(?:cycles?|bikes?|walks?|drives?|(?:takes?|rides?|catch(?:es)?|gets?|uses?)\s+(?:a|an|the|my)?\s*(?:" + _MODES + r")s?|goes\s+by\s+(?:" + _MODES + r")|go\s+by\s+(?:" + _MODES + r")|commutes?\s+by\s+(?:" + _MODES + r")))\b[^,.;!?]{0,30}?\s+to\s+(?:work|the\s+office|my\s+office|my\s+job|school|uni|university|campus)\b", "value"),
    ("commute", _I + _ADV + r"\s+commutes?\s+(?:to\s+work\s+)?by\s+(?P<v>" + _MODES + r")\b", "value"),
    ("pet", _I + _ADV + r"\s+(?:has|have|got|adopted|owns?)\s+(?:an?|one|my)\s+(?P<kind>" + _PETS + r")\s+(?:named|called)\s+" + _PN, "value"),
    ("pet", r"\b[Mm]y\s+(?P<kind>" + _PETS + r")(?:['’]s\s+name\s+is|\s+is\s+called|\s+is\s+named|\s+named|\s+called|,)\s+" + _PN, "value"),
    ("diet", _I + _BE + _ADV + r"\s+(?:an?\s+)?(?:strict\s+)?(?P<v>vegetarian|vegan|pescatarian|pescetarian)\b", "value"),
    ("diet", _I + _BE + r"\s+no\s+longer\s+(?:an?\s+)?(?P<v>vegetarian|vegan|pescatarian|pescetarian)\b", "ended"),
    ("car", _I + _ADV + r"\s+(?:drives?|owns?)\s+an?\s+(?P<v>[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*)*)", "value"),
    ("favourite", r"\b[Mm]y\s+(?:all[- ]time\s+)?favou?rite\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s+(?:is|are|['’]s)\s+(?:now\s+)?" + _PHRASE + _END, "value"),
    # ended, no relation named: "I sold my bike", "I stopped cycling", "I no longer drink coffee"
    (ANY, _I + _ADV + r"\s+(?:sold|sells?|got\s+rid\s+of|gave\s+away|gives?\s+away|donated|returned)\s+(?:my|our|the|an?)\s+" + _PHRASE + r"(?=\s+(?:to|for)\s+|" + _END[3:], "ended"),
    (ANY, _I + _ADV + r"\s+(?:stopped|stops|quit|quits|gave\s+up|gives?\s+up|(?:have|has|['’]ve)\s+(?:stopped|quit|given\s+up)|(?:have\s+|has\s+|['’]ve\s+)?decided\s+to\s+(?:stop|quit|give\s+up))\s+" + _PHRASE + _END, "ended"),
    (ANY, _I + _BE + r"?\s*(?:no\s+longer|not\s+(?:\w+ing\s+)?anymore)\s+" + _PHRASE + _END, "ended"),
    (ANY, _I + _ADV + r"\s+(?:don['’]t|doesn['’]t|do\s+not|does\s+not|never)\s+" + _PHRASE + r"\s+(?:anymore|any\s+more)\b", "ended"),
    (ANY, _I + _ADV + r"\s+(?:switched|changed|moved|went|converted)\s+from\s+" + _PHRASE + r"\s+to\s+", "ended"),
    # "I run every morning now instead of swimming": the replaced habit or preference ended
    (ANY, _I + r"\b[^.;!?]*?\b(?:instead\s+of|rather\s+than)\s+" + _PHRASE + _END, "ended"),
]


@lru_cache(maxsize=1)
def _compiled() -> list[tuple[str, re.Pattern[str], str]]:
    """:data:`_RULES` compiled, on the first claim read: compiling these long patterns costs
    25-120 ms, which a process that imports this module only for :func:`person_names` (every
    search does) should not pay."""
    return [(rel, re.compile(p), kind) for rel, p, kind in _RULES]


_SOME_DAY = datetime(2000, 1, 3, tzinfo=timezone.utc)  # any day: only where date phrases are matters here


_GROUNDED = re.compile(r"\s(?:(?:on|since|from|until|in|the\s+week\s+of)\s+)?(?:(?:[A-Z][a-z]+\s+)?\d{4}(?:-\d\d-\d\d)?)\b")


def _undated(phrase: str) -> str:
    """``phrase`` without its date ("coffee yesterday" -> "coffee", "swimming on 2026-12-02" ->
    "swimming"): what ended is the thing, not when."""
    from assistant.memory.language.dates import find_spans  # its patterns: compiled with the first claim read

    spans = find_spans(phrase, _SOME_DAY)
    cut = spans[0].start if spans else len(phrase)
    grounded = _GROUNDED.search(phrase)  # a date capture already wrote out ("on 2026-12-02")
    if grounded is not None:
        cut = min(cut, grounded.start())
    return phrase[:cut].strip() if cut > 0 else phrase


def _commute_value(phrase: str) -> frozenset[str]:
    modes = re.findall(_MODES + r"|cycles?|bikes?|walks?|drives?", phrase, re.I)
    return frozenset(norm_word(m.rstrip("s") if m.lower() not in ("bus",) else m) for m in modes[:1])


_ELIDED = re.compile(r"\band\s+(?=(?:also\s+|now\s+)?(?:work|works|live|lives|moved|cycle|cycles|take|takes|drive|drives|"
                     r"ride|rides|walk|walks|commute|commutes|quit|sold|stopped|joined)\b)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|(?<=\w),\s+(?:but|and|so)\s+(?=I\b)")


_QUESTION = re.compile(r"\?\s*$|^\s*(?:do|does|did|am|is|are|was|were|should|shall|could|would|can|will|have|has|"
                       r"what|where|when|why|how|who|which|if|whether)\b", re.I)


def _statements(text: str) -> list[str]:
    """The sentences that state something (questions and conditionals dropped), with an elided
    subject restored: "I live in Porto and work as a nurse" -> "... and I work as a nurse" (only
    in a sentence whose subject is the person)."""
    out = []
    for sent in _SENTENCE.split(text):
        if not sent.strip() or _QUESTION.search(sent):
            continue
        out.append(_ELIDED.sub("and I ", sent) if re.match(r"\s*(?:\w+[,:]?\s+){0,3}I\b", sent) else sent)
    return out


@lru_cache(maxsize=65536)
def _claims(text: str) -> tuple[Claim, ...]:
    out: list[Claim] = []
    for sentence in _statements(text):
        out.extend(_sentence_claims(sentence))
    return tuple(dict.fromkeys(out))


def _sentence_claims(text: str) -> list[Claim]:
    out: list[Claim] = []
    change_cue = bool(_NOW.search(text))
    for rel, rx, kind in _compiled():
        for m in rx.finditer(text):
            phrase = m["v"].strip()
            relation = rel
            if rel == "favourite":
                relation = "favourite." + "_".join(value_words(m["thing"], light=False)) if m["thing"] else rel
                value = value_words(phrase, light=False)
            elif rel == "commute":
                value = _commute_value(phrase)
            elif rel == "job_title":
                value = value_words(phrase, light=False)
            elif rel == "diet":
                value = frozenset({norm_word(phrase.split()[-1])})
            elif rel == ANY:
                value = head_words(_undated(phrase))
            elif rel == "pet":
                value = frozenset({norm_word(m["kind"]), proper_word(phrase)})
            else:
                value = frozenset(proper_word(w) for w in phrase.split() if w[:1].isupper() or w[:1].isdigit())
            if not value:
                continue
            if kind == "ended":
                out.append(Claim(relation, value, ended=True))
                continue
            out.append(Claim(relation, value, change=kind == "change" or change_cue))
            if "f" in rx.groupindex and m["f"]:
                out.append(Claim(relation, frozenset(proper_word(w) for w in m["f"].split()), ended=True))
    return out


def claims(text: str, names: tuple[str, ...] = ()) -> tuple[Claim, ...]:
    """What ``text`` asserts about the person (see the module docstring); () if nothing."""
    return _claims(canonical_subject(text, names))


_ENDING = re.compile(
    r"\b(?:sold|sell|sells|selling|quit|quits|quitting|stopped|stop|stops|gave\s+up|give\s+up|gives\s+up|no\s+longer|"
    r"got\s+rid|gave\s+away|anymore|any\s+more|switched\s+from|moved\s+from|handed\s+in|donated|returned)\b", re.I)


def ends_something(text: str) -> bool:
    """Whether ``text`` tells of an ending (selling, quitting, stopping...): such a statement is
    never what another ending retires ("User sold a Kindle" and "I sold my Kindle" are one event)."""
    return bool(_ENDING.search(text))


def slot_relation(slot: str | None) -> str | None:
    """The relation a profile slot holds (``home`` -> ``home_city``), else the slot itself."""
    if not slot:
        return None
    s = slot.strip().casefold().replace(" ", "_")
    return SLOT_RELATION.get(s, s)


def about(text: str, head: frozenset[str], names: tuple[str, ...] = ()) -> bool:
    """Whether ``text`` is a statement about the person that mentions every word of ``head``
    (normalised as claims are: "I cycle to work" is about {"bicycle"})."""
    canon = canonical_subject(text, names)
    if not re.search(r"\b(?:I|my|me|mine)\b", canon):
        return False
    have = value_words(canon, light=False) | frozenset(norm_word(w) for w in re.findall(r"[^\W_]+", canon))
    return bool(head) and head <= have
