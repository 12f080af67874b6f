"""Who the question is about, as the hits name them (issue 28.4): the names the person gave their
relations ("User's sister is Lucía." -> {"lucía": "sister"}), the question read with the name
("What does my sister do?" -> "What does Lucía do?"), and which hits come from one message (the
fact and the episode of one message say one thing). Pure; no I/O.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from assistant.memory.language.gloss import english_words, known_words
from assistant.memory.retrieval import vocabulary as V
from assistant.memory.retrieval.answerable import _ROLES as ROLES
from assistant.memory.retrieval.answerable import _about_pattern as about_pattern
from assistant.memory.retrieval.answerable import RELATIONS, asked, question_names, relation_names, relation_words
from assistant.memory.retrieval.questions import recall_core, requests
from assistant.memory.retrieval.spelling import unaccented
from assistant.memory.retrieval.answer_weights import EVERY_WORDS
from assistant.memory.retrieval.terms import _covered, asked_words, words


def aliases_of(hits: Sequence[Any]) -> dict[str, str]:
    """Names the person gave their relations, from the hits: {"Lucía": "sister"} from a
    ``family.sister`` slot or "User's sister is Lucía."."""
    out: dict[str, str] = {}
    for h in hits:
        m = h.memory
        slot = (m.slot or "").casefold()
        rel = slot.split(".", 1)[1].replace("_", " ") if slot.startswith("family.") else slot if slot in ("partner",) else None
        for r in asked(m.text.replace("User's", "my")).relations if rel is None else (rel,):
            for n in question_names(m.text):
                if n not in ("user", r) and n not in V.PRONOUNS and (rel is not None or near(n, r, m.text)):
                    out.setdefault(n, r)  # "... our ginger cat. He basically runs the house.": no name
        for r in _PETS:  # "a retired greyhound called Pilot": "my dog" is Pilot ("Pilot had a lump removed ...")
            for n in relation_names(m.text, r):
                out.setdefault(n, r)
    return out


_PETS = ("dog", "cat")  # named by their breed too (answerable.relation_words)


#: Words at most between a relation's word and the name given to it: "my brother Finlay", "Finlay,
#: my brother", "User's brother is Finlay", "Mum's name is Morag", "My eldest, Morven,". Farther
#: names are what the sentence says of them ("... the Stornoway lifeboat, and he still lives on
#: Lewis.": Stornoway and Lewis are places, not the brother's names).
NEAR_WORDS = 3


def near(name: str, relation: str, text: str) -> bool:
    """``name`` is written within :data:`NEAR_WORDS` words of a word of ``relation`` in ``text``."""
    toks = [t.casefold() for t in re.findall(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*", text)]
    toks = [re.sub(r"['’]s$", "", t) for t in toks]
    rel = {w.casefold() for w in relation_words(relation)} | {relation}
    at = [i for i, t in enumerate(toks) if t == name.casefold()]
    return any(abs(i - j) <= NEAR_WORDS + 1 for i in at for j, t in enumerate(toks) if t in rel or t.rstrip("s") in rel)


_TOKEN = re.compile(r"[^\W\d_]+|[.!?:;]")


def question_names_known(question: str, hits: Sequence[Any]) -> tuple[str, ...]:
    """The names in a question (:func:`question_names`, folded), and its lower-case words that
    the hits' memories write as a one-word name ("who is joost" with "User's partner is
    Joost.": people type names in lower case; "whens filips bday", "lucias cat": a possessive's
    "s" and accents aside). A word a memory also writes in lower case is no name when it is an
    everyday word (:func:`~assistant.memory.language.gloss.english_words`: "rose", "will"); one the
    person types in lower case everywhere else is ("User's son filip turns 10" beside "o Filip
    ficou"); a shouted everyday word is none ("its DAY shifts"). A sentence's first word is a name
    when no lexicon knows it ("Kacper hat mir ...", "Aga2026年9月 ..."), and so is a word no lexicon
    knows right after a relation ("my son filip"); part of a longer name ("Climb Up", "One Hundred
    Years of Solitude") is none."""
    named = question_names(question)
    written: set[str] = set()
    common: set[str] = set()
    everyday, lexicons = english_words(), known_words()
    for h in hits:
        toks = _TOKEN.findall(h.memory.text)  # words and sentence ends
        for i in range(len(toks)):
            w, before, after = toks[i], toks[i - 1] if i else ".", toks[i + 1] if i + 1 < len(toks) else "."
            if len(w) > 1 and w[:1].isupper() and not after[:1].isupper() and not (w.isupper() and unaccented(w) in everyday) and (
                    before[:1].islower() or unaccented(w) not in lexicons):  # "Kacper hat mir ...", "O Kacper"
                written.add(w.casefold())
            elif w.islower() and before.casefold() in FAMILY_WORDS and unaccented(w) not in lexicons:
                written.add(w)  # a name typed in lower case after its relation: "my son filip turns 10"
        common |= {t for t in toks if t[:1].islower()}
        written |= {m.group(1).casefold() for m in _SUBJECT.finditer(h.memory.text)} - V.PRONOUNS - V.HOUSEHOLD_WORDS  # "Morven is 14 now ..."
    known = {unaccented(w): w for w in written - (common & everyday) - {"user"} - V.PRONOUNS}
    lower = [known.get(unaccented(w)) or known.get(unaccented(w[:-1]) if w.endswith("s") and unaccented(w) not in everyday else "")
             for w in re.findall(r"[^\W\d_]+", question) if w.islower()]
    return tuple(dict.fromkeys([*named, *(w for w in lower if w)]))


def names_relation(text: str, relation: str, aliases: dict[str, str]) -> bool:
    """``text`` names ``relation`` by one of its words (six languages) or a name given to it or to
    a relation its words take in ("Frieda" for "my kid" when she is the daughter)."""
    kinds = {relation, *relation_words(relation)}
    given = tuple(sorted(n for n, r in aliases.items() if r in kinds))
    return any(m.group().casefold() in given or not _OTHERS.search(text[: m.start()]) for m in about_pattern(relation, given).finditer(text))


#: Right before a relation's word: someone else's ("her best friend", "Camille's boy", "she already
#: has a best friend, Matilde", "Frieda already has a best friend"), not the person's.
_OTHERS = re.compile(r"(?:\b(?:her|his|their|its)|\b(?!User['’]s)[A-Z][\w-]*['’]s|\b(?:she|he|they|(?!User\b)(?-i:[A-Z])[\w-]*)\s+(?:\w+\s+)?(?:has|have|had)\s+(?:an?|two|three)"
                     r")\s+(?:[\w-]+\s+)?$")


def names_in(name: str, text: str) -> bool:
    return bool(re.search(rf"\b{re.escape(name)}\b", text, re.I))


def my_relation(relation: str) -> re.Pattern[str]:
    """"my/our <relation>" with any word of it, a modifier and a plural ("my husband" for the
    partner, "my older brother", "our twins"): where a question names the relation."""
    words = "|".join(re.escape(w) for w in sorted({*relation_words(relation), relation}, key=len, reverse=True))
    return re.compile(rf"\b(?:my|our)\s+(?:[\w-]+\s+)?(?:{words})(?:s|es)?\b", re.I)


IN_LAW = re.compile(r"\b(?:my|our)\s+(?P<who>in-laws|(?:parents|mother|father|brother|sister)-in-law)\b", re.I)
_IN_LAW_FAMILY = {"mother": "mother", "father": "father", "brother": "brother", "sister": "sister"}


def in_law_read(question: str, partner: str) -> str | None:
    """The question with "my in-laws" / "my mother-in-law" read as the family of the partner
    named ``partner`` ("Where do my in-laws live?" -> "Where do Arjun's parents live?"), else None."""
    m = IN_LAW.search(question)
    if m is None:
        return None
    family = _IN_LAW_FAMILY.get(m["who"].casefold().replace("-in-law", ""), "parents")
    return IN_LAW.sub(f"{partner.title() if partner.islower() else partner}'s {family}", question, count=1)


def ask_forms(question: str, aliases: dict[str, str]) -> list[str]:
    """The question, and the question with "my <relation>" (:func:`my_relation`) read as the
    name given to it ("What does my sister do?" -> "What does Lucía do?"), and "my in-laws" as
    the partner's parents ("Where do my in-laws live?" -> "Where do Arjun's parents live?")."""
    out = [question, recall_core(question)]
    partner = next((n for n, rel in aliases.items() if rel == "partner"), None)
    if partner is not None and (read := in_law_read(question, partner)) is not None:
        out.append(read)
    for name, rel in aliases.items():
        rx = re.compile(rf"\bmy\s+{re.escape(rel)}\b", re.I)
        if rx.search(question):
            out.append(rx.sub(name, question))
    return out


def messages(m: Any) -> frozenset[int]:
    return frozenset(s.message_id for s in m.sources if s.message_id is not None) or frozenset({-m.id})


def whole(hit: Any, hits: Sequence[Any]) -> Any:
    """A clause quoted out of a message ("User: Em outubro vamos a Lisboa.") answers with the
    message it was cut from when that is among the hits: the dates, who and why are in the rest.
    Code-only dev2 / dev3: 0.890 / 0.810 -> 0.895 / 0.830."""
    if not hit.memory.text.startswith("User: "):
        return hit
    return episode_of(hit, hits) or hit


def episode_of(hit: Any, hits: Sequence[Any]) -> Any:
    """The hit of the episode (the person's whole message) ``hit`` was cut from, when among
    ``hits``, else None."""
    msgs = messages(hit.memory)
    return next((h for h in hits if h.memory.kind == "episode" and h is not hit and messages(h.memory) & msgs), None)


def runner_up(i: int, sem: Sequence[float], msgs: Sequence[frozenset[int]]) -> float:
    """The best form cosine among the candidates from other messages than candidate ``i``'s
    (the fact and the episode of one message say one thing)."""
    return max((s for j, s in enumerate(sem) if j != i and not (msgs[j] & msgs[i])), default=0.0)


#: Words of a family relation ("the twins", "dad"): a question naming one is about the person's
#: life even without "my". Roles and animals ("a doctor", "a dog") and "boy / girl" are no family
#: words: "Which doctor discovered penicillin?" is general.
FAMILY_WORDS = frozenset(w for rel, ws in RELATIONS.items() if rel not in ROLES | {"dog", "cat", "fish", "pet"}
                         for w in ws if w not in ("boy", "girl")) | {"twins", "parents", "grandparents", "in-laws"}  # fmt: skip
#: A name after a preposition of place ("live in Glasgow", "lives on Lewis", "a trip to Lisbon",
#: "vamos a Lisboa"): a place, no one of the person's (read here and by :mod:`.held`).
PLACE = re.compile(r"\b(?:in|on|to|from|at|near|through|around|outside|en|a|à|au|nach|aus|em|para|de|no|na)\s+(?-i:(?P<n>[A-Z][\w’'-]+))", re.I)
_NAME = re.compile(r"(?<![\w’'])(?-i:[A-Z][\w’'-]+)")
# a sentence's first word followed by a verb: a name ("Finlay is the coxswain", "Arjun's parents")
_SUBJECT = re.compile(r"(?:^|[.!?]\s+|:\s+)([A-Z][\w’'-]+)(?:['’]s\b|\s+and\s+(?:I|User)\b|\s+(?:and\s+[A-Z]\w+\s+)?(?:is|are|was|were|has|have|had|lives|works|turned|goes|loves|likes|plays|got|just)\b)")
# what a memory says the person has: "our fig tree", "User's car", "User has a grey cat"
_OWNED = re.compile(r"\b(?:my|our|user['’]s|(?:user|we|i)\s+(?:has|have|had|got|'ve\s+got)\s+(?:got\s+)?(?:an?|two|three)?)\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.I)


def written_names(hits: Sequence[Any]) -> tuple[set[str], set[str]]:
    """The folded names the hits' memories write (:func:`question_names`, and a sentence's first
    word when a verb follows it: "Finlay is ..."), and those of them written after a preposition
    of place."""
    named: set[str] = set()
    places: set[str] = set()
    someone: set[str] = set()  # written as one who does something or is called so: no place ("la orquesta de Caio" / "Caio plays cello")
    for h in hits:
        text = h.memory.text
        named |= set(question_names(text)) | {m.group(1).casefold() for m in _SUBJECT.finditer(text)}
        places |= {m["n"].casefold() for m in PLACE.finditer(text)}
        someone |= {m.group(1).casefold() for m in _SUBJECT.finditer(re.sub(r"^User:\s+", "", text))} \
            | {m.group(1).casefold() for m in re.finditer(r"\b(?:called|named)\s+([A-Z][\w’'-]+)", text)}
    return named - {"user", "user's", "i"}, places - someone


def owned_things(hits: Sequence[Any]) -> set[str]:
    """Folded words of what the memories say the person has ("Our fig tree is called Figaro."
    -> fig, tree; "User has a grey cat" -> grey, cat)."""
    return {w.casefold() for h in hits for m in _OWNED.finditer(h.memory.text) for w in m.group(1).split()}


#: An existential question asks what the world holds ("How many Munros are there in Scotland?").
_THERE = re.compile(r"\b(?:are|is|were|was)\s+there\b|\bthere\s+(?:are|is)\b", re.I)


def about_life(question: str, names: Sequence[str], hits: Sequence[Any], self_q: bool) -> bool:
    """The question may ask for a fact of the person's life: it speaks of them (``self_q``) or
    their household ("Where are we spending Christmas?"), names a family relation ("how old are
    the twins", "wat does dad make"), a favourite, "the X" of something the memories say they have
    ("whats the cats name", "Who named the fig tree?") unless it asks what there is, or one of
    the names (``names``, folded) the memories write other than as a place (:func:`written_names`) or give a relation. "Which
    river runs through Glasgow?" ("User lives in Glasgow."), "Who discovered penicillin?" and "How do you keep a
    border collie from getting bored?" do none of these: general questions, never answered from
    memory, whatever memory shares their words."""
    if self_q:
        return True
    ws = [w.casefold().strip("'’") for w in re.findall(r"[\w'’-]+", question)]
    if set(ws) & (V.HOUSEHOLD_WORDS | FAMILY_WORDS | V.FAVOURITE_WORDS | V.SELF_TYPOS):
        return True
    if _THERE.search(question) and not re.search(r"\w['’]s\b", question):
        return False  # "How many Munros are there in Scotland?" with "Munro count is up to 57!": the world's
    things = owned_things(hits)
    named, places = written_names(hits)
    if any(a == "the" and (b in things or b.rstrip("s") in things or b in named | places) for a, b in zip(ws, ws[1:])):
        return True  # "the cat", "the fig tree", "the Lisbon trip"
    capitalised = {w.casefold() for w in _NAME.findall(question)}  # "Morven's school?": a first word too
    if set(names) - set(question_names(question)):
        return True  # a name typed in lower case is one the memories write (:func:`question_names_known`)
    return bool((set(names) | capitalised) & ((named - places) | set(aliases_of(hits))))


#: A definite thing or a state recalled: "which tree's loaded with fruit", "hows the van fund
#: looking", "why did iceland get cancelled again?".
_DEFINITE = re.compile(r"\b(?:the|which)\s+\w+|\b(?:again|these\s+days|nowadays|lately|currently|so\s+far|still|anymore)\b", re.I)
#: How close retrieval's best memory must be (MiniLM) for :func:`told_of`. Code-only, without ->
#: with at 0.40: dev4 0.745 -> 0.755, dev6 0.55 -> 0.575, no general question answered from memory
#: on any set; without the definite/recall cue, 0.40 answered "Who discovered penicillin?" and
#: "How long is a half marathon in kilometres?" from memory, 0.50 the first too.
TOLD_COSINE = 0.40


def told_all(question: str, hits: Sequence[Any]) -> bool:
    """One of the person's messages among ``hits`` words every word the question asks
    (:func:`~.terms.asked_words`, at least :data:`~.answer_weights.EVERY_WORDS`, as the answer's own path):
    "How much did a fiddle lesson cost?" / "started fiddle lessons!! ... £25 a lesson"."""
    asked = asked_words(question)
    return len(asked) >= EVERY_WORDS and any(all(_covered(w, words(h.memory.text)) for w in asked) for h in hits)


def told_of(question: str, hits: Sequence[Any], vectors: Callable[[list[str]], Sequence[Any]]) -> bool:
    """A question that names neither the person nor theirs (:func:`about_life` is False) still
    asks what they told when it speaks of something definite or a state recalled (:data:`_DEFINITE`)
    and retrieval's best memory is at least :data:`TOLD_COSINE` close to it ("hows the van fund
    looking" / "we're saving up for a campervan! ... about 7,400 in the pot so far"), or a message
    words all it asks (:func:`told_all`). Not a request."""
    first = next((h for h in hits if h.passed_threshold), None)
    if first is None or requests(question):
        return False
    if told_all(question, hits):
        return True
    if not _DEFINITE.search(question):
        return False
    q, t = vectors([question, first.memory.text])
    return float(q @ t) >= TOLD_COSINE

