"""A question said as not remembering (issue 28.7, "indirect"): "Tía Solange wants to visit Mom in
hospital and I don't remember which hospital it is.", "I keep forgetting my boss's surname", "The
parents at school asked what telescope the club uses and I drew a blank." Read by clause
structure: a verb of not knowing ("forget", "can't remember", "blanking on", "drew a blank" after
"asked") and its complement, an embedded question ("which hospital it is") or a noun phrase ("my
boss's surname"). :func:`as_recall` turns it into the recall request the answer pipeline reads
(``retrieval.questions.recall_core`` and ``direct``) or the direct question: "Remind me which
hospital it is.", "What is my boss's surname?" A direct question is returned unchanged; so is an
errand or a thing left behind ("I forgot to buy milk", "I forgot my keys"). Capture's classifier
reads such a message as a question (it tells nothing to remember). Pure; no I/O.
"""

from __future__ import annotations

import re

# "I don't remember", "can't recall", "I forget", "I've forgotten", "I keep forgetting", "I'm blanking on",
# "not sure I remember", "I couldn't say"
_NOT_KNOWING = re.compile(
    r"\b(?:(?:i\s+)?(?:do\s+not|don['’]?t|can\s*not|can['’]?t|cannot|couldn['’]?t|could\s+not)\s+(?:remember|recall)"
    r"|not\s+sure\s+(?:if\s+)?I\s+remember|(?:I\s+)?(?:keep\s+)?forget(?:ting)?|(?:I\s+)?(?:have\s+|['’]ve\s+)?forgotten|(?:I\s+)?forgot"
    r"|(?:I\s*['’]?m\s+|am\s+)?blanking\s+on|couldn['’]?t\s+say|no\s+idea"
    r"|my\s+mind\s+(?:went|goes|is\s+going)\s+(?:\w+\s+)?blank\s+(?:about|on)|(?:drawing|drew)\s+a\s+blank\s+on"
    r"|(?:I['’]ve\s+|I\s+have\s+)?lost\s+track\s+of|(?:I\s+)?can['’]?t\s+think\s+of)\s+",
    re.I,
)
# what tells that the person did not know it: "I drew a blank", "my brain just went empty", "I totally blanked",
# "I honestly don't know the date", "I'm not sure anymore", "I just mumbled something", "I'm second-guessing myself"
_BLANK = (r"(?:I|my\s+(?:mind|brain|head))(?:\s+(?:\w+\s+){0,2}?|(?=['’]))(?:drew\s+a\s+blank|blanked|(?:went|['’]s\s+gone|has\s+gone|is\s+gone)\s+(?:\w+\s+)?(?:empty|blank)|(?:do\s+not|don['’]?t|didn['’]?t)\s+know"
          r"|(?:couldn['’]?t|could\s+not|can['’]?t)\s+(?:say|remember|recall|think)|mumbled|(?:am|['’]m)\s+(?:not\s+sure|second[-\s]guessing)"
          r"|(?:don['’]?t|do\s+not)\s+have\s+(?:it|the\s+\w+)|have\s+no\s+(?:idea|clue)|forgot)")
# "... asked what telescope the club uses and I drew a blank", "... asked about drug allergies and my mind went blank",
# "the mortgage broker asked for my current salary and now I'm second-guessing myself"; a form that asks needs no tail
# ("the pet insurance form asks how old Biscuit is")
_ASKED_BLANK = re.compile(r"\b(?:asked|asks|asking|is\s+asking|wants\s+to\s+know|wanted\s+to\s+know|wants|needs)\s+(?:me\s+)?(?P<c>.+?)\s*,?\s+(?:and|but|so)\s+(?:\w+\s+){0,2}?" + _BLANK
                          + r"|\b(?:form|sheet|application|it)\s+asks\s+(?:for\s+)?(?P<f>(?:what|which|where|when|who|how|about|for|my)\b.+?)\s*[.!]*$"
                          # someone asking what the person should know, no blank told: "dad's asking which day I'm flying over"
                          + r"|\b(?:is|['’]s|keeps|kept)\s+asking\s+(?:me\s+)?(?P<r>(?:what|which|where|when|who|how)\b.+?)\s*(?:[,;]|\s+so\s+|\s+because\s+|[.!]*$)", re.I)
# a value of someone's that is gone from mind: "her name has completely gone", "his birthday slipped my mind"
_GONE = re.compile(r"(?P<c>\b(?:my|his|her|their|(?-i:[A-Z])[\w’'-]+['’]s)\s+(?:[\w’'-]+\s+){0,2}?(?:name|surname|birthday|number|address|date))\s+"
                   r"(?:has\s+|is\s+|['’]s\s+)?(?:\w+\s+)?(?:gone|slipped\s+my\s+mind|escapes\s+me|escaped\s+me)\b", re.I)
# a value someone needs of the person's: "need my manager's full name for the reference section", "the pharmacist wants
# my current levothyroxine dose" (what value: a word of a value, not "I need my glasses")
_NEEDS = re.compile(r"\b(?:need|needs|want|wants)\s+(?P<c>(?:my|our)\s+(?:[\w’'-]+\s+){0,3}?(?:name|surname|number|address|date|dose|salary|rent|age|birthday|email|phone)(?:\s+number)?)\b", re.I)
_BLANK_TAIL = re.compile(r"\s*,?\s+(?:and|but|so)\s+(?:\w+\s+){0,2}?" + _BLANK + r".*$", re.I | re.S)
_WH = re.compile(r"^(?:what|which|where|when|who|whom|whose|how|why)\b", re.I)
# "if I told you what my girlfriend does": what is asked is the clause inside
_IF_TOLD = re.compile(r"^(?:if|whether)\s+I\s+(?:ever\s+)?(?:told|mentioned|said)\s+(?:it\s+)?(?:to\s+)?(?:you\s+)?", re.I)
# a thing of theirs or someone's, a few words and no verb: "my boss's surname", "Chispa's vet's name" (not "the exact day":
# what it is of is in the clause before)
_NOUN_PHRASE = re.compile(r"^(?:my|our|his|her|their|(?-i:[A-Z])[\w’'-]+['’]s|the\s+(?:name|date|number|address)\s+of|the\s+(?:[\w’'-]+\s+){1,3}of\s+(?:my|our))\s+(?!.*\b(?:is|was|are|were|has|had|will|did|does)\b)(?:[\w’'-]+\s*){1,6}$", re.I)
# a request tail that asks nothing of its own: "..., remind me?", "... - can you tell me?", "..., any idea?"
_ASK_TAIL = re.compile(r"\s*[,;–—-]?\s*(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:remind\s+me|tell\s+me|any\s+idea|do\s+you\s+know"
                       r"|do\s+you\s+remember)(?:\s+please)?\s*[?？]+\s*$", re.I)
_HEDGE = re.compile(r"^(?:exactly|quite|really|honestly|even|anymore)\s+", re.I)  # "can't remember exactly what my rent is"
_NAMED = re.compile(r"(?<=\s)(?-i:[A-Z][a-zà-ÿ])[a-zà-ÿ’'-]*\b(?!['’]s)")  # a name inside the sentence ("... get Aisha a present")
_POSSESSOR = re.compile(r"\b(?P<np>(?:my|our)\s+[\w-]+|(?-i:[A-Z])[\w’'-]+['’]s\s+[\w-]+)\b(?![\w'’])", re.I)


# a question asked "again" (what was told before, at its end or before an aside): "what was the ex's name again",
# "what did krill die of again, can't face scrolling back"; fillers before it are no part of it ("hey", "lol")
_AGAIN = re.compile(r"^(?P<core>.+?)\s+again\b(?:\s+(?:lol|haha+|lmao|pls|please))?\s*[?!.]*\s*(?:[,;—-]\s.*)?$", re.I | re.S)
_OWN = re.compile(r"\b(?:my|i|me|our|we|i['’]m)\b", re.I)
_OPENING = re.compile(r"^(?:(?:hey|hi|so|ok(?:ay)?|lol|haha+|hmm+|um+|btw|oh|wait|sorry|and)[,!.]?\s+)+", re.I)


def as_recall(text: str) -> str:
    """The recall request ``text`` asks by saying what the person does not remember (module
    docstring), else ``text``."""
    if (again := _AGAIN.match(text)) is not None and _WH.match(core := _OPENING.sub("", again["core"]).strip()) \
            and not core.lower().startswith("why") and not _OWN.search(core):  # "why ... again": a reason; "my ... again": asked already
        return f"Remind me {core}."  # "hey what night's pottery again": what was told, asked again
    if (tail := _ASK_TAIL.search(text)) is not None and tail.start() > 0:  # "I can't remember what Biscuit's vet is called, remind me?"
        return asked if (asked := as_recall(text[: tail.start()])) != text[: tail.start()] else text
    if text.rstrip().endswith(("?", "？")):
        return text  # a direct question ("I forget - what food do I have to keep away from?")
    forgot = False  # "I forgot my keys": left behind, not unknown, unless it is someone's ("my boss's surname")
    if (m := _ASKED_BLANK.search(text)) is not None:
        said = m["c"] or _BLANK_TAIL.sub("", m["f"] or "") or m["r"]  # "form asks for drug allergies and my mind's gone blank"
    elif (m := _GONE.search(text) or _NEEDS.search(text)) is not None:
        said = m["c"]
    elif (n := _last(_NOT_KNOWING, text)) is not None:
        said, forgot = text[n.end():], "forg" in n[0].lower()
    else:
        return text
    said = _HEDGE.sub("", _IF_TOLD.sub("", said.strip())).rstrip(" .!?…")
    if not said:
        return text
    if said.lower().startswith(("about ", "for ")):  # "asked about drug allergies": the person's
        said = said.split(None, 1)[1]
        said = said if re.match(r"(?:my|our)\b", said, re.I) else f"my {said}"
    if re.match(r"(?:his|her|their|its)\b", said, re.I) and (owner := list(_POSSESSOR.finditer(text[: text.find(said)]))):
        said = f"{owner[-1]['np']}'s {said.split(None, 1)[1] if ' ' in said else ''}".strip()  # "Chispa's vet ... his name"
    if _WH.match(said):  # "... a birthday present for Aisha and I've lost track of when her birthday is": Aisha's
        if (who := re.search(r"\b(?:his|her)\b", said, re.I)) and (named := _NAMED.findall(text[: text.find(said)])):
            said = f"{said[: who.start()]}{named[-1]}'s{said[who.end():]}"
        elif (who := re.search(r"\b(?:he|she)\b", said, re.I)) and (named := _NAMED.findall(text[: text.find(said)])):
            said = f"{said[: who.start()]}{named[0]}{said[who.end():]}"  # "reminiscing about Krill ... what colour she was"
        return f"Remind me {said}."
    known = not forgot or re.search(r"['’]s\b|\bnames?\b", said) is not None
    return f"What is {said}?" if known and _NOUN_PHRASE.match(said) else text  # not "I forgot to buy milk", "no idea she was ..."


def _last(rx: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = list(rx.finditer(text))
    return found[-1] if found else None
