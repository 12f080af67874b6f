"""What a memory holds, read against a question (issue 28.4): a value of the kind the question
asks for (:func:`holds`), or no more than who someone is (:func:`names_only`). Pure; no I/O."""

from __future__ import annotations

import re
from typing import Any, Sequence

from assistant.memory.language.cues import EMOJI, PERSON
from assistant.memory.language.gloss import english_words, gloss, known_words
from assistant.memory.language.rules import sentences
from assistant.memory.language.today import ANNUAL
from assistant.memory.retrieval.aliases import FAMILY_WORDS, PLACE, episode_of, names_in
from assistant.memory.retrieval.answerable import RELATIONS, asked, question_names, relation_words
from assistant.memory.retrieval.terms import _covered, _terms, content_words, words
from assistant.memory.retrieval.vocabulary import AREA_WORDS, CAT_KINDS, DOG_KINDS, LIGHT_VERBS, COLOUR_CHARS, COLOURS, MODIFIERS as _MODIFIERS, MONTHS

_NUMBER_WORDS = (r"once|twice|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty|fifty"
                 r"|sixty|seventy|eighty|ninety|hundred|half|dozen")
_NUMBER_WORD = re.compile(rf"\b(?:{_NUMBER_WORDS})\b", re.I)
#: A duration or an amount ("twenty good minutes", "2.5h", "310 euros", "€40", "for 10 days", not "3 months
#: old"), a frequency or an ordinal: no age.
QUANTITY = re.compile(r"(?:[€$£]\s*)\d[\d.,]*|(?:\d[\d.,]*|" + _NUMBER_WORDS + r")\s*(?:(?!last\b|next\b|this\b)[a-z]+\s+)?(?:minutes?|mins?|hours?|hrs?|h|seconds?|secs?"
                      r"|km|kilomet(?:re|er)s?|miles?|kg|kilos?|grams?|g|euros?|€|pounds?|£|dollars?|\$|zł|złoty|percent|%|times|met(?:re|er)s?|m|cm"
                      r"|lit(?:re|er)s?|calories|kcal|steps|pages|floors?|stitches|(?:days?|weeks?|months?)(?!\s+old|\s+of\s+age))(?![\w])"
                      r"|\b(?:once|twice)\b|\b\d+(?:st|nd|rd|th)\b|\b\d+\.\d+\b", re.I)  # "twice a day", "the 28th", "38.5": no age either
_WHEN_WORD = re.compile(r"\b(?:morning|afternoon|evening|night|weekend|weekday|daily|weekly|monthly|every|tonight|today|tomorrow"
                        r"|yesterday|spring|summer|autumn|fall|winter|christmas|easter|noon|midnight)s?\b", re.I)


# a month or a weekday, full or short ("Oct", "Sept"), or "weekend": a time the memory says
_CALENDAR = re.compile(r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?"
                       r"|nov(?:ember)?|dec(?:ember)?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?)\b", re.I)
_MONTH = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
#: A day of a month written out, an ISO date: no age (a birth year is kept: the age follows from it) ("l'anniversaire de Camille, c'est le 9 octobre").
_DATED = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s*(?:-|–|to|until|till)\s*\d{{1,2}}(?:st|nd|rd|th)?\.?\s+{_MONTH}\b|\b\d{{1,2}}(?:st|nd|rd|th|er|º)?\.?(?:\s+(?:of|de))?\s+{_MONTH}\b|\b{_MONTH}\s+\d{{1,2}}\b|\b\d{{4}}-\d\d-\d\d\b", re.I)
_CLOCK = re.compile(r"\b\d{1,2}(?:[:.h]\d\d|\s*(?:[ap]\.m\.?|(?:am|pm|o['’]clock|uhr|heures?|horas?|h)\b))|\b(?:at|by|around|until|till|from|um|à|a las|às)\s+\d{1,2}\b(?!(?:st|nd|rd|th)?\.?\s+" + _MONTH + r"\b)"
                    r"|\b(?:morning|afternoon|evening|night|noon"
                    r"|midnight|lunchtime|dawn|tonight|abends?|morgens?|mittags?|nachts?|soir|matin|midi|nuit|tarde|noche|mañana|manhã|noite)s?\b"
                    r"|[早晚上下中]午|晚上|早上|点", re.I)
_SURNAME_SAID = re.compile(r"\b(?:surname|last\s+name|family\s+name|apellidos?|nachname|nom\s+de\s+famille|sobrenome)\b|姓", re.I)
_MY_SURNAME = re.compile(r"\bmy\s+(?:sur|last\s+|family\s+)name\b", re.I)
_FULL_NAME = re.compile(r"(?:\bI['’]m|\bI\s+am|\bmy\s+name\s+is|\bUser['’]s\s+name\s+is)\s+(?-i:[A-Z])[\w’'-]+\s+(?-i:[A-Z])[\w’'-]+", re.I)
_ASKS_AGE = re.compile(r"\bhow\s+old\b|\bwhat\s+age\b", re.I)
#: A verb or adverb form ("joined", "finally", "going"): no name of a thing.
_INFLECTED = re.compile(r"\w{3}(?:ed|ly|ing)$")
_RELATION_WORDS = frozenset(w for r in RELATIONS for w in relation_words(r)) | _MODIFIERS

#: A memory that names something in so many words: "a band called the Kelvin Reelers", "Frieda named
#: the leopard gecko Bolacha", "un gato que se llama Chispa", 妹妹叫张悦.
NAMES_SOMETHING = re.compile(r"(?:\b(?:called|named|nicknamed|name\s+is|name['’]s|llamad[oa]|se\s+llama|chamad[oa]|se\s+chama|namens|hei(?:ß|ss)t"
                             r"|appel[ée]e?|s['’]appelle)\s+(?:[\w'’-]+\s+){0,3}?(?-i:[A-Z])|叫[\u4e00-\u9fff])", re.I)


_MODIFIER_RX = "|".join(sorted(_MODIFIERS, key=len, reverse=True))  # "little", "older", ... before a relation word
_BY_RELATION = re.compile(r"^(?:(?:" + _MODIFIER_RX + r")\s+)*(?P<w>[\w-]+)", re.I)


def only_owner(name: str, text: str, question: str) -> bool:
    """``name`` is written in ``text`` only as the owner of someone else ("Camille's little boy Noé
    turned 6"), while the question asks of the one named ("How old is Camille?"): the memory is
    about that other person."""
    if re.search(rf"\b{re.escape(name)}['’]s?\b", question, re.I):
        return False
    found = list(re.finditer(rf"\b{re.escape(name)}\b(['’]s?)?", text, re.I))
    if not found:
        return False
    asked = {w.casefold() for w in re.findall(r"[\w’'-]+", question)}
    for m in found:
        w = _BY_RELATION.match(text[m.end():].lstrip()) if m.group(1) else None
        if not w or w["w"].casefold() not in FAMILY_WORDS | _RELATION_WORDS or w["w"].casefold() in asked:
            return False  # ... or the one it owns is the one asked ("Which vet does Biscuit go to?" / "Biscuit's first vet checkup")
    return True


_REL_WORD = {w: rel for rel, ws in RELATIONS.items() for w in ws if " " not in w}
# "Finlay's partner", "the husband of Clara" (a gloss of "el marido de Clara")
_OTHERS_REL = re.compile(r"(?<![.?!] )(?<!^)\b(?-i:[A-Z][\w’'-]+)(?:['’]s?|(?<=s))?\s+(?:(?:" + _MODIFIER_RX + r")\s+)*(?P<r>[\w-]+)|\bthe\s+(?P<r2>[\w-]+)\s+(?:of|de|da|do|von|du|di)\s+(?=(?-i:[A-Z]))", re.I)


def others_relation(question: str) -> frozenset[str]:
    """The words of a relation someone named has, asked about ("What's the name of Finlay's
    partner?", "the husband of Clara"): a memory that words none of them says nothing of that person."""
    for m in _OTHERS_REL.finditer(question):
        rel = _REL_WORD.get((m["r"] or m["r2"] or "").casefold())
        if rel:
            return frozenset(w for w in RELATIONS[rel] if " " not in w)
    return frozenset()


#: A sentence that speaks of what the one before it introduced: "I've joined a choir! It's called ...".
_GOES_ON = re.compile(r"^(?:it|it['’]s|its|he|he['’]s|his|she|she['’]s|her|they|they['’]re|their|er|sie|es|il|elle|ele|ela|él|ella|他|她|它)\b", re.I)

#: A sentence this short goes on about the one before it: "... we saw dolphins!! like 8 of them".
FRAGMENT_WORDS = 4

_PRONOUNS = frozenset("he she him her his hers it its they them their theirs".split())


def asked_part(text: str, question: str) -> str:
    """The sentences of a message that word the most of what the question asks (at least one of its
    content words), each with a next one that goes on about it (opens with a pronoun, or is a
    fragment of at most :data:`FRAGMENT_WORDS` words): a value of the asked kind elsewhere
    in the message is about something else ("what colour is the urban arrow" / "J'ai vendu la Fabia
    (la verte) ... Pour Wrocław j'ai acheté ... un Urban Arrow."). The whole text when no sentence
    words any, or it is one sentence."""
    parts = sentences(text)
    wanted = [w for w in content_words(question) if w not in LIGHT_VERBS and w not in _PRONOUNS]  # "... when I lost her?"
    if len(parts) < 2 or not wanted:
        return text
    cover = [sum(_covered(w, words(p)) for w in wanted) for p in parts]
    top = max(cover)
    if not top:
        return text
    keep = [i for i, c in enumerate(cover) if c == top]
    keep += [i + 1 for i in keep if i + 1 < len(parts) and (_GOES_ON.match(parts[i + 1]) or min(len(parts[j].split()) for j in (i, i + 1)) <= FRAGMENT_WORDS)]
    return " ".join(parts[i] for i in sorted(set(keep)))


_EMOJI_BREAK = re.compile(r"\s*" + EMOJI + r"+\s+")


def about_whom(text: str, question: str) -> str:
    """The clauses of ``text`` (pronouns resolved: :func:`~assistant.memory.language.clauses.clauses`)
    about someone the question names or the relation it asks, where an age is looked for ("How old
    is my sister Leonor?" / "... her birthday is the 28th of May, which I have managed to forget two
    years running": the "two" is not said of her); the whole text when it names no one or no clause
    is about them. A clause naming them names what its sentence describes ("2-year-old black mutt
    with one floppy ear, I named her Chispa")."""
    whom = {*question_names(question), *(w for r in asked(question).relations for w in (r, *relation_words(r)))}
    if not whom:
        return text
    from assistant.memory.language.clauses import clauses  # its patterns: only for a question about someone

    parts = clauses(_EMOJI_BREAK.sub(". ", text))  # "it's my birthday!! 35 🎉 Nilton sent a video": the 35 is not said of Nilton
    named = {c.sentence for c in parts if any(re.search(_NAMING.pattern + rf"\s+(?:\w+\s+)?{re.escape(w)}\b", c.resolved, re.I) for w in whom)}
    mine = [c.resolved for c in parts if c.sentence in named or any(_covered(w, words(c.resolved)) for w in whom)]
    return " ".join(mine) if mine and len(parts) > 1 else text


_OWN_AGE = re.compile(r"\bhow\s+old\s+am\s+i\b|\b(?:what(?:['’]s|\s+is)|tell\s+me)\s+my\s+age\b", re.I)


def own_part(text: str) -> str:
    """The clauses of ``text`` about the person, not about someone of theirs ("How old am I?" /
    "my mother Pilar turns 70": her age; "I turned 40 ...": theirs)."""
    from assistant.memory.language.clauses import clauses  # its patterns: only for the person's own age

    mine = [c.resolved for c in clauses(text) if re.search(r"\b(?:I|I['’]?m|me|my|User)\b", c.resolved, re.I)
            and not set(words(c.resolved)) & (FAMILY_WORDS | set(_REL_WORD)) and not question_names(c.resolved)]
    return " ".join(mine)


_NAMING = re.compile(r"\b(?:named|called|name\s+is|name[’']s)\b", re.I)
_OWN_ANNUAL = re.compile(r"\b(?:my|our|your|User['’]s)\s+(?:\w+\s+)?(?:" + ANNUAL.pattern + ")", re.I)  # the person's own birthday
_MY_THING = re.compile(r"\b(?:my|our)\s+(?P<t>[a-z]{3,})\b(?!['’])", re.I)
_OTHERS_OWNER = re.compile(r"(?:\b(?!User['’]s)[\w’'-]+['’]s?|\b(?:his|her|their|" + PERSON + r"s))\s+(?:[\w-]+\s+)?$", re.I)  # "mums birthday"


def someone_elses(text: str, question: str) -> bool:
    """The question asks the person's own thing ("When is my birthday?") and ``text`` words it only
    as someone else's ("User's mum's birthday is March 14.", "her birthday"): no answer."""
    m = _MY_THING.search(question)
    if m is None or m["t"].casefold() in _RELATION_WORDS | FAMILY_WORDS:
        return False
    found = list(re.finditer(rf"\b{re.escape(m['t'])}s?\b", text, re.I))
    return bool(found) and all(_OTHERS_OWNER.search(text[max(0, f.start() - 40):f.start()]) for f in found)


def holds(kind: str | None, text: str, question: str) -> bool:
    """The memory holds a value of the kind the question asks for (:func:`~.questions.answer_type`)
    that the question does not already say: a name for "name" (a capitalised word: "What's the
    name of Pretzel's vet?" is not answered by "User has a beagle named Pretzel."), a number for
    "number", a four-digit year for "year", a date, a day, a month or a time of day for "when". Any memory for no kind."""
    if someone_elses(text, question):
        return False
    if kind is None:
        # "Which city does my mum live in?": a place named (Chinese names no place by a capital: "住在静安区")
        if _ASKS_WHERE.match(question) and not _LOCATIVE.search(text) and not _LOCATIVE.search(gloss(text) or ""):
            return False  # "where's claudines wedding" / "La boda de Claudine fue preciosa.": no place said
        if _ASKS_NAMED.search(question) and not _names_one(text, question):
            return False  # "which school does Luzia go to?" / "luzias school play is on the 10th": no school named
        return not _ASKS_TOWN.search(question) or _names_place(text, question) or re.search(r"[\u4e00-\u9fff]", text) is not None
    text = asked_part(text, question)
    key, strong = _terms(text, question)
    if kind == "name":  # a capitalised name, or a word that is no relation nor a verb or adverb form ("cetirizine" for
        # "my allergy medication"; not "joined" in "User has joined a choir." for "What's the name of my choir?")
        return any(not t[0].isdigit() for t in strong) or any(k not in _RELATION_WORDS and not k.isdigit() and not _INFLECTED.search(k)
                                                              for k in key)
    if kind == "surname":  # the surname said ("我的老师姓王"), or a capitalised word after a name asked ("Claudine Martin"),
        named = question_names(question)  # not the rest of the name asked ("Don Aurelio": no surname after "Don")
        return _SURNAME_SAID.search(text) is not None or any(re.search(rf"\b{re.escape(n)}\s+(?!(?:{'|'.join(map(re.escape, named))})\b)(?-i:[A-Z])[\w’'-]+", text, re.I) for n in named) \
            or (_MY_SURNAME.search(question) is not None and _FULL_NAME.search(text) is not None)  # or the person's full name for theirs
    if kind == "code":  # an identifier: letters and digits in one ("FR1234", "AB12 CDE") or five digits or more, not "£9,400"
        return _CODE.search(text) is not None
    if kind == "colour":  # a colour word ("a ginger tabby"), not just any memory about the one asked
        return any(w in COLOURS for w in words(text)) or any(ch in text for ch in COLOUR_CHARS)
    if kind == "year":  # a year the question does not say: "born in 1987", not "March 9th"
        return any(re.fullmatch(r"(?:1[89]|20)\d\d", t) for t in strong)
    if kind == "breed":  # a breed or kind of animal ("a beagle", "a ginger tabby"), not just any memory about the pet
        return any(w in DOG_KINDS or w in CAT_KINDS or w in ("mix", "mixed", "cross", "mutt", "mongrel") for w in words(text))
    if kind == "number" and _ASKS_AGE.search(question):  # an age: not a date's numbers, nor a duration or an amount
        text = QUANTITY.sub(" ", _DATED.sub(" ", own_part(text) if _OWN_AGE.search(question) else about_whom(text, question)))
        born = re.search(r"\bborn\b|\bbirth", text, re.I) is not None  # a year of birth gives the age; "(January 2027)" none
        return any(t[0].isdigit() and (born or not _YEAR.fullmatch(t)) for t in _terms(text, question)[1]) or _NUMBER_WORD.search(text) is not None
    if kind == "number":  # "How much do I earn?": an amount, not a date's numbers ("I start on June 15")
        if _HOW_MUCH.search(question):  # nor a year or an age ("im wiebke, 34, ... since 2019" earns nothing)
            text = _ORDINAL.sub(" ", _AGE_SAID.sub(" ", _YEAR.sub(" ", _DATED.sub(" ", text))))  # nor "our 2nd night"
            strong = _terms(text, question)[1]
        return any(t[0].isdigit() for t in strong) or _NUMBER_WORD.search(text) is not None
    if kind == "when" and ANNUAL.search(question) and not ANNUAL.search(text) and not _BORN.search(text):
        return False  # "When is my mom's birthday?" / "Mom's surgery got pushed to November 12": no birthday said
    if kind == "when" and ANNUAL.search(question) and (named := question_names(question)):  # "When's Nilton's birthday?": of Nilton
        text = about_whom(text, question)
        if not any(names_in(n, text) for n in named) or (ANNUAL.search(text) and not ANNUAL.search(_OWN_ANNUAL.sub(" ", text))):
            return False  # not said of them, or only the person's own ("erlan is taking me away for my birthday")
        strong = _terms(text, question)[1]  # a date said of them ("it's my birthday!! 35 | Nilton sent a video": not his)
    if re.search(r"\bwhat\s+time\b", question, re.I):  # a time of day, not a date
        return _CLOCK.search(text) is not None
    # a date or year (digits), a weekday or a month, a time of day: not just any capitalised word ("Morag")
    return any(t[0].isdigit() for t in strong) or _CALENDAR.search(text) is not None or _WHEN_WORD.search(text) is not None


_CAPITALS = re.compile(r"[A-ZÀ-Þ][\w’'-]+(?:\s+[A-ZÀ-Þ][\w’'-]+)*")  # a name of several words ("Cape Verde")
# a name after the role: capitalised, or any word after a title as typed fast ("my physio dr nadeau says")
_NAME_AFTER = re.compile(r",?\s+(?:(?:called|named|is)\s+)?(?:(?:(?:Dr|Mr|Mrs|Ms|Sr|Sra)\.?\s+)?(?-i:[A-ZÀ-Þ])[\w’'-]+|(?i:dr|mr|mrs|ms)\.?\s+[^\W\d_]{3,})")
# who the person's X is, or X's name: "Who is my physio?", "I keep forgetting my physio's name, who is it?"
_WHO_IS = re.compile(r"^\s*who(?:['’]s|\s+is)\s+(?:my|our)\b|\b(?:my|our)\b.*(?:\bname\b|\bwho(?:['’]s|\s+is|\s+was)\b)", re.I)


def names_role(text: str, question: str, required: Sequence[str]) -> bool:
    """A "Who is my X?" question's X (or "my X's name") is worded in ``text`` with a name right after
    it: "the physio, Rui Matos, says ..." for "Who is my physiotherapist?", "my physio dr nadeau says"
    (MiniLM reads the long message far from the short question: 0.22)."""
    if not required or not _WHO_IS.search(question):
        return False
    return any(_covered(r, [w]) and _NAME_AFTER.match(text, m.end())
               for r in required for m in re.finditer(r"[^\W\d_]+", text) for w in [m.group().casefold()])


def names_only(text: str, question: str, aliases: dict[str, str]) -> bool:
    """``text`` says no more than who someone is: its key terms (:func:`_terms`) are names (given
    to a relation: :func:`aliases_of`, asked about, or written other than after a preposition of
    place), those relations' words or modifiers ("User's older
    brother is Rafael.", "User's best friend is Julien.")."""
    # people: the relations' names, the question's, and the memory's other than places ("lives on Lewis": a value)
    places = {w.casefold() for m in PLACE.finditer(text) for w in _CAPITALS.match(text, m.start("n"))[0].split()}  # "from Cape Verde"
    written = {re.sub(r"['’]s$", "", w).casefold() for w in re.findall(r"(?<![\w’'])[A-Z][\w’'-]+", text)} - {"user"}
    names = {n.casefold() for n in aliases} | set(question_names(question)) | (written - places)
    key, _ = _terms(text, question)
    relations = {w for r in aliases.values() for w in (*words(r), *relation_words(r))}  # "wife" for the partner
    return all(k in names or k in _MODIFIERS or k in relations or k in _RELATION_WORDS or k.rstrip("s") in _RELATION_WORDS
               or k in FAMILY_WORDS for k in key)


def home_of_area(question: str, hits: Any) -> set[str]:
    """The folded names of the person's home town (its profile slot among ``hits``) when the
    question asks a part of it without naming it ("Which neighbourhood do I live in?"): a memory
    naming no other place does not answer ("User lives in Vancouver." / "I live in Vancouver, in
    Mount Pleasant.")."""
    if not AREA_WORDS & set(words(question)):
        return set()
    return {n for h in hits if h.memory.slot == "home_city" for n in question_names(h.memory.text)}


_WHERE = re.compile(r"\bwhere\b", re.I)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_BORN = re.compile(r"\b(?:born|turns?|turning|turned|geboren|wird|nació|nacido|nacida|née?|nasceu|nascid[oa])\b|出生", re.I)
_AGE_SAID = re.compile(r"\b(?:I['’]?m|im|is|was|turned|turns|turning|aged?)\s+\d{1,2}\b|,\s*\d{1,2}\s*,|\b\d{1,2}\s*(?:yrs?|years?)\s+old\b", re.I)
_HOW_MUCH = re.compile(r"\bhow\s+(?:much|many)\b", re.I)
_CODE = re.compile(r"\b(?=(?:[A-Za-z-]*\d){2})(?=(?:[\d-]*[A-Za-z]){2})[A-Za-z\d-]{4,}\b|(?<![£$€\d,.])\d(?:[ -]?\d){4,}\b")
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.I)
# "Which city does my mum live in?", "what town": a place's name is asked
_ASKS_TOWN = re.compile(r"\b(?:which|what)\s+(?:city|town|village|country|island|neighbou?rhood|district|street)\b", re.I)


def _names_place(text: str, question: str = "") -> bool:
    """A place named after a preposition of place ("in Santo da Serra"), not the person ("User"),
    nor one the question already says ("What street is my Almaty flat on?" / "... in Almaty")."""
    return any(m["n"] != "User" and not re.search(rf"\b{re.escape(m['n'])}\b", question) for m in PLACE.finditer(text))


#: "which school/company/team ...": a name is the answer (a capitalised word or a number the question does not say)
_ASKS_NAMED = re.compile(r"\b(?:which|what)\s+(?:school|college|university|uni|company|firm|hospital|clinic|team|club|gym|restaurant"
                         r"|bar|caf[eé]|shop|store|museum|church|airline|band|choir|studio|bakery|pub|hotel|agency|lab)\b", re.I)


def _names_one(text: str, question: str) -> bool:
    """``text`` names something the question does not: a capitalised word (a sentence's first too:
    "Radiohead is my favourite band") or a number given as one ("school no. 45"; not "Luzia is 7")."""
    asked = {w.casefold() for w in words(question)}
    caps = {w for w in re.findall(r"\b[A-Z][\w'’-]+", text) if w.casefold() not in asked and w not in ("User", "I", "User's")
            and not (w.isupper() and w.casefold() in english_words())}  # "PLEASE remember": shouted, no name
    numbered = re.findall(r"\b(?:no|nr|number|n[º°])\.?\s*(\d+)|#\s*(\d+)", text, re.I)  # "primary school no. 45"
    return bool(caps) or any(n not in asked for pair in numbered for n in pair if n)


_ASKS_WHERE = re.compile(r"^(?!.*\bfrom\b)\s*where\b", re.I)  # "Where is my mother from?": a nationality answers too
#: a preposition of place before what it places, in the capture languages ("in der Kletterhalle", "à Annecy", 在)
_LOCATIVE = re.compile(r"\bto\s+(?:the\s+)?(?-i:[A-Z])|\bon\s+(?!(?:the\s+)?\d|(?i:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"  # not "on March 3rd"
                       r"|\b(?:in|at|near|from|into|inside|outside|behind|under|en|à|au|aux|dans|chez|em|no|na|nos|nas|im|am|bei"
                       r"|auf|nach|zu|aus|here|there|aquí|aqui|ici|hier|home|abroad)\b|[在于]", re.I)


def fuller(hit: Any, hits: Sequence[Any], question: str, kind: str | None, aliases: dict[str, str] | None = None) -> Any:
    """A clause answers with its whole message when the message (its episode, among the hits) holds
    the kind of value asked where the clause does not, or words more of the question: "Remind me
    which night choir practice is." / "User has joined a choir." -> "I've joined a choir! It's
    called Coro da Ribeira, rehearsals on Tuesday nights ...". Code-only dev3 / dev4: 0.860 / 0.615
    -> 0.865 / 0.625, dev and dev2 unchanged. A clause that says something of an asked relation by
    the name given to it stays ("what does my husband do for work?" / "Sorin drives a tram.")."""
    ep = episode_of(hit, hits) if hit.memory.kind != "episode" else None
    if ep is None:
        return hit
    asked_words = [w for w in content_words(question) if w not in LIGHT_VERBS]
    if any(r in asked(question).relations and names_in(n, hit.memory.text) for n, r in (aliases or {}).items()) and not names_only(hit.memory.text, question, aliases or {}):
        return hit  # "what does my husband do for work?" / "Sorin drives a tram.": of the one asked, not the whole message
    def cover(text: str) -> int:
        pool = words(text)
        return sum(_covered(w, pool) for w in asked_words)
    gains_kind = kind is not None and holds(kind, ep.memory.text, question) and not holds(kind, hit.memory.text, question)
    # "tell me where I got the dog from" / "User adopted a dog.": the message names the place ("... the shelter in Santo da Serra")
    gains_kind = gains_kind or (_WHERE.search(question) is not None and _names_place(ep.memory.text) and not _names_place(hit.memory.text))
    gains_kind = gains_kind or (kind == "when" and bool(_DATED.search(ep.memory.text)) and not _DATED.search(hit.memory.text)) \
        or re.match(r"\s*why\b", question, re.I) is not None  # "on December 9" for "in December"; a reason is in the rest of the message
    return ep if gains_kind or cover(ep.memory.text) > cover(hit.memory.text) else hit


#: Relations named by the slot rules' "a dog called X" / breeds: not read by :func:`gives_name`.
PETS = frozenset({"dog", "cat", "fish", "pet"})
PET_WORDS = frozenset(w for p in PETS for w in relation_words(p))


def names_asked(text: str, relations: Sequence[str], others: frozenset[str]) -> bool:
    """``text`` gives a name to the person's ``relations`` or the words of a named one's relation
    (``others``) a "name" question asks about (:func:`gives_name`); pets are named by the slot rules
    ("a dog called X", a breed) and always pass, as does a question asking no one's name."""
    asked = [r for r in relations if r not in PETS] + ([] if others & PET_WORDS else [*others])
    return not asked or gives_name(text, asked)


def gives_name(text: str, relations: Sequence[str]) -> bool:
    """``text`` gives a name to one of ``relations`` by apposition or a copula, in any capture
    language's relation words: "my mum Gulnara", "mum (Gulnara)", "Gulnara, my mum", "my boss is
    Tiago", "new boss is tiago" (a lower-case word no lexicon knows), "Mum's name is Morag", "ma
    cheffe s'appelle Lyazzat". Naming someone near the word is not enough: "caio came and charmed
    my mum" names no mum; "What's my mum's name?" is not answered by it."""
    if re.search(r"[\u3400-\u9fff]", text):
        return True  # Chinese is written without spaces: not read here ("我的老师姓王")
    ws = "|".join(re.escape(w) for r in relations for w in sorted({r, *relation_words(r)}, key=len, reverse=True))
    if not ws:
        return False
    name = r"(?P<n>(?:(?i:Dr|Dra|Frau|Herr|Mme|Sr|Sra)\.?\s+)?[\w'’-]+)"
    links = (r"\s+",  # "my mum Pilar"
             r"(?:\s+[\w'’-]+){0,2}?(?:\s*[,(:]\s*|\s+[-–—]\s+)",  # "mum (Gulnara)", "teacher in almaty - Aruzhan"
             r"(?:\s+[\w'’-]+){0,3}?(?:\s+(?:s['’]appelle|se\s+llama|se\s+chama|hei(?:ß|ss)t|ist)\s+|['’]s\s+name\s+is\s+"
             r"|\s+(?:is|was)\s+(?:called\s+|named\s+)?|\s+(?:called|named)\s+)")  # "my new manager at the port is called Henrique"
    for m in re.finditer(rf"(?i:\b(?:{ws})(?:s|es)?)\b", text):
        for i, link in enumerate(links):
            f = re.match(rf"(?:{link}){name}", text[m.end():m.end() + 80])
            if f and _a_name(f["n"], lower=i > 0):  # "mum complained": a bare word after it is a name only if capitalised
                return True
    return any(_a_name(m["n"]) for m in re.finditer(rf"{name}\s*(?:,\s*|\s+is\s+|\s*\()(?i:my|our|user['’]s|her|his|their|mi|mon|ma|mein|meine|meu|minha)\s+(?:\w+\s+)?(?i:{ws})\b", text)) \
        or (bool(_PROFESSIONAL & set(relations)) and _TITLED.search(text) is not None)  # "a dentist appointment ... with Dr. Bakker"


_PROFESSIONAL = frozenset({"dentist", "doctor", "vet", "therapist", "teacher", "coach", "physio"})
_TITLED = re.compile(r"\b(?:Dr|Dra|Prof)\.?\s+(?-i:[A-Z])[\w’'-]+")


def _a_name(word: str, lower: bool = True) -> bool:
    """A capitalised word that is no pronoun or sentence word, or (``lower``) a lower-case one no lexicon knows."""
    w = re.sub(r"^(?i:Dr|Dra|Frau|Herr|Mme|Sr|Sra)\.?\s+", "", word)
    if w[:1].isupper():
        return w.casefold() not in english_words() or w.casefold() in ("will", "may", "rose", "grace")
    if not lower:
        return False
    known = known_words()
    forms = {w, *((w[:-2], w[:-1]) if w.endswith("ed") else (w[:-3], w[:-3] + "e") if w.endswith("ing") else ())}  # "complained"
    return w.isalpha() and not forms & known


def says_possessed(thing: str, text: str, pool: Sequence[str], matcher: Any = None) -> bool:
    """``text`` speaks of the ``thing`` of a relation a "name" question asks ("What's my brother's
    dog called?" is not answered by "User's younger brother is Pablo."): by its word, by a word of
    the relation it is ("husband" / "ihr Verlobter Pieter"), or by meaning (the matcher's
    :meth:`~.forms.AnswerMatcher.about`: "my girl's school" / "the Deutsche Schule")."""
    if _covered(thing, pool) or any(_covered(w, pool) for r in asked(f"my {thing}").relations for w in (r, *relation_words(r))):
        return True
    return matcher is not None and getattr(matcher, "available", False) and matcher.about((thing,), text)


def valued(kind: str | None, text: str, question: str) -> bool:
    """The memory holds a value of a kind its words alone show: a breed or a year (:func:`holds`)."""
    return kind in ("breed", "year") and holds(kind, text, question)
