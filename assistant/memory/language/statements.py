"""Which parts of a user message are statements about the person (what capture may keep).

    found = classify("I just moved to Lisbon. Can you recommend some restaurants?")
    found.statement_text   # "I just moved to Lisbon."
    [(u.text, u.act) for u in found.units]
    # [("I just moved to Lisbon.", Act.STATEMENT), ("Can you recommend some restaurants?", Act.QUESTION)]

A message is cut into *units*: sentences (after ``. ! ? 。 ！ ？``, at line breaks, and after an emoji
typed in place of a full stop before a question or request; list bullets dropped), and inside a sentence that is a question or a request, a leading clause before ``,``
``;`` ``:`` ``—`` ``，`` that is a statement on its own ("My daughter turns 6 on Saturday — any
ideas for a party theme?"; not a condition: "If I moved to Canada, would I need ...?" stays one
question). Each unit gets one :class:`Act`, decided by these rules in order (English, with cues for
Chinese, Spanish, German, French and Portuguese):

1. nothing left after leading fillers ("ok so", "haha", "thanks!", "by the way") -> chit-chat;
   a unit over ``MAX_UNIT_CHARS`` -> other (pasted text, not the person talking);
2. "remember/note/keep in mind that ...", also asked ("Could you remember that I ...?") -> a
   statement (the person tells something to keep); not "remember when ...";
3. a question: ends with ``?``/``？``, starts with ``¿``, an English wh-word followed by a verb
   ("how do i ..."), an auxiliary followed by a subject ("do i have ..."), an indirect question
   ("I was wondering how ...", "I'd like to know ..."), Chinese interrogatives (吗, 什么, 哪里 ...);
4. a standing instruction -> a statement: "call me ...", "from now on", "in the future", "don't
   ever", "always"/"never" opening an imperative, or next to answer/reply/respond (in the six
   languages), 以后 ...;
5. chit-chat and talk about the conversation: "I see", "I agree", "I love it", "I'm good",
   "I'm sorry", "I think you're wrong", "I have a question about ...", "my question is ...";
6. a request or command: an imperative first word ("Write ...", "Give me ..."), "please ...",
   "can you ...", "let's ...", "here's ...", "I need/want a <content>" ("I need a recipe for ...",
   "I'm looking for a poem ...", "Quiero una receta ..."), "I want you to ...", 请/帮我/给我 ...;
7. a hedge about the world ("I think it's going to rain") -> other; a hypothetical that opens with its
   condition ("If we had a bigger garden, we'd get a dog.") or someone else's opinion or hearsay
   ("My mum thinks I should ...", "Apparently ...") -> other (:mod:`assistant.memory.language.mood`);
8. a first-person declarative ("I ...", "my ...", "we ...", "Mum ...", 我, yo/mi, ich/mein,
   je/mon, eu/meu ...) -> a **statement**;
9. a declarative about the person's own people: it names one of them (``known_names`` from memory,
   plus the message's own "my partner Tom"), starts with he/she, or says "her name is ..." -> a
   statement ("Tom's band played tonight.", "He loves jazz.");
10. a declarative right after a statement goes on with it ("We booked the honeymoon. **Two weeks in
    Sri Lanka.**") -> a statement;
11. the person's life told without "I": a life event with the subject left out ("Just got back
    from Crete.", "Offer accepted!"), or a declarative in the past tense or with a time, a weekday,
    a month or a distance ("Long run today: 16 km.") -- not about the weather or sizes of things
    -> a statement;
12. anything else (general facts, fragments) -> other.

Whole-message rules: the bullets under an "About me:" header are statements; a header such as
"Work question:" or "Quick update:" is left out of its unit; everything after a request that hands
over text ("Can you make this email friendlier?", "Proofread my paragraph:") is that text, not the
person talking (other); and a message of six or more statements of which fewer than a third are
personal (first person, their people, instructions) is a pasted document: only the personal ones
stay statements.

Only statements become memories; everything else stays in the conversation (the message row is
kept and searchable). Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from assistant.memory.language import cues as cue
from assistant.memory.language import mood
from assistant.memory.language.casual import asides_after, question_word, written
from assistant.memory.language.corrections import said_instead
from assistant.memory.language.cues import own_names
from assistant.memory.language.indirect import as_recall
from assistant.memory.language.gloss import gloss
from assistant.memory.language.langid import detect


class Act(str, Enum):
    STATEMENT = "statement"  # about the person: life, people, plans, preferences, instructions
    QUESTION = "question"
    REQUEST = "request"  # a request for content or an action, incl. short commands ("Shorter.")
    CHITCHAT = "chitchat"  # greetings, thanks, reactions, talk about the conversation itself
    OTHER = "other"  # a declarative that is not about the person ("Paris is the capital of France.")


@dataclass(frozen=True)
class Unit:
    """A sentence or clause of the message: ``text`` is ``message[start:end]`` verbatim."""

    text: str
    start: int
    end: int
    act: Act
    rule: str  # which rule decided (for inspection and the benchmark's error listing)


@dataclass(frozen=True)
class Classified:
    units: tuple[Unit, ...]

    @property
    def statements(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.act is Act.STATEMENT)

    @property
    def statement_text(self) -> str:
        """The statement units, verbatim, in message order, joined by a space ("" if none)."""
        return " ".join(u.text for u in self.statements)

    @property
    def told(self) -> tuple[str, ...]:
        """What the person told in the message, in order: its statements, its other declaratives
        (not pasted text), and a question or request that names one of their own people ("help me
        write to my landlord Mr Tremblay") or that the statement after it stands on ("a message for
        Lucía? | Es la novia de mi hermano", "stretches for tendinitis? | my physio says it's from
        the chainsaw")."""
        units, out = self.units, []
        for i, u in enumerate(units):
            nxt = units[i + 1] if i + 1 < len(units) else None
            if u.rule in _NOT_TOLD or u.act is Act.CHITCHAT:
                continue
            if u.act in (Act.QUESTION, Act.REQUEST) and not (
                    own_names(u.text) or own_names(gloss(u.text) or "")
                    or (nxt is not None and nxt.act in (Act.STATEMENT, Act.OTHER) and nxt.rule not in _NOT_TOLD and _STANDS_ON.search(nxt.text))):  # fmt: skip
                continue
            out.append(u.text)
        return tuple(out)


_NOT_TOLD = ("pasted text", "too long")  # a document handed over, not the person talking
# a statement that stands on what was said before it: a third person pronoun, or (es, pt) a verb with its subject left out
_STANDS_ON = re.compile(r"\b(?i:he|she|it|they|him|them|his|its|their|er|sie|ihn|ihm|il|elle|ils|elles|lui|él|ella|ele|ela|dele|dela)\b"
                        r"|^(?i:es|está|era|fue|vive|é|foi|mora|c['’]est)\b|[他她它]")


MAX_UNIT_CHARS = 600  # longer "sentences" are pasted text, not the person talking

# ----------------------------------------------------------------------------- splitting

_ABBREV = re.compile(r"(?:\b(?:mr|mrs|ms|dr|st|prof|sr|jr|vs|etc|approx|no|e\.g|i\.e|a\.m|p\.m)\.|\b[A-Z]\.|^\s*\d{1,3}\.)$", re.I)
_SENT_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|[。！？]+[”’」』)]*|\n+|(?P<emoji>" + cue.EMOJI + r"+[\ufe0f\u200d]*(?=\s+\S))")


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of sentences, surrounding whitespace excluded."""
    spans, start = [], 0
    for m in _SENT_END.finditer(text):
        end = m.end()
        if m.group().strip() == "." and _ABBREV.search(text[start:end]):
            continue  # "Dr. Smith", "e.g. this"
        if m["emoji"] and not _asks_after(text, end):
            continue  # an emoji inside a sentence ("first day at ribeira ✂️ theyre shooting ...")
        spans.append((start, end))
        start = end
    spans.append((start, len(text)))
    return trimmed(text, spans)


def _asks_after(text: str, at: int) -> bool:
    """An emoji typed in place of a full stop: what follows it up to the sentence end is a question
    or a request ("our sand dragon took 1st place 🏆🐉 how do I write a thank-you note?"), which
    would otherwise swallow the statement before it."""
    nxt = re.search(r"[.!?…。！？\n]", text[at:])
    tail = text[at : at + nxt.end() if nxt else len(text)].strip()
    return bool(tail) and _act(tail, None)[0] in (Act.QUESTION, Act.REQUEST)


def trimmed(text: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` without their leading and trailing whitespace; spans left empty are dropped."""
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            out.append((s, e))
    return out


_CLAUSE_BREAK = re.compile(r"\s*(?:[,;，；：]|(?<!\d):|:(?!\d)|\s[—–-]\s|—)\s*")  # "6:45" is a time, not a break
_TRIM_END = " \t,;:，；：—–-"
_BULLET = re.compile(r"(?:[-*•·–—]|\d{1,2}[.)])\s+")
_SUBORDINATE = re.compile(r"^(?:if|when|whether|because|since|although|though|unless|while|once|before|after|as soon as"
                          r"|even if|in case|si|cuando|wenn|falls|ob|quand|se|quando|如果|要是)\b", re.I)


def _clauses(text: str, s: int, e: int, after_statement: bool = False) -> list[tuple[int, int]]:
    """Split a question/request sentence after a leading statement clause ("I'm vegetarian, so what
    can I eat?"), or after a request that hands over facts about the person ("Here's my background:
    I have 8 years of experience"; not text to work on: "Translate to French: I love my dog")."""
    for m in _CLAUSE_BREAK.finditer(text, s, e):
        head_end, tail_start = m.start(), m.end()
        if head_end <= s or tail_start >= e:
            continue
        head, tail = text[s:head_end], text[tail_start:e]
        if _SUBORDINATE.match(head):
            continue  # "If I moved to Canada, would I need ...?": one question
        act_head, act_tail = _act(head, None)[0], _act(tail, None)[0]
        if act_head is Act.OTHER and after_statement:
            act_head = Act.STATEMENT  # "My son is six, loves dinosaurs, where ...?": the subject goes on
        if act_tail in (Act.QUESTION, Act.REQUEST) and act_head is Act.STATEMENT:
            return [(s, head_end), *_clauses(text, tail_start, e, True)]
        # "...: I have 8 years of experience"; "how's it going, I got a new job at Tesco" (no "?" at its end)
        if ((m.group().strip() in (":", "：") or not text[s:e].rstrip().endswith(("?", "？"))) and act_head in (Act.QUESTION, Act.REQUEST)
                and act_tail is Act.STATEMENT and not hands_over(head)):  # fmt: skip
            return [(s, head_end), (tail_start, e)]
    return [(s, e)]


def hands_over(request: str) -> bool:
    """A request that hands over the text after it ("Translate to French: I love my dog"), not one
    whose text is quoted inside it ("Translate 'I am allergic to peanuts' into Portuguese please, |
    I'm flying to Lisbon on the 3rd": what follows the quote is the person talking)."""
    return cue.PASTE_INTRO.search(request) is not None and not _QUOTED_IN.search(request)


_QUOTED_IN = re.compile(r"(?<!\w)'[^']{2,}'(?!\w)|\"[^\"]{2,}\"|“[^”]{2,}”|‘[^’]{2,}’|«[^»]{2,}»|「[^」]{2,}」")


# a short lead-in without a verb before a colon ("Quick note:", "Fun fact:", "Kurze Notiz:", "跟你说一下："), left out like a header
_LEAD = re.compile(r"(?:[^\W\d_]+[ \t]+){0,2}[^\W\d_]+[ \t]*(?::[ \t]+(?=(?i:I|we|my|our)\b|[A-Z][^\W\d_]+\s)|：\s*(?=\S))")  # "Long run today: 16 km" keeps its lead
_NOT_LEAD = frozenset("""i my me we our you is are was were am be been has have had do does did it's i'm mi mis mein meine
    meinem unser unsere ma mon mes notre nos minha meu meus nossa nosso nuestro nuestra""".split())


def _lead(text: str, s: int, e: int) -> re.Match | None:
    m = _LEAD.match(text, s, e)
    return m if m and "我" not in m.group() and not {w.casefold() for w in re.findall(r"[\w'’]+", m.group())} & _NOT_LEAD else None


_ELIDED_MY = re.compile(r"(?:fav(?:ou?rite|e)?|favorite)\s+\w+(?:\s+\w+)?\s+(?:ever\s+)?(?:is|are|was|has\s+to\s+be)\b", re.I)


_CHANGED = re.compile(r"\b(?:moved|changed|switched)\s+to\b", re.I)


def _act(text: str, previous: Unit | None, names: re.Pattern | None = None, reread: bool = False) -> tuple[Act, str]:
    """The act of one unit (see the module docstring); ``previous``: the unit before it;
    ``names``: a pattern of the names of the person's own people and pets. A unit in another
    capture language that no rule finds personal is read once more in its word-by-word English
    (:func:`assistant.memory.language.gloss.gloss`: "Oma Gerda ist letzte Woche ins Pflegeheim
    gezogen." -> "grandmother Gerda is last week into the care home moved.": their life)."""
    core = cue.strip_fillers(text)
    if not core or not re.search(r"\w", core) or cue.CHITCHAT_WHOLE.match(core) or cue.CHITCHAT_WHOLE.match(text.strip()):
        return Act.CHITCHAT, "filler"
    if len(core) > MAX_UNIT_CHARS:
        return Act.OTHER, "too long"
    if cue.REMEMBER.match(core):
        return Act.STATEMENT, "remember"
    if cue.QUESTION.search(core) or cue.QUESTION.search(question_word(core)):  # "wat does my sistr do for work"
        return Act.QUESTION, "question"
    if as_recall(core) != core:  # "I keep forgetting my sister's husband's name": asks, tells nothing
        return Act.QUESTION, "not remembering"
    if any(c.cue for c in said_instead(text)):  # "actually its the 12th not the 10th": corrects what was said
        return Act.STATEMENT, "correction"
    if cue.STANDING.search(core):
        return Act.STATEMENT, "instruction"
    if cue.REACTION.match(core):
        return Act.CHITCHAT, "reaction"
    if cue.REQUEST_START.match(core) or cue.WANT_CONTENT.match(core) or cue.WANT_CONTENT_INTL.match(core) or cue.imperative(core):
        return Act.REQUEST, "request"
    hedge = cue.HEDGE.match(core)
    if hedge and not cue.has_first_person(hedge["rest"]):
        return Act.OTHER, "hedge"
    not_theirs = mood.whole_sentence(core) if names is None or not names.search(core) else None  # "Priya says Tom's band ...": their people
    if not_theirs:
        return Act.OTHER, not_theirs
    if cue.ABOUT_ME.match(core):
        return Act.OTHER, "about-me header"
    if cue.has_first_person(core) or cue.FAMILY_NAME.search(core) or cue.has_first_person(written(asides_after(core))):
        return Act.STATEMENT, "first person"  # also as chat typing reads: "mum lives in Taraz", "Madina (best friend)"
    if names is not None and names.search(core):
        return Act.STATEMENT, "their people"
    if cue.THIRD_PERSON.search(core):
        return Act.STATEMENT, "someone they know"
    if previous is not None and previous.act is Act.STATEMENT:
        return Act.STATEMENT, "continues"
    if _ELIDED_MY.match(core):  # "Favourite film ever is Local Hero.": "my" left out
        return Act.STATEMENT, "their favourite"
    if cue.SUBJECT_DROPPED.match(core) or ((cue.NARRATIVE.search(core) or cue.past_tense(core)) and not cue.WORLD.search(core)):
        return Act.STATEMENT, "their life"
    if not reread and detect(core) != "en" and (reading := gloss(core)):
        act, rule = _act(reading, previous, names, reread=True)  # the cues are English; its English reading, once
        # a time or a past tense alone is weak in a word-by-word reading ("mañana nevará en Madrid"): with a person word
        # (or a change of the person's own, said without "I" as Chinese does: "中文课从星期四改到星期三了")
        if act is Act.STATEMENT and (rule not in ("their life", "continues") or cue.PERSON_WORD.search(reading)
                                     or (detect(core) == "zh" and _CHANGED.search(reading))):
            return act, f"{rule} (English reading)"
    return Act.OTHER, "not about the person"


def classify(text: str, known_names: Iterable[str] = ()) -> Classified:
    """Cut ``text`` into units and give each its act (see the module docstring). ``known_names``:
    names of the person's own people and pets (from memory); the message's own "my sister Ana"
    adds to them."""
    text = text or ""
    names_set = set(known_names) | own_names(text)
    names = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(names_set, key=len, reverse=True)) + r")\b") if names_set else None
    units: list[Unit] = []
    previous: Unit | None = None
    pasted = listing = False
    for s, e in _sentences(text):
        bullet = _BULLET.match(text, s, e)
        if bullet:
            s = bullet.end()
        header = cue.HEADER.match(text, s, e) or _lead(text, s, e)
        if header and header.end() < e:
            s = header.end()
        if pasted:
            units.append(Unit(text[s:e], s, e, Act.OTHER, "pasted text"))
            continue
        act, rule = _act(text[s:e], previous, names)
        if listing and bullet and act in (Act.OTHER, Act.CHITCHAT):
            act, rule = Act.STATEMENT, "listed about me"
        listing = rule == "about-me header" or (listing and bullet is not None)
        spans = _clauses(text, s, e) if act in (Act.QUESTION, Act.REQUEST) else [(s, e)]
        for cs, ce in spans:
            while ce > cs and text[ce - 1] in _TRIM_END:
                ce -= 1
            piece = text[cs:ce]
            if len(spans) > 1:
                act, rule = _act(piece, previous, names)
                if cs == s and _ASKING_INTL.match(piece):  # "Wo spiele ich sonntags Schach, | und mit wem?": the question opens
                    act, rule = Act.QUESTION, "question"
            previous = Unit(piece, cs, ce, act, rule)
            units.append(previous)
            pasted = pasted or (act in (Act.QUESTION, Act.REQUEST) and hands_over(piece))
    return Classified(tuple(_pasted_document(_quoted(text, _leads_in(units)))))


# a question sentence in another capture language opening with its question word ("Wo spiele ich ...", "Où est-ce
# que ...", "Onde é que ..."): its first clause asks, even without the "?" the sentence ends with
_ASKING_INTL = re.compile(r"(?:wo|wann|wer|wie|warum|wieso|welche\w*|woher|wohin|was)\s+\w+\s+(?:ich|du|wir|er|sie|es|man|mein\w*)\b"
                          r"|(?:où|quand|comment|pourquoi|quel\w*|combien|qui)\s+(?:est-ce|est|sont|as|a|ai|avons|je|j['’]|tu|on|nous|vous)\b"
                          r"|(?:onde|quando|quem|qual|quais|quanto|como)\s+(?:é|está|estão|são|fica|eu|tu|você|a gente)\b"
                          r"|(?:dónde|cuándo|quién|cuál|cuánto|cómo|qué)\b", re.I)


# a clause, not an interjection ("Heads up.", "Quick update!"): a verb of being or having, or a past tense
_CLAUSE = re.compile(r"\b(?:is|are|was|were|has|have|had|got|gets|\w{3,}ed)\b|\w['’]s\s+(?!up\b)\w", re.I)


def _leads_in(units: list[Unit]) -> list[Unit]:
    """A declarative with no subject of its own ("Munro count is up to 57! Did Ben Lomond last
    Saturday."; in another language read by its English gloss) right before a statement about the person's life leads into it: a statement too,
    as one that follows a statement continues it. Talk of the world (weather, capitals) does not."""
    out = list(units)
    for i in range(len(out) - 2, -1, -1):
        u, nxt = out[i], out[i + 1]
        if (u.rule == "not about the person" and nxt.act is Act.STATEMENT and not cue.WORLD.search(u.text)
                and (_CLAUSE.search(u.text) or _CLAUSE.search(gloss(u.text) or ""))):  # "... terminée !": "... finished!"
            out[i] = Unit(u.text, u.start, u.end, Act.STATEMENT, "leads in")
    return out


def _quoted(text: str, units: list[Unit]) -> list[Unit]:
    """A unit that holds part of a quoted passage (:func:`cues.quoted_passages`) is someone's
    words or handed-over text, not the person talking: other."""
    quotes = cue.quoted_passages(text)
    if not quotes:
        return units
    return [Unit(u.text, u.start, u.end, Act.OTHER, "quoted text")
            if u.act is Act.STATEMENT and any(u.start < qe and qs < u.end for qs, qe in quotes) else u
            for u in units]  # fmt: skip


_PERSONAL = ("first person", "remember", "instruction", "their people", "listed about me")


def _pasted_document(units: list[Unit]) -> list[Unit]:
    """Many statements, few of them personal: a pasted document, not the person talking. Only
    the personal ones stay statements (at least 6 statements, fewer than a third personal)."""
    said = [u for u in units if u.act is Act.STATEMENT]
    personal = sum(1 for u in said if u.rule in _PERSONAL)
    if len(said) < 6 or personal * 3 >= len(said):
        return units
    return [u if u.act is not Act.STATEMENT or u.rule in _PERSONAL else Unit(u.text, u.start, u.end, Act.OTHER, "pasted text")
            for u in units]  # fmt: skip
