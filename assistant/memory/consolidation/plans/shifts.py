"""Changes said in plain words that do not name what they replace ("I drink green tea in the
mornings these days" after "I drink coffee every morning"; "I bought a new car, a Volvo" after
"I drive a Toyota Corolla"): which earlier statement each one ends. Pure, no I/O (issue 23).

A *shift* is a current record whose text carries a change cue and no addition, plan or past
cue (:func:`assistant.memory.language.shifts.shift_kind`). Its candidates are the current
records of the same scope first said before it (by source observation), from other messages,
that are not the person's name and do not themselves tell of an ending. Candidates are grouped
by their source message (a fact and its episode are one statement), scored by the best MiniLM
cosine between a record of the shift's message and a record of theirs:

    s(m)   = max_{a in shift message, b in m} cos(v_a, v_b)
    target = the record of argmax_m s(m) nearest the shift, kept iff  s(target) >= cosine[kind]
                              and  s(target) - max_{m' != target} s(m') >= margin
                              and  target is not restated by the shift (its content words are
                                   not all in the shift's)

Two more checks keep a change to what it says (issue 28, sixth session): it ends nothing of
someone else's when it is the person's, nor of the person's when it is someone else's
(:func:`whose`: "Noé calls me 'Lu' now instead of Lukas" vs "User is Lukas, 38."); and a message
that names what ended ("We left the flat in Bonfim and now ...") ends nothing else by meaning
("User lives in Porto." stays).

The target's *kin* end with it: the other records of its message that hold one of its values
("User works at Deloitte." beside "User works at Deloitte as an auditor."), never a neighbouring
clause of that message ("User lives in Ghent." beside "User works as a nurse.").

The margin is what keeps neighbours alive: "I'm working from home now" is about as close to
"I work as a nurse" as to "I take the train to the office", so it ends neither; one clear
nearest statement is what a plain-word change replaces. Thresholds are calibrated on the dev
halves of ``tests/data/truth_dev.json`` and ``tests/data/truth_neighbours.json`` only.

In the other five languages MiniLM's cosines are uniformly high (0.5-0.8 between unrelated
statements on the dev half) and the margins of true and false targets overlap (0.034-0.059), so
there the evidence is lexical (:func:`assistant.memory.language.shifts.content_words`, less
the words that only say who it is about: :func:`person_words`): the target is the one earlier
message sharing the most content words with the shift, kept iff it shares at least one and no
other message shares as many ("Ich habe mit dem Joggen aufgehört
und mache jetzt Pilates" ends "Ich gehe dreimal die Woche joggen"). An earlier message in another
language shares only names with it, so it is no candidate there ("j'en suis à 24 700 zł
maintenant ... Pour Wrocław j'ai acheté un vélo cargo" ends nothing of "I got the job ... in
wrocław").

Kin stay kin: a statement of who someone of the family is to the person ("User's son is
Filip.") is never ended by a change in that someone's life ("filip starts 4th grade ..."); nor is
a birthday or an anniversary ("Noor moved in this weekend!!" / "Noor's birthday is 12 August").

The decision stays :func:`~assistant.memory.language.temporal.resolve` (the later-starting state
supersedes), so the same pairs give the same changes on the hot path and in a tidy-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from assistant.memory.language.clauses import people
from assistant.memory.language.cues import KIN, PERSON_WORD
from assistant.memory.language.gloss import LANGS, gloss, lexicon
from assistant.memory.language.claims import NAME_SLOTS, claims, ends_something
from assistant.memory.language.langid import detect
from assistant.memory.language.shifts import content_words, shift_kind
from assistant.memory.language.today import ANNUAL
from assistant.memory.language.text import key_tokens
from assistant.memory.language.validate import STOPWORDS
from assistant.memory.records import Kind
from assistant.memory.store.tidying.snapshot import Rec, Snapshot


@dataclass(frozen=True)
class ShiftConfig:
    now_cosine: float = 0.45  # "now / these days / new ..." (ShiftConfig docstring: dev-calibrated)
    begin_cosine: float = 0.55  # "started / joined / became": a beginning more often adds
    margin: float = 0.06


@dataclass(frozen=True)
class Shift:
    old: Rec  # the statement that stops being true (a fact of its message when it has one)
    new: Rec  # the shift (a fact of its message when it has one)
    cosine: float
    runner_up: float
    kin: tuple[Rec, ...] = ()  # other records of old's message holding one of its values (its slot copy)


def _key(r: Rec) -> tuple[int, ...]:
    return r.message_ids or (-r.id,)


def _said(r: Rec):
    return r.observed_at or r.created_at


def _nearest(snap: Snapshot, target: Rec, recs: Iterable[Rec]) -> Rec:
    """The record of the shift's message that speaks of ``target``'s state (nearest by cosine;
    ties: a profile or fact before the episode): "User moved to Malmö the week of 2026-11-23.",
    not "User's household packed everything up." of the same message, gives the change its date."""
    v = snap.vectors[target.row]
    return max(recs, key=lambda r: (round(float(snap.vectors[r.row] @ v), 6), r.kind is not Kind.EPISODE, -r.id))


def _restated(old: Iterable[Rec], new: Iterable[Rec]) -> bool:
    """Every content word of some old record is in a new one: the same state said again."""
    def words_of(r: Rec) -> frozenset[str]:
        k = key_tokens(r.text)
        return k.content | k.proper

    new_words = [words_of(r) for r in new]
    for r in old:
        words = words_of(r)
        if words and any(words <= w for w in new_words):
            return True
    return False


def _candidates(by_msg: dict[tuple[int, ...], list[Rec]]) -> dict[tuple[int, ...], list[Rec]]:
    """Per message, the records that stand for what it said: its profiles and facts, or its
    verbatim episode when capture kept nothing else (a multi-clause episode is not one state)."""
    out = {}
    for key, recs in by_msg.items():
        lead = [r for r in recs if r.kind is not Kind.EPISODE]
        out[key] = lead or recs
    return out


@dataclass(frozen=True)
class Scored:
    """One shift message and its earlier statements, nearest first (see :func:`score_shifts`)."""

    recs: tuple[Rec, ...]  # the records standing for the shift's message
    kind: str  # "now" | "begin"
    ranked: tuple[tuple[float, tuple[Rec, ...]], ...]  # (s(m), records of m), s descending (English)
    lang: str = "en"
    shared: tuple[int, ...] = ()  # per ranked message: content words it shares with the shift (other languages)
    words: frozenset[str] = frozenset()  # the shift's content words, less who it is about (other languages)


def score_shifts(snap: Snapshot, recs: Iterable[Rec], *, taken: set[int] = frozenset()) -> list[Scored]:
    """Every current shift message among ``recs`` with its earlier messages scored by s(m)
    (module docstring), oldest shift first. Pure; the thresholds are :func:`plan_shifts`'."""
    now = snap.now
    by_msg: dict[tuple[int, ...], list[Rec]] = {}
    for r in recs:
        if r.row >= 0 and r.kind in (Kind.PROFILE, Kind.FACT, Kind.EXPERIENCE, Kind.EPISODE):
            by_msg.setdefault(_key(r), []).append(r)
    stands = _candidates(by_msg)
    langs: dict[tuple[int, ...], str] = {}  # each message's language, read once

    def lang_of(key: tuple[int, ...]) -> str:
        if key not in langs:
            langs[key] = detect(" ".join(r.text for r in stands[key]))
        return langs[key]

    out: list[Scored] = []
    for key, mine in sorted(stands.items(), key=lambda kv: min(_said(r) for r in kv[1])):
        kinds = {shift_kind(r.text) for r in mine} - {None}
        if not kinds or any(r.id in taken or not r.is_current(now) for r in mine):
            continue
        said, scope = min(_said(r) for r in mine), mine[0].scope
        olds = {okey: [o for o in rs if o.scope == scope and _said(o) < said]
                for okey, rs in stands.items() if not set(okey) & set(key)}  # fmt: skip
        olds = {k: v for k, v in olds.items() if v}
        if not olds:
            continue
        mv = snap.vectors[[r.row for r in mine]]
        ranked, rkeys = [], []
        for okey, rs in olds.items():
            cos = (snap.vectors[[o.row for o in rs]] @ mv.T).max(axis=1)
            order = sorted(range(len(rs)), key=lambda i: -float(cos[i]))
            ranked.append((float(cos[order[0]]), tuple(rs[i] for i in order)))
            rkeys.append(okey)
        kind = "now" if "now" in kinds else "begin"
        lang = lang_of(key)
        if lang == "en":  # the message's language: a foreign name in one fact is no language
            ranked.sort(key=lambda t: -t[0])
            out.append(Scored(tuple(mine), kind, tuple(ranked)))
            continue
        # who a statement is about is not its state: "Hier, Tomasz a commencé des cours de guitare"
        # shares only "Tomasz" with "Tomasz is a civil engineer." and ends nothing
        whom = person_words([r.text for rs in stands.values() for r in rs])
        words = frozenset().union(*(content_words(r.text) for r in mine)) - whom
        # a message in another language shares only names with it ("Pour Wrocław j'ai acheté un vélo cargo"
        # / "User got the job ... at the politechnika workshop in wrocław"): no evidence of the same state
        shared = [len(words & frozenset().union(*(content_words(o.text) for o in rs))) if lang_of(okey) == lang else 0
                  for (_, rs), okey in zip(ranked, rkeys)]
        order = sorted(range(len(ranked)), key=lambda i: (-shared[i], -ranked[i][0]))
        out.append(Scored(tuple(mine), kind, tuple(ranked[i] for i in order), "other", tuple(shared[i] for i in order), words))
    return out


_USER_REL_NAME = re.compile(r"\bUser['’]s\s+(?:[\w-]+\s+){1,2}is\s+(?P<name>[A-Z][\w'’-]+)")


def person_words(texts: Iterable[str]) -> frozenset[str]:
    """The words that say *who* a statement is about, casefolded: the names of the person's
    people ("my husband Tomasz", "User's husband is Tomasz.") and the relation words of the six
    languages (a word whose English in the lexicon is one: "mari", "hermana", "Bruder"), and in
    Chinese any capitalised Latin word."""
    out: set[str] = set()
    for t in texts:
        out |= {n.casefold() for n in people(t)}
        out |= {m["name"].casefold() for m in _USER_REL_NAME.finditer(t)}
        lang = detect(t)
        if lang == "zh":  # Chinese writes no capitals: a capitalised Latin word in it is a name ("Aga下个月要带她的狗Kluska")
            out |= {n.casefold() for n in re.findall(r"[A-Z][a-z]+", t) if n != "User"}
        for w in content_words(t):
            en = w if lang == "en" or lang not in LANGS else (lexicon(lang).word(w, lang) or "")
            if PERSON_WORD.fullmatch(w) or (en and PERSON_WORD.fullmatch(en.split()[-1])):
                out.add(w)
    return frozenset(out)


_SELF = re.compile(r"^(?:User|I|We)\b(?!:|['’]s)")
_OWNED = re.compile(r"^(?:User['’]s|My|Our)\s+(?P<a>[\w-]+)(?:\s+(?P<b>[\w-]+))?")  # "User's husband drives ...", "My only pet is ..."
# "Noé calls me 'Lu' now", "Morven lives for volleyball": a name, then its verb
_THIRD = re.compile(r"^(?P<n>[A-Z][\w'’-]+)(?:['’]s)?\s+(?:is|was|has|had|[a-z]+s|[a-z]+ed)\b")
_NO_NAME = STOPWORDS | frozenset("these those days today yesterday tonight since then last next".split())


def whose(text: str) -> str | None:
    """Whom a record's text is about: "user" (the person, their household), a name's folded word
    ("Noé calls me 'Lu' now" -> "noé"), or None when it does not say. A text in another capture
    language is read in its English gloss ("Nurlan hat im Zoo angefangen" -> "Nurlan has ...
    started"), a lead before a colon left out ("Kurz zu meinen Tieren: ich habe ..." -> "I have ...")."""
    text = re.sub(r"^User:\s+", "", text)
    english = gloss(text) or text
    for t in dict.fromkeys((text, english, re.sub(r"^[^:]{0,40}:\s+", "", english))):
        if (who := _whose(t)) is not None:
            return who
    return None


def _whose(text: str) -> str | None:
    if _SELF.match(text):
        return "user"
    if _USER_REL_NAME.match(text):  # "User's partner is Tom.": who the person's partner is, theirs
        return "user"
    if (o := _OWNED.match(text)) is not None:  # the person's husband is someone else; their job is theirs
        who = next((w for w in (o["a"], o["b"]) if w and PERSON_WORD.fullmatch(w)), None)  # "my older sister"
        return who.casefold() if who else "user"
    m = _THIRD.match(text)
    return m["n"].casefold() if m and m["n"].casefold() not in _NO_NAME and not m["n"].endswith("ly") else None  # "Finally moved ..."


def _same_subject(target: Rec, shift: Iterable[Rec]) -> bool:
    """A change of someone else's ends nothing the person said of themselves ("Noé calls me 'Lu'
    now instead of Lukas" vs "User is Lukas, 38."), and theirs nothing of someone else's ("I'm
    driving for DPD now" vs "User's husband drives a taxi."). Two others are not compared: one
    person has a name and a relation ("Ana" is "my sister")."""
    subjects = {whose(r.text) for r in shift} - {None}
    t = whose(target.text)
    return t is None or not subjects or ("user" in subjects) == (t == "user")


def _who_they_are(target: Rec, shift: Iterable[Rec]) -> bool:
    """``target`` says who someone of their kin is to the person ("User's son is Filip.") and the
    shift speaks of that someone ("filip starts 4th grade at primary school no. 45"): a change in their life is
    no change of who they are."""
    m = _USER_REL_NAME.match(target.text)
    if m is None or not KIN.search(target.text[:m.start("name")]):  # "User's boss is Anna." ends when Anna leaves
        return False
    name = m["name"].casefold()
    return any(name in {w.casefold() for w in re.findall(r"[\w'’-]+", r.text)} for r in shift)


def _ends_another(target: Rec, shift: Iterable[Rec]) -> bool:
    """The shift's message names what ended ("We left the flat in Bonfim and now we're in a little
    house in Foz") and ``target`` does not hold it ("User lives in Porto."): the change is that one."""
    ended = {w for r in shift for c in claims(r.text) if c.ended for w in c.value}
    k = key_tokens(target.text)
    return bool(ended) and not ended & (k.values | k.content | k.proper)


def plan_shifts(snap: Snapshot, recs: Iterable[Rec], *, taken: set[int] = frozenset(),
                config: ShiftConfig = ShiftConfig()) -> list[Shift]:  # fmt: skip
    """The (old, shift) pairs among ``recs`` (module docstring), oldest shift first. Records no
    longer current still compete: a shift whose nearest statement already ended (by this shift
    in an earlier run, or by anything else) ends nothing more, so runs never walk down the list."""
    now = snap.now
    out: list[Shift] = []
    taken = set(taken)
    for sc in score_shifts(snap, recs, taken=taken):
        threshold = config.now_cosine if sc.kind == "now" else config.begin_cosine
        best, target = sc.ranked[0][0], sc.ranked[0][1][0]
        second = sc.ranked[1][0] if len(sc.ranked) > 1 else 0.0
        if sc.lang != "en":  # cosines are noise: one earlier message shares the most content words
            if sc.shared[0] < 1 or (len(sc.shared) > 1 and sc.shared[1] >= sc.shared[0]) or not target.is_current(now):
                continue
            # the statement that ends is one sharing a word with the change ("me faltan 9 000" shares "taller" with
            # Lucía's message, not with its "me corrige todo")
            target = next((r for r in sc.ranked[0][1] if content_words(r.text) & sc.words), None)
            if target is None or not target.is_current(now):
                continue
        elif best < threshold or best - second < config.margin or not target.is_current(now):
            continue
        if target.id in taken or (target.slot or "").strip().casefold() in NAME_SLOTS or ends_something(target.text) \
                or _restated([target], sc.recs) or not _same_subject(target, sc.recs) or _ends_another(target, sc.recs) \
                or _who_they_are(target, sc.recs) or ANNUAL.search(target.text):  # fmt: skip
            continue  # a birthday is no state a change ends ("Noor moved in this weekend!!" / "Noor's birthday is 12 August")
        values = key_tokens(target.text).values
        kin = tuple(r for r in sc.ranked[0][1] if r is not target and r.is_current(now) and r.id not in taken and values & key_tokens(r.text).values
                    and (r.slot or "").strip().casefold() not in NAME_SLOTS and not ANNUAL.search(r.text))  # fmt: skip
        out.append(Shift(target, _nearest(snap, target, sc.recs), best, second, kin))
        taken |= {target.id, *(r.id for r in kin)}
    return out
