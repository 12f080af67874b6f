"""What a message asks, as far as memory answers need it (issue 28): is it a question about a
fact of the person's life (memory may answer it, and "I don't know that yet" may be said when
nothing comes close), or a general one (arithmetic, knowledge, advice, translation, a judgement;
memory never refuses or replaces its reply)? Pure; no I/O.

**About the person** (:func:`about_person`): a question (ends in "?", or starts with a question
word of the six capture languages) that speaks of the person (:data:`vocabulary.SELF_WORDS`,
"我", a Spanish first-person verb right after a question word: "¿Dónde vivo?").

**General** (:func:`general`), whatever "my" it holds: it checks a claim that is not about the
person ("Am I right that 2+2 is 4?"), carries its own data (an arithmetic expression, two or
more numbers, a condition with a number "if I weigh 70 kg ...", "if a recipe needs 375 g ..."),
asks for a translation, asks the assistant to do something ("suggest a gift for my mother's
birthday", "how do I / how can we ...", "should I ...", "what to ...", "que faire ?"), or asks
for a judgement of the person's plan ("is my plan to learn Spanish in a month realistic?").

**Personal fact** (:func:`asks_personal_fact`) = about the person and not general: the only
questions a memory answer may be chosen for and the only ones "I don't know that yet" may
answer.
"""

from __future__ import annotations

import re
import unicodedata

from assistant.memory.language.cues import PAST
from assistant.memory.language.reading import reading
from assistant.memory.retrieval import vocabulary as V
from assistant.memory.retrieval.general_shapes import ask_first, explains, knows, last_ask, tag_judgement, unquoted  # noqa: F401 (also read as questions.X)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\d+(?:[.,]\d+)?", re.UNICODE)
_ARITH = re.compile(r"\d\s*(?:[-+*/×÷^=x]|plus|minus|times|divided|multiplied|squared|percent|%)\s*\d?", re.I)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_CONDITION = re.compile(r"\b(?:if|assuming|suppose|supposing|si|wenn|falls|caso)\b|\bse\s+(?:eu|meu|minha|o|a|os|as|um|uma)\b", re.I)
_TRANSLATE = re.compile(
    r"\btranslat|\bhow\s+(?:do|would|can)\s+(?:you|i|one)\s+(?:say|write|spell|pronounce)\b|\bwhat\s+does\s+.+\s+mean\b"
    r"|\btradu[cz]|\bübersetz|\bwie\s+sagt\s+man\b|\bcomment\s+dit-on\b|\bcómo\s+se\s+dice\b|\bcomo\s+se\s+diz\b|翻译|怎么说"
    r"|\b(?:cómo|como)\s+(?:eu\s+)?(?:digo|escribo|escrevo)\b|\bwie\s+sage\s+ich\b|\bcomment\s+(?:je\s+dis|dire)\b",
    re.I,
)
_SPANISH_SELF_VERB = re.compile(r"^[¿¡]?\s*(?:a\s+)?(?:qué|que|dónde|donde|cuándo|cuando|cómo|como|cuál|cual|con\s+quién|de\s+dónde|en\s+qué)\s+(?:\w+\s+)?(?P<v>\w+(?:[oé]|oy))\b", re.I)  # "soy", "estoy": -oy
# what a non-English request says in its English reading: tips, ideas, a gift to choose ("Was schenke ich meiner
# Schwester ...?" -> "what give I my sister ...?"); not the question shapes, which glosses bend ("Wohin" -> "where to")
_ADVICE_READ = re.compile(r"\b(?:tips?|ideas?|advice|suggest\w*|recommend\w*|precautions?)\b|\b(?:watch|look)\s+out\s+for\b|\bbe\s+careful\b|\bwhat\s+(?:give|gift|buy)\s+(?:i\s+|to\s+)?(?:my|for)\b", re.I)
_ADVICE = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|might|to)\s+i\b|\b(?:what|where|when|which)\s+(?:can|could|should|would|might)\s+i\b"
    r"|\b(?:what|where|when|which)\s+do\s+i\s+(?:need|find|get|go\s+to|make|fix|start|cook|bake|install|change|set|turn|write"
    r"|ask|say|tell|handle|deal|apply|use|buy|choose|pick|know\s+if|do\s+(?:if|when|about|with|to))\b"
    r"|\b(?:should|could|can|may|might|shall)\s+i\b|\b(?:can|could|would|will)\s+you\b|\bhelp\s+me\b|\bgive\s+me\b"
    r"|\btell\s+me\s+(?:how|a|an|some|about\s+(?!my\b|me\b))|\brecommend|\bsuggest|\bideas?\b|\bwrite\b|\bexplain\b"
    r"|\b(?:let's|lets)\b|\btips?\b|\bhow\s+(?:much|many)\s+(?:should|do\s+i\s+need)\b"
    r"|\bwhat(?:['’]s|\s+is|\s+are|\s+would\s+be)\s+(?:a\s+|some\s+)?(?:good|nice|great|fun|cheap|healthy|safe)\s+\w+"
    r"|\bany\s+[\w-]+\s+(?:i|we)\s+(?:can|could|should)\b(?!['’]t)|\b(?:a\s+good|the\s+best|a\s+better)\s+way\b|\bcomment\s+(?:je|on)\s+(?:peux|peut)\b"
    r"|\b(?:qué|que|quais|cuáles)\s+[\w-]+\s+(?:posso|puedo|podemos|devo|debo)\b|比较好|怎么安排"
    # deliberation: a modal after the person ("things I could do", "what we should bring"), "some" ideas, a gift to choose
    r"|(?<!\bso\s)(?<!\bthat\s)\b(?:i|we)\s+(?:could|should|might|ought\s+to)\b|\bwhat\s+are\s+some\b"  # not a purpose: "so i could start"
    r"|\b(?:cómo|como|qué|que|dónde|donde)\s+(?:puedo|podría|debo|debería|posso|poderia|devo|deveria)\b|\bcomment\s+(?:puis-je|pourrais-je|dois-je)\b"
    r"|\b(?:que|quoi)\s+(?:puis-je|dois-je)\b"
    r"|\b(?:how|what|where|when|which)\s+(?:can|could|should|do|might)\s+we\b|\b(?:cómo|como|qué|que)\s+(?:podemos|podríamos|debemos|deberíamos|devemos|poderíamos)\b"
    r"|\bcomment\s+(?:pouvons-nous|devons-nous)\b|\b(?:wie|was|wo)\s+(?:können|sollen|sollten)\s+wir\b"
    r"|\b(?:what|where|how|when)\s+to\s+\w+\b(?!\s+(?:i|we|you|he|she|they)\b)|\b(?:que|quoi)\s+faire\b|\b(?:qué|que)\s+hacer\b|\bo\s+que\s+fazer\b|\bwas\s+tun\b|\b(?:wie|was|wo)\s+(?:kann|könnte|soll|sollte)\s+ich\b|\b(?:puedes|podrías|pourriez|pouvez|kannst|können|podes|pode)\b|怎么办|如何|建议|帮我|推荐|应该",
    re.I,
)


def fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold().replace("’", "'")


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


def is_question(text: str) -> bool:
    t = text.strip()
    if not t or len(t) > 300:
        return False
    w = words(t)
    return t.endswith(("?", "？")) or (bool(w) and w[0] in V.QUESTION_STARTS | V.RECALL_STARTS) or t.startswith("¿")


def speaks_of_self(text: str) -> bool:
    """The text refers to the person: a self word of the six languages, "我", or a Spanish
    first-person verb right after a question word ("¿Dónde vivo?", "¿Qué deporte practico?"; not
    "¿En qué año llegó ...?")."""
    ws = words(text)
    if any(w in V.SELF_WORDS or w.split("'")[0] + "'" in V.SELF_WORDS for w in ws):
        return True
    if any(c in text for c in V.SELF_CHARS):
        return True
    m = _SPANISH_SELF_VERB.match(text.strip())
    if m is not None and _first_person_es(m["v"]):
        return True
    m = _PORTUGUESE_SELF_VERB.match(text.strip())  # "Onde é que passei a lua de mel?": -ei is "I" in the past
    return m is not None and _lexicon_word(m["v"], "pt") is not None


#: A Portuguese question word, then (within two words) a first-person preterite in -ei ("passei", "tirei", "comprei").
_PORTUGUESE_SELF_VERB = re.compile(r"^\s*(?:onde|quando|que|qual|quem|como|em\s+que\s+\w+|com\s+quem|o\s+que)\s+(?:é\s+que\s+)?(?:\w+\s+)?(?P<v>\w{2,}ei)\b", re.I)


def _lexicon_word(word: str, lang: str) -> str | None:
    from assistant.memory.language.gloss import lexicon  # the lexicon loads on first use

    return lexicon(lang).word(fold(word), lang)


def speaks_of_us(text: str) -> bool:
    """The text refers to the person with their household: a "we" word of the six languages
    (:data:`~.vocabulary.HOUSEHOLD_WORDS`; "我们" is :func:`speaks_of_self`'s)."""
    return any(w in V.HOUSEHOLD_WORDS for w in words(text))


def _first_person_es(word: str) -> bool:
    """A Spanish word ending in -o/-é that the lexicon reads as "I ..." ("vivo", "practico") or
    does not know (a verb it lacks); "año" (year) is no verb."""
    found = _lexicon_word(word, "es")
    return found is None or found.startswith("I ")


def about_person(question: str) -> bool:
    """A question that speaks of the person or a thing of their household ("what's the name of
    our dog?", not "our planet": :data:`~.vocabulary.OUR_WORDS`; not "we", which general
    questions use: "Why do we dream?"; see the module docstring); general or not."""
    said = unquoted(question)  # "How do I say 'my name is' in Japanese?": the quoted words are mentioned, not said
    said = last_ask(ask_first(said))  # what it asks, not what it tells around it ("My ferret once swallowed rubber - what ... ?")
    ws = words(said)
    ours = any(w in V.OUR_WORDS and (i + 1 == len(ws) or ws[i + 1] not in V.EVERYONES) for i, w in enumerate(ws))
    return is_question(question) and (speaks_of_self(said) or ours or bool(_WE_DID.search(said)))


# "we" in a past, a plan or a stay is the household's ("Which hotel are we staying at?", "Where did we go?"); in the
# simple present it may be anyone ("Why do we dream?")
_WE_DID = re.compile(r"\b(?:did|are|were|will|have|had|was)\s+we\s+(?!supposed\b|allowed\b|meant\b)(?:\w+\s+)?(?:\w+ing|\w+ed|go|get|fly|stay|buy|meet|see|move|do)\b"
                     r"|\bwe\s+(?:went|were|moved|met|bought|got|stayed|flew|married|booked)\b", re.I)


def _checks_claim(q: str) -> bool:
    """"Am I right that 2+2 is 4?": the claim after the check phrase does not speak of the person."""
    low = fold(q)
    for phrase in V.CLAIM_CHECK:
        i = low.find(phrase)
        if i < 0:
            continue
        rest = low[i + len(phrase):]
        rest = re.sub(r"^\s*(?:that|to\s+say|in\s+saying|que|dass|de\s+dire)\b", "", rest)
        return not speaks_of_self(_GENERIC_I.sub(" ", rest))
    return False


# "I" as anyone, with a modal of what one can, must or may do ("Is it true that I can't see the Great Wall from space?")
_GENERIC_I = re.compile(r"\b(?:i|we|ich|je|eu|yo)\s+(?:can|can't|cannot|could|need\s+to|have\s+to|must|should|may|darf|muss|kann|peux|dois|posso|devo|puedo|debo)\b[^,.;?]*"
                        r"|\bich\b[^,.;?]*\b(?:darf|muss|kann|soll)\b|\bmeinem\b")

_RECALL = re.compile(
    r"\b(?:remind|tell)\s+me\s+(?:again\s+)?(?:about\s+)?(?:my|where|what|when|who|which|whether|if)\b|\b(?:remember|recall|know)\s+(?:my|where|what|when|who|which|whether|if)\b"
    r"|\bdo\s+you\s+(?:remember|know|recall)\b",
    re.I,
)


_SET_IN_PAST = re.compile(r"\bold\s+(?!(?:friend|pal|mate|buddy|man|lady|colleague|classmate|neighbou?r)s?\b)|\b(?:former|previous|used\s+to|back\s+(?:then|when|in)|ago|last\s+(?:week|month|year|summer|winter)"
                          r"|when\s+(?:i|we)\s+(?:was|were|lived|had|worked))\b", re.I)


def _requests(q: str) -> bool:
    if _RECALL.search(q):  # "can you remind me where I live?" asks memory, not for help
        return False
    ws = words(q)
    while ws and ws[0] in ("please", "can", "could", "would", "will", "you", "por", "favor", "bitte", "pourriez", "vous",
                           "pouvez", "podrías", "puedes", "pode", "poderia"):  # fmt: skip
        ws = ws[1:]
    if bool(ws) and ws[0] in V.REQUEST_WORDS:
        return True
    if (asks := [m[0] for m in _ADVICE.finditer(q)]) and not (_SET_IN_PAST.search(q) and all(re.search(r"\bcould\b", a, re.I) for a in asks)):
        return True  # "what could I cook?"; not a past "could" ("What could I see from the balcony of my old flat?")
    english = reading(q)  # "¿Qué consejos hay para ...?" -> "what tips there is for ...?"
    return english != q and bool(_ADVICE_READ.search(english))


def asks_advice(q: str) -> bool:
    """The question asks for tips, ideas, advice or a suggestion, in its words or its English reading
    ("My cat and my dog don't get along, any tips?"): a memory is context for it, never its answer."""
    return bool(_ADVICE_READ.search(q) or _ADVICE_READ.search(reading(q)))


def _judgement(q: str) -> bool:
    """"Is my plan to learn Spanish in a month realistic?": a judgement, not a recall."""
    for text in dict.fromkeys((q, reading(q))):  # "Ist es realistisch, dass ...?" -> "is it realistic that ...?"
        ws = words(text)
        if bool(ws) and ws[0] in ("is", "are", "was", "would", "will", "does", "do") and any(w in V.JUDGEMENTS or w in V.VERDICTS for w in ws[2:]):
            return True
    return False


def carries_data(q: str) -> bool:
    """The question brings what is needed to answer it: an arithmetic expression, two or more
    numbers, or a condition with a number ("if I weigh 70 kg", "if a recipe needs 375 g"; "I
    can't remember if I ever told you my hometown." brings nothing)."""
    n = len(_NUMBER.findall(q))
    return bool(_ARITH.search(q)) or n >= 2 or (n >= 1 and bool(_CONDITION.search(q)))


# a conversion of a quantity: "How many micrograms is 2000 IU?", "Quantos metros tem uma milha?" (read in English)
# ("quantos anos tem a Clara?" is "how many years has a Clara": an age, a name after the article)
_CONVERT = re.compile(r"\b(?i:how\s+(?:many|much)\s+[a-z]+\s+(?:(?:is|are)\s+(?:there\s+)?in|is|are|in|has|have|makes?))\s+(?:(?i:an?|one)\s+[a-z]|\d)")
# the person's own count ("How many nights in a row did I work ...?"): no conversion
_OWN_COUNT = re.compile(r"\b(?:do|did|have|had|will|was|were|am)\s+(?:I|we)\b", re.I)
# which kinds of things do something, the person only its setting: "What exercises help my knee recover ...?",
# "Which herbs grow well in my garden ...?" (a plural noun, then a bare present verb: not "What books have I read?",
# "Which friends came to my party?")
_KINDS = re.compile(r"^\s*(?i:what|which)\s+(?:(?P<a>[a-z]+)\s+)??(?P<n>[a-z]+s)\s+(?P<v>[a-z]+)\b")
_AUX = frozenset("do does did is are was were has have had can will would should could may might must am".split())


def _about_kinds(q: str) -> bool:
    m = _KINDS.match(q)
    if m is None or {m["a"], m["n"], m["v"]} & _AUX or m["v"] in ("i", "we", "my", "our", "you", "me"):
        return False
    return not m["v"].endswith(("ed", "s")) and m["v"] not in PAST


def computes(question: str) -> bool:
    """Answered from the question itself or from general knowledge, never from memory: it
    checks a claim not about the person, carries its own data, asks for a translation or a
    conversion, or asks which kinds of things do something (:data:`_KINDS`)."""
    q = question.strip()
    return bool(q) and (_checks_claim(q) or carries_data(q) or bool(_TRANSLATE.search(q)) or (bool(_CONVERT.search(reading(q))) and not _OWN_COUNT.search(q))
                        or _about_kinds(q))


def requests(question: str) -> bool:
    """Asks the assistant to do something or to judge ("Which medicine should I avoid?", "is
    my plan realistic?"): a memory may help, but the reply is the model's."""
    q = question.strip()
    return bool(q) and any(_requests(c) or _judgement(c) or tag_judgement(c) or explains(c) or knows(c)
                           for c in dict.fromkeys((q, last_ask(q), ask_first(q))))  # "Qual é a capital da Noruega? Quero visitar ..."


def general(question: str) -> bool:
    """A general question or request, never refused or replaced (see the module docstring)."""
    return computes(question) or requests(question)


def asks_personal_fact(question: str) -> bool:
    """About the person and not general: memory may answer it (and say it does not know)."""
    return about_person(question) and not general(question)


_RECALL_PREFIX = re.compile(
    r"^\s*(?:(?:please|so|ok|okay|hey|and)\s*,?\s+)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:remind\s+me|tell\s+me|recall|remember|do\s+you\s+(?:know|remember|recall)|i\s+forgot|i\s+can['’]?t\s+remember)"
    r"\s+(?:again\s+)?(?:,\s*)?",
    re.I,
)


def recall_core(question: str) -> str:
    """The question inside a recall request: "Remind me where I live." -> "where I live.",
    "Can you tell me my name?" -> "my name?" (unchanged when there is no such request)."""
    core = _RECALL_PREFIX.sub("", question, count=1)
    return core if core.strip() and core != question else question


_EMBEDDED = re.compile(r"^(?P<wh>(?:what|which|where|when|who|how)(?:\s+[\w-]+)?)\s+(?:(?P<am>I['’]m|I\s+am)|I\s+(?P<aux>can['’]t|can|could|should|will|won['’]t|have|was)|I)\s+", re.I)


def direct(question: str) -> str:
    """The direct question a recall request asks ("Remind me which town I'm originally from." ->
    "which town am I originally from."; "Tell me where I live." -> "where do I live."): the
    subject after its verb, as the slot questions are written."""
    core = recall_core(question)
    m = _EMBEDDED.match(core.strip())
    if core != question and m is None and (o := _EMBEDDED_OWNED.match(core.strip())) is not None:
        return _owned_direct(o)  # "Remind me what my partner does." -> "what does my partner do."
    if core == question or m is None:
        return question
    verb = "am" if m["am"] else m["aux"] or "do"
    return f"{m['wh']} {verb} I {core.strip()[m.end():]}"


# "what my partner does", "where our dog sleeps", "who my sister is": a thing of the person's as the subject
_EMBEDDED_OWNED = re.compile(r"^(?P<wh>(?:what|which|where|when|who|how)(?:\s+[\w-]+)?)\s+(?P<np>(?i:my|our)\s+[\w'’-]+)\s+"
                             r"(?P<v>is|are|was|were|[a-z]+s)\b(?P<rest>.*)$", re.I)


def _owned_direct(m: re.Match) -> str:
    v, rest = m["v"].lower(), m["rest"]
    if v in ("is", "are", "was", "were"):
        return f"{m['wh']} {v} {m['np']}{rest}"
    base = v[:-2] if v.endswith("es") and v[:-2].endswith(("s", "x", "z", "ch", "sh", "o")) else v[:-1]
    return f"{m['wh']} does {m['np']} {base}{rest}"


# "Who is my physio?" asks whose name fills the role ("Who is Joost?" asks who he is to the person)
_ASKS_NAME = re.compile(r"\bnamed?\b|\bcalled\b|\bcall\s+(?:him|her|them|it)\b|^\s*who(?:\s+is|['’]s)\s+(?:my|our)\b", re.I)
_ASKS_SURNAME = re.compile(r"\b(?:surname|last\s+name|family\s+name)\b", re.I)
_ASKS_BREED = re.compile(r"\b(?:what|which)\s+(?:breed|kind\s+of\s+(?:dog|cat)|type\s+of\s+(?:dog|cat))\b", re.I)
_ASKS_COLOUR = re.compile(r"\b(?:what|which)\s+colou?r\b", re.I)
_ASKS_YEAR = re.compile(r"\b(?:what|which)\s+year\b(?!\s+(?:of|at|in)\s+(?:school|uni|university|college)\b)", re.I)  # not "what year of school"
_ASKS_NUMBER = re.compile(r"\bhow\s+(?:old|many|much|long|far|tall|fast)\b|\bwhat\s+age\b", re.I)
# an identifier, not a quantity: "my flight number", "the Subaru's registration", "my number plate"
_ASKS_CODE = re.compile(r"\b(?:flight|registration|reg|plate|policy|account|reference|ref|booking|passport|membership|tracking|seat)(?:\s+(?:number|no\.?|#))?\s*[?.!]*\s*$|\b(?:number\s+plate|(?:flight|registration|reg|plate|passport|policy) number)\b", re.I)
# "When do I need my glasses?" may be an occasion; "When is Mum's birthday?" asks a time
_ASKS_WHEN = re.compile(r"\b(?:what|which)\s+(?:date|day|month|time)\b|^\s*when(?:['’]s|\s+(?:is|are|was|were)\b)"
                        # asked indirectly: "the date of Nacho's wedding", "I was wondering when that concert ... is"
                        r"|\bthe\s+(?:date|day)\s+of\b|\b(?:wondering|forgot|forget|remember|know|idea|sure|tell\s+me|remind\s+me)\s+when\b"
                        # a day that comes back, asked with "what": "What's Fernanda's birthday?" (not "What did I get her for her birthday?")
                        r"|^\s*what(?:['’]s|\s+is|\s+was)\s+(?:[\w.’'-]+\s+){0,3}?(?:birthday|bday|anniversary|name\s*day)\b", re.I)


def answer_type(question: str) -> str | None:
    """What kind of value the (English) question asks for, when its structure says so: "name"
    ("What's my dog called?", "What's Tom's middle name?"), "year" ("What year was I born?"),
    "number" ("How old is Mila?"), "when" ("Which day is my pottery class?", "What date do we fly?"), "colour"
    ("What colour is Bolacha?"), "surname" ("What's Piet's last name?"), "breed" ("What breed is Knopf?"), "code" ("my flight number?"), else None
    ("Who is Joost?" asks who he is to the person, not a name)."""
    if _ASKS_CODE.search(question):
        return "code"
    if _ASKS_YEAR.search(question):
        return "year"
    if _ASKS_NUMBER.search(question):
        return "number"
    if _ASKS_WHEN.search(question):
        return "when"
    if _ASKS_SURNAME.search(question):
        return "surname"
    if _ASKS_NAME.search(question):
        return "name"
    if _ASKS_COLOUR.search(question):
        return "colour"
    if _ASKS_BREED.search(question):
        return "breed"
    return None


_PART_OF = re.compile(r"\b(?:which|what)\s+(?!kind\b|type\b|sort\b)[\w-]+\s+of\s+(?:the\s+|my\s+|our\s+)?(?P<y>[\w'’-]+)", re.I)
_BEFORE = re.compile(r"\b(?:before|previous(?:ly)?|former(?:ly)?|used\s+to|prior)\b", re.I)
_POSSESSED = re.compile(r"\b(?:my|our)\s+(?:[\w-]+\s+)?[\w-]+['’]s\s+(?!(?:full\s+|first\s+|last\s+)?names?\b)(?P<thing>[\w-]+)", re.I)


def asked_role(question: str) -> frozenset[str]:
    """The words of a role the (English) question asks to be named (:data:`~.vocabulary.ROLE_HEADS`:
    "Which vet does Bracken go to?" -> vet's words), not an owner of what is asked ("my dentist's
    phone number": the phone's, not the dentist's; "my blood test" asks no blood group:
    :data:`~.vocabulary.ROLE_BEFORE`); empty when it asks none."""
    ws = [m.group() for m in re.finditer(r"[\w&-]+(?:['’]s?)?", question.casefold())]
    for w, after in zip(ws, [*ws[1:], ""]):
        if w in V.ROLE_HEADS and after in V.ROLE_BEFORE.get(w, (after,)):
            return V.ROLE_HEADS[w] | {w}
    return frozenset()


_QUALIFIED_NAME = re.compile(r"\b(?:my|our)\s+(?!full\b|first\b|real\b|own\b|given\b)[\w-]+\s+name\b|\bnickname\b", re.I)


def qualified_name(question: str) -> bool:
    """The question asks a name of a kind ("my Chinese name", "my middle name", "my nickname"), not
    the person's name: a name slot ("User's name is Lena.") does not answer it."""
    return bool(_QUALIFIED_NAME.search(question))


def part_of(question: str) -> str | None:
    """The whole a question asks a part of ("Which part of Glasgow do I live in?" -> "Glasgow",
    "Which unit of the hospital am I in?" -> "hospital"; not "what kind of"), else None: a memory
    naming the whole is no answer."""
    m = _PART_OF.search(question)
    return m["y"] if m else None


def asks_before(question: str) -> bool:
    """The question asks what was true before ("Where did I work before my current hospital?",
    "my previous job"): a profile slot, which holds what is true now, does not answer it."""
    return bool(_BEFORE.search(question))


def asks_possessed(question: str) -> bool:
    """Something of the person's relation is asked, not its name ("my girl's school", "our son's
    teacher"; not "my mum's name")."""
    return possessed(question) is not None


def possessed(question: str) -> str | None:
    """The thing of the person's relation asked about ("my brother's dog", "the dog of my
    brother" -> "dog"), else None."""
    m = _POSSESSED.search(question) or _OF_MY.search(question)
    return m["thing"].casefold() if m else None


#: "the name of the gecko of my daughter" (another language's word order in English): the gecko's
_OF_MY = re.compile(r"\b(?:the|a)\s+(?!name\b)(?P<thing>[\w-]+)\s+of\s+(?:my|our)\s+\w+", re.I)


_YES_NO = re.compile(r"^\s*(?:am|is|are|was|were|do|does|did|have|has|had|can|will)\b", re.I)


def yes_no(question: str) -> bool:
    """A yes/no question ("Am I vegetarian?"): the memory's own words may be its answer."""
    return bool(_YES_NO.match(question))
