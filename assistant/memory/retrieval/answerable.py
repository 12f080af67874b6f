"""Could this memory answer this question? Checks that use what the question *asks* -- the
person's relation it names, the thing it asks a favourite of, the names in it -- and whether a
memory states anything at all, on top of the cosine threshold (issue 14: a question about
something never said returns no memory). Pure; no I/O: the retriever supplies what the store
knows through small callbacks.

1. **statement** (:func:`states_something`): an episode whose every sentence is a question or a
   request to the assistant ("Give me five tips for sleeping better", "What colours go well
   with sage green?") or a bare acknowledgement ("thanks!", "lol nice") says nothing about the
   person: it is no evidence for any question.
2. **relation** (:func:`asked_relation`): a question about the person's own relation ("my
   grandmother", "my dentist", "my cat", "do I have a brother") can only be answered if some
   memory says the person *has* that relation (:func:`has_relation`: "my mum", "User's
   sister", "Dana's dentist", "I have a cat", "Mum came to visit", "I'm an auntie" for a niece).
   The retriever asks the store once per question; when no memory does, nothing passes.
3. **favourite** (:func:`asked_favourite`): "what's my favourite colour?" is answered by a
   memory that names the thing (colour/color), not by another favourite.
4. **unknown name** (:func:`question_names`): a proper noun of the question that no memory
   contains ("Have I ever been to Brazil?") makes a match doubtful: only candidates at least
   ``NAME_COSINE`` close pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from assistant.memory.language.gloss import known
from assistant.memory.language.langid import detect
from assistant.memory.retrieval import vocabulary as V
from assistant.memory.retrieval.terms import content_words, synonyms, words as words_of

NAME_COSINE = 0.45
#: A statement this long says something on its own though it names no one and says no "I": the
#: person's message with its subject left out ("Honestly the best thing this year was finally
#: learning to make sourdough."); a shorter one leans on what was said before ("The phone one is
#: hard").
SELF_CONTAINED_WORDS = 8

# relation -> words that name it (a question naming any of them asks for the relation)
RELATIONS: dict[str, tuple[str, ...]] = {
    "mother": ("mother", "mum", "mom", "mummy", "mommy", "mama"),
    "father": ("father", "dad", "daddy", "papa"),
    "sister": ("sister", "sis"),
    "brother": ("brother", "bro"),
    "grandmother": ("grandmother", "grandma", "granny", "nan", "nana", "gran"),
    "grandfather": ("grandfather", "grandpa", "grandad", "granddad"),
    "aunt": ("aunt", "auntie", "aunty"),
    "uncle": ("uncle",),
    "cousin": ("cousin",),
    "niece": ("niece",),
    "nephew": ("nephew",),
    "son": ("son",),
    "daughter": ("daughter",),
    "child": ("child", "children", "kid", "kids"),
    "partner": ("partner", "wife", "husband", "spouse", "boyfriend", "girlfriend", "fiance", "fiancé", "fiancee", "fiancée",
                "other half", "better half", "hubby", "missus", "wifey"),
    "boss": ("boss", "manager", "supervisor", "line manager"),
    "colleague": ("colleague", "coworker", "co-worker"),
    "friend": ("friend", "bestie", "pal", "buddy", "mate"),
    "neighbour": ("neighbour", "neighbor"),
    "landlord": ("landlord", "landlady"),
    "dentist": ("dentist",),
    "doctor": ("doctor", "gp", "physician"),
    "vet": ("vet", "veterinarian"),
    "teacher": ("teacher", "tutor"),
    "coach": ("coach", "trainer", "personal trainer"),
    "therapist": ("therapist", "counsellor", "counselor"),
    "mother-in-law": ("mother-in-law",), "father-in-law": ("father-in-law",), "sister-in-law": ("sister-in-law",),
    "brother-in-law": ("brother-in-law",), "son-in-law": ("son-in-law",), "daughter-in-law": ("daughter-in-law",),
    "dog": ("dog", "puppy", "pup"),
    "cat": ("cat", "kitten"),
    "fish": ("fish", "goldfish"),
    "pet": ("pet",),
}  # fmt: skip
def _lexicon_words(english: tuple[str, ...]) -> tuple[str, ...]:
    """The single words of the other capture languages' lexicons glossed as one of ``english`` and
    no English word themselves ("cheffe", "jefa", "Chefin", "chefe" for the boss; not "chef")."""
    from assistant.memory.language.gloss import LANGS, english_words, lexicon

    wanted, known = set(english), english_words()
    return tuple(sorted({k[0] for lang in LANGS if lang != "zh" for k, en in lexicon(lang).forms.items()
                         if len(k) == 1 and en in wanted and k[0] not in known and k[0].isalpha()}))


for _rel, _words in V.RELATION_WORDS_INTL.items():
    RELATIONS[_rel] = tuple(dict.fromkeys(RELATIONS.get(_rel, ()) + _words))
for _rel in ("boss", "colleague", "neighbour", "landlord", "dentist", "doctor", "vet", "teacher", "coach", "therapist", "cousin",
             "aunt", "uncle", "niece", "nephew"):  # the lexicons know these in the other languages: read from them
    RELATIONS[_rel] = tuple(dict.fromkeys(RELATIONS[_rel] + _lexicon_words(RELATIONS[_rel])))
_ANIMALS = ("dog", "puppy", "pup", "cat", "kitten", "fish", "goldfish", "hamster", "rabbit", "bunny", "parrot", "budgie",
            "bird", "turtle", "tortoise", "snake", "lizard", "gecko", "horse", "pony", "guinea pig", "ferret")  # fmt: skip
_ROLES = frozenset({"boss", "colleague", "landlord", "dentist", "doctor", "vet", "teacher", "coach", "therapist"})
# what a memory may say instead: any animal is a pet; "I'm an auntie" means a niece or nephew
_ALSO_HAS: dict[str, tuple[str, ...]] = {"pet": _ANIMALS + V.DOG_KINDS + V.CAT_KINDS, "child": RELATIONS["son"] + RELATIONS["daughter"],
                                         "dog": V.DOG_KINDS, "cat": V.CAT_KINDS}  # a beagle is a dog
_IMPLIED_WORDS = {"niece": ("auntie", "aunty", "aunt", "uncle"), "nephew": ("auntie", "aunty", "aunt", "uncle")}
_IMPLIED = {
    "niece": r"\bI(?:['’]m| am| became| have become| is)\s+(?:an?\s+)?(?:auntie|aunty|aunt|uncle)\b",
    "nephew": r"\bI(?:['’]m| am| became| have become| is)\s+(?:an?\s+)?(?:auntie|aunty|aunt|uncle)\b",
}
_ALIAS = {a: rel for rel, names in RELATIONS.items() for a in names}
_ALIAS_RE = "|".join(sorted((re.escape(a) for a in _ALIAS), key=len, reverse=True))
_MOD = r"(?:[\w'’-]+\s+){0,3}?"
_POSS = "|".join(V.POSSESSIVES)
_Q_MY = re.compile(rf"\b(?:{_POSS})\s+{_MOD}(?P<rel>{_ALIAS_RE})(?:['’]s|s)?\b(?!-)", re.I)  # "mother-in-law" is not "mother"
_Q_HAVE = re.compile(rf"\b(?:do|did)\s+I\s+(?:have|own|keep)\s+(?:an?|any|one|a\s+\w+)?\s*(?P<rel>{_ALIAS_RE})s?\b", re.I)
_FAVOURITE = re.compile(r"\bfavou?rite\s+(?P<thing>[^\W\d_]+(?:\s+[^\W\d_]+)?)", re.I)
_DISLIKE = re.compile(r"\b(?:dislikes?|disliked|hates?|hated|can['’]?t stand|not|never|don['’]?t|doesn['’]?t|allergic|avoids?)\b", re.I)

_QUESTION_START = re.compile(
    r"^\s*(?:can|could|would|will|should|shall|do|does|did|is|are|was|were|am|have|has|what|what's|whats|how|why|which|who|"
    r"whom|where|when|give|write|recommend|suggest|make|summari[sz]e|explain|tell|show|help|list|translate|name|find|"
    r"describe|compare|create|generate|draft|fix|please|any|send|rewrite|rephrase|proofread|check|correct|convert|plan|"
    r"sketch|remind|calculate|pick|choose|imagine|pretend|let's|lets)\b",
    re.I,
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_PERSON = re.compile(r"\b(?:I|I['’]m|I['’]ve|I['’]d|I['’]ll|my|me|mine|myself|we|we['’]re|we['’]ve|our|us)\b", re.I)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_ACK = frozenset(
    """thanks thank you ty thx cheers ok okay great perfect nice cool lol haha yes no yeah yep nope sure right
    good awesome amazing wow oh ah hmm love it that this is the a so much very it works worked better best""".split()
)  # fmt: skip
_MONTHS_DAYS = frozenset(
    """january february march april may june july august september october november december monday tuesday
    wednesday thursday friday saturday sunday""".split()
)  # fmt: skip


@lru_cache(maxsize=32768)
def states_something(text: str) -> bool:
    """True when at least one sentence of ``text`` is a statement that says something: not a
    question, not a request to the assistant, not a bare acknowledgement, and it speaks of the
    person ("I", "my", "we"... in the six languages), names something, or has a number ("Something vegetarian." and
    "The phone one is hard" say nothing a question could be answered from)."""
    for sentence in _SENTENCES.split(text.strip()):
        s = sentence.strip().lstrip("'\"‘“«(").strip()
        if not s or s.endswith("?") or _QUESTION_START.match(s):
            continue
        words = _WORD.findall(s)
        if not words or all(w.casefold() in _ACK for w in words):
            continue
        if _PERSON.search(s) or any(ch.isdigit() for ch in s) or any(w[:1].isupper() and w not in ("I",) for w in words[1:]):
            return True
        # the person in another capture language ("ich", "nós", "我在格拉斯哥大学学中文")
        if any(w.casefold() in V.SELF_WORDS or w.casefold() in V.HOUSEHOLD_WORDS for w in words) or any(c in s for c in V.SELF_CHARS):
            return True
        if len(words) >= SELF_CONTAINED_WORDS:  # "Honestly the best thing this year was finally learning to make sourdough."
            return True
    return False


@dataclass(frozen=True)
class Asked:
    """What a question asks, as far as the checks need it."""

    relations: tuple[str, ...] = ()  # the person's relations it names ("grandmother")
    favourite: tuple[str, ...] = ()  # words of the thing it asks a favourite of ("colour")
    names: tuple[str, ...] = ()  # its proper nouns (folded)
    focus: tuple[str, ...] = ()  # its content words (folded)


def asked(question: str) -> Asked:
    """Parse ``question`` (see the module docstring)."""
    rels = [_ALIAS[m["rel"].casefold()] for rx in (_Q_MY, _Q_HAVE) for m in rx.finditer(question)]
    return Asked(tuple(dict.fromkeys(rels)), asked_favourite(question), question_names(question), focus_terms(question))


def asked_favourite(question: str) -> tuple[str, ...]:
    """The content words of the thing a favourite is asked of: after "favourite" ("favourite
    colour"), else right before it (a gloss keeps the word order of French, Spanish or
    Portuguese: "what is the colour favourite of my husband?")."""
    m = _FAVOURITE.search(question)
    if m is None:
        return ()
    after = content_words(m["thing"])
    if after:
        return tuple(after)
    before = content_words(question[: m.start()])
    return tuple(before[-1:])


_GENERIC = frozenset(
    """what what's whats which who whom whose where when why how does did have has had will would could should
    shall might must been being there here about into with from this that these those their them they your
    yours mine myself ever usually currently moment days kind sort type like likes love loves enjoy prefer
    most best much many some thing things time times name named called call tell know remember think want need
    make made take took used uses using happen happened happens going gone doing done still really right new old
    favourite favorite anything something everything else again today yesterday tomorrow week month year""".split()
)  # fmt: skip


def focus_terms(question: str) -> tuple[str, ...]:
    """The question's content words (folded, at least 4 letters, no question or generic words):
    "What vegetables do I grow at home?" -> ("vegetables", "grow", "home")."""
    out = []
    for w in _WORD.findall(question):
        low = w.casefold().replace("’", "'")
        low = low[:-2] if low.endswith("'s") else low
        if len(low) >= 4 and low not in _GENERIC and low not in _MONTHS_DAYS:
            out.append(low)
    return tuple(dict.fromkeys(out))


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "ied", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def same_word(a: str, b: str) -> bool:
    """Crude stem match: the same stem ("grow"/"grows"), or the first 5 letters of two words of
    at least 5 ("promotion"/"promoted", "travelling"/"travel")."""
    return _stem(a) == _stem(b) or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


_PAST = re.compile(r"\b(?:did|was|were|used to|before|previously|formerly|back then|originally|ago)\b", re.I)


_OTHERS = re.compile(r"\b(?:he|she|they|his|her|their|him|them)\b|\b[A-Z][a-z]+['’]s\b")


@lru_cache(maxsize=32768)
def about_the_person(text: str) -> bool:
    """``text`` (subject canonical) speaks about the person: it says "I"/"my"/"we", or it names
    no one else (a message with its subject left out: "Finally did intervals"), unlike "Tom's
    band played tonight" or "He played it three times"."""
    return bool(_PERSON.search(text)) or not _OTHERS.search(text)


def asks_past(question: str) -> bool:
    """A question in the past tense ("How long did my train ride take?"): what is no longer true
    may answer it (retired memories are searched too, labelled with their end date)."""
    return bool(_PAST.search(question))


def question_names(question: str) -> tuple[str, ...]:
    """Capitalised words that are not the first word, "I", a month, a day or a language ("Brazil",
    "Netflix"), nor, in German (which capitalises every noun), a word of its lexicon ("Beruf", "Arbeit")."""
    out = []
    german = detect(question) == "de"
    for i, m in enumerate(_WORD.finditer(question)):
        w = m.group(0)
        low = w.casefold()
        if i == 0 or not w[:1].isupper() or low in ("i", "i'm", "i’m", "i've", "i'd", "i'll") or low in _MONTHS_DAYS \
                or low in V.LANGUAGE_NAMES:  # "my Mandarin lesson": a language, no one
            continue
        if german and known(low, "de"):
            continue
        out.append(low[:-2] if low.endswith(("'s", "’s")) else low)
    return tuple(dict.fromkeys(out))


def relation_words(relation: str) -> tuple[str, ...]:
    """Every word a memory may use for ``relation`` ("pet": any animal)."""
    return RELATIONS.get(relation, (relation,)) + _ALSO_HAS.get(relation, ())


def lookup_words(relation: str) -> tuple[str, ...]:
    """Words to look the relation up by in the store (also what implies it: "auntie" -> niece)."""
    return relation_words(relation) + _IMPLIED_WORDS.get(relation, ())


@lru_cache(maxsize=256)
def _has_patterns(relation: str) -> tuple[re.Pattern[str], ...]:
    words = "|".join(re.escape(w) for w in sorted(relation_words(relation), key=len, reverse=True))
    pats = [
        rf"\b(?:{_POSS})\s+{_MOD}(?:{words})(?:s|es)?\b",
        rf"\b(?:I|[Ww]e|[Uu]ser(?:['’]s\s+household)?)(?:['’]ve)?(?:\s+\w+)?\s+(?:have|has|had|got|adopted|own|owns|owned|bought|rescued)(?:\s+got)?\s+(?:an?|one|two|three|my|our|a\s+new)?\s*{_MOD}(?:{words})s?\b",
        rf"\b(?:{words})s?\s+of\s+mine\b",
    ]
    if relation in _ROLES:  # "the teacher is from Valencia", "dentist (Dr. Sofia Pinheiro) says ...", "with a tutor
        # called Margaux": a particular person in the person's life
        # "found a new dombra teacher in almaty - Aruzhan": named after a dash or a comma too, a place between
        pats += [rf"\bthe\s+{_MOD}(?:{words})\b", rf"^(?:{words})\b",
                 rf"\ban?\s+{_MOD}(?:[\w-]+\s+)?(?:{words})(?:\s+(?:in|at|from)\s+[\w-]+)?(?:\s+(?:called|named)\s+|\s*[,–—-]\s*)(?-i:[A-Z])"]
    if relation in ("mother", "father", "grandmother", "grandfather"):
        pats.append(rf"(?:^|[.!?]\s+)(?-i:{'|'.join(w.capitalize() for w in relation_words(relation))})\b")
        # a pet name for them used as a name, anywhere: "Called Mum today" (not "Father Christmas")
        informal = [w.capitalize() for w in relation_words(relation) if w not in ("mother", "father", "grandmother", "grandfather")]
        pats.append(rf"\b(?-i:{'|'.join(informal)})\b(?!\s+(?-i:[A-Z]))")
    if relation in _IMPLIED:
        pats.append(_IMPLIED[relation])
    return tuple(re.compile(p, re.I) for p in pats)


def has_relation(text: str, relation: str) -> bool:
    """Whether ``text`` (subject already canonical: "I"/"my" for the person) says the person has
    ``relation``: "my (new) X", "I have/adopted a X", "X of mine", a capitalised family word at a
    sentence start ("Mum came down"), or what implies it ("I'm an auntie")."""
    return any(p.search(text) for p in _has_patterns(relation))


def mentions_favourite(text: str, thing: tuple[str, ...]) -> bool:
    """Whether ``text`` names the thing a favourite was asked of (a word of it, or its plural;
    colour/color spellings are one) without disliking it ("dislikes horror films" is no
    favourite film; a synonym names it too: "movie" / "film")."""
    low = text.casefold().replace("color", "colour")
    named = any(re.search(rf"\b{re.escape(w.replace('color', 'colour'))}(?:s|es)?\b", low) for w in thing)
    named = named or any(synonyms(w) & set(words_of(low)) for w in thing)  # "movie" / "film"
    return named and not _DISLIKE.search(low)


_THIRD_PERSON = re.compile(r"\b(?:she|he|her|his|him|they|them|their)\b", re.I)


def relation_names(text: str, relation: str) -> set[str]:
    """Names the person gave ``relation`` in ``text`` (subject canonical): "my dog Pepper", "a dog
    named Pepper", "my partner Tom" -> {"pepper"} / {"tom"}."""
    words = "|".join(re.escape(w) for w in sorted(relation_words(relation), key=len, reverse=True))
    rx = rf"\b(?:my|our|an?)\s+{_MOD}(?:{words})(?:,|\s+(?:is\s+)?(?:named|called)|\s+is|['’]s\s+name\s+is)?\s+(?-i:(?P<n>[A-Z][\w’'-]+))"
    return {m["n"].casefold().removesuffix("'s").removesuffix("’s") for m in re.finditer(rx, text, re.I)}


def about_relation(text: str, relation: str, episode: bool, names: Iterable[str] = ()) -> bool:
    """Whether ``text`` may be about the person's ``relation``: it names it (any of its words, or
    a name the person gave it: "Pepper"), or it is a verbatim message that refers to someone as
    she/he/they (the name was said before)."""
    return bool(_about_pattern(relation, tuple(sorted(names))).search(text)) or (episode and bool(_THIRD_PERSON.search(text)))


@lru_cache(maxsize=1024)
def _about_pattern(relation: str, names: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(re.escape(w) for w in (*relation_words(relation), *names))
    return re.compile(rf"\b(?:{words})(?:s|es)?\b(?!-)", re.I)  # "mother" is not in "mother-in-law"
