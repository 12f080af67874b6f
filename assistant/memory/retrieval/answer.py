"""Memory answers: when retrieval holds a confident answer to the person's question, code decides
it, and checks the model's reply against it.

    answer = choose(question, hits)            # MemoryAnswer | None
    check = judge(reply, answer, question)     # ReplyCheck(in_reply, contradicted)

**Memory answer** (:func:`choose`, issue 28): never for a general question (arithmetic,
knowledge, advice, translation: :mod:`.questions`). Candidates are the hits that passed (or a
profile-slot answer) and state something: profile, fact and experience memories, and episodes
(the person's own message, quoted). Whether one answers is decided by meaning: the question is
compared with the memory's *question forms* (:mod:`.forms`: its slot's and claimed relation's
questions in six languages, its own words in the person's voice), embedded by MiniLM. The
lexical **focus** check is a fast path next to it: the thing asked about after "my" ("my dog"
-> ``dog``; "my car's licence plate" -> ``car``, ``licence``/``plate``), else a content word of
the question, matched by a light stem (equal after dropping -s/-es/-ing/-ed, sharing their first
:data:`PREFIX` letters, or :data:`~.vocabulary.SYNONYMS`). A memory *covers* the question's "my
X" by those words or by meaning (:meth:`~.forms.AnswerMatcher.about`: "our car" / "We drive an
old blue Renault Kangoo."); one that does not needs a clearly closer form, so "What colour is my
car?" is not answered by "User's favourite colour is green.".

**Checking the reply** (:func:`judge`): the answer's *key terms* are the memory's words the
question did not already contain; its *strong* terms are the names and numbers among them
(capitalised words not starting a sentence, digits). The reply contains the answer
(``in_reply``) when it has every number and at least one name among the strong terms (or,
without strong terms, at least half of the key terms), none of them negated ("not green"). It **contradicts** the answer when it does
not contain it and instead says something about the same thing: a sentence that names the
question's focus without the answer ("Your job is a medical doctor."), negates a key term, or
says it does not know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from assistant.memory.records import Kind, Trust
from assistant.memory.wording import spoken_days
from assistant.memory.retrieval import crosslang, earlier, forms, language, predicate
from assistant.memory.retrieval.aliases import (PLACE, about_life, aliases_of, ask_forms, messages, names_in, names_relation,
                                               question_names_known, runner_up, told_of, whole, written_names)
from assistant.memory.retrieval.answerable import asked, question_names, relation_names, states_something
from assistant.memory.retrieval.held import (NAMES_SOMETHING, asked_part, fuller, holds, home_of_area, names_asked, names_only as _names_only, valued,  # noqa: F401
                                            names_role, only_owner, others_relation, says_possessed)  # (holds is also read as answer.holds)
from assistant.memory.retrieval.job_said import asks_job_of, says_job_of
from assistant.memory.retrieval.answer_weights import (EVERY_COSINE, EVERY_WORDS, FOCUS_MARGIN, LANG_PENALTY, LEX_BONUS, NAMED_MARGIN, NAMING_BONUS, NOW_BONUS, NOW_WORDS, OWN_WEIGHT, PRED_WEIGHT,
                                                      SLOT_BONUS, TOP_BONUS, UNIQUE_COSINE)
from assistant.memory.retrieval.general_shapes import ask_first
from assistant.memory.language.indirect import as_recall
from assistant.memory.retrieval.inject import source_label
from assistant.memory.retrieval.perspective import first_to_second, rewrite
from assistant.memory.retrieval.questions import (answer_type, asked_role, asks_advice, asks_before, asks_personal_fact, asks_possessed, computes, direct, explains,
                                                  is_question, knows, part_of, qualified_name, recall_core, requests, speaks_of_self, speaks_of_us, unquoted,
                                                  possessed, yes_no)
from assistant.memory.retrieval.vocabulary import LIGHT_VERBS
from assistant.memory.retrieval.telling import tells  # noqa: F401 (also read as answer.tells)
from assistant.memory.retrieval.terms import wording as words_in
from assistant.memory.retrieval.terms import PREFIX, THEN, _covered, _terms, asked_words, content_words, focus, owned_phrase, same_word, stem, words  # noqa: F401 (also read as answer.X)

#: How many retrieved memories (passed or below the threshold) a memory answer is chosen from:
#: with 6, 121 of the dev split's 161 questions had an answering memory in the pool, with 10, 129.
POOL = 10
#: Kinds a memory answer comes from besides episodes (the person's verbatim message: an answer
#: when it states something, see :func:`_eligible`).
ANSWER_KINDS = frozenset({Kind.PROFILE, Kind.FACT, Kind.EXPERIENCE})


@dataclass(frozen=True)
class MemoryAnswer:
    """The memory that answers the question. ``valid_at``: when it became true (the memory's
    ``valid_at``, else when it was said, else when it was stored), ISO; ``source``: where it
    came from ("session 3 msg 41", "cli (user)"); ``statement``: the memory addressed to the
    person ("You live in Porto."); ``slot``: answered through a profile slot."""

    memory_id: int
    text: str
    valid_at: str | None
    source: str
    statement: str
    key_terms: tuple[str, ...]
    strong_terms: tuple[str, ...]
    slot: bool = False
    said_by_person: bool = False  # trust user_stated/user_confirmed: may be voiced as the person's words
    episode: bool = False  # the person's own message, quoted
    also: tuple[tuple[int, str], ...] = ()  # (id, text) of memories needed with it ("User's sister is Lucía.")

    @property
    def english(self) -> str | None:
        """The memory's English reading when it is in another language (:func:`.crosslang.english_of`)."""
        return crosslang.english_of(self.text)

    def to_json(self, in_reply: bool, replaced: bool = False) -> dict[str, Any]:
        return {"text": spoken_days(self.text), "memory_id": self.memory_id, "valid_at": self.valid_at, "source": self.source,
                "in_reply": bool(in_reply), "statement": self.statement, "replaced_reply": bool(replaced),
                "episode": self.episode, "english": self.english,
                "also": [{"memory_id": i, "text": spoken_days(t), "english": crosslang.english_of(t)} for i, t in self.also]}  # fmt: skip


@dataclass(frozen=True)
class ReplyCheck:
    in_reply: bool
    contradicted: bool


# ----------------------------------------------------------------------------- the question


def about_person(question: str, matcher: Any = None) -> bool:
    """A question asking for a fact of the person's life ("What's my dog called?", "¿Dónde
    vivo?"), not a general one or a request (:mod:`assistant.memory.retrieval.questions`), nor,
    with ``matcher``, a request to produce something (:func:`produces`)."""
    return asks_personal_fact(question) and not produces(question, matcher)


def about_known(question: str, hits: Sequence[Any], matcher: Any = None) -> bool:
    """A question about someone the memories name as the person's own (child, partner, pet:
    "Biscuit's vet?" / "User has a beagle named Biscuit.") or an injected memory names other than
    as a place ("When is Morven's birthday?" / "Morven is 14 now ...") asks for a fact of the
    person's life too, unless general or a request (the model's inventions about them are refused)."""
    if not is_question(question) or computes(question) or requests(question) or produces(question, matcher):
        return False
    asked_names = {m for n in question_names(question) for m in (n, n[:-1] if n.endswith("s") and len(n) > 3 else n)} \
        | set(question_names_known(question, hits))  # "Arjuns Lieblingsessen"; "how old is sorin" typed in lower case
    if not asked_names:
        return False
    own = set(aliases_of(hits)) | {n for h in hits for n in relation_names(h.memory.text, "pet")}
    named, places = written_names([h for h in hits if h.passed_threshold])  # "Morven is 14 now": someone of theirs
    return bool(asked_names & (own | (named - places)))


def produces(question: str, matcher: Any) -> bool:
    """``matcher`` (:class:`~.forms.AnswerMatcher`) reads ``question`` as a request to produce
    something (:mod:`.intent`): never a memory answer, never refused."""
    return matcher is not None and getattr(matcher, "available", False) and matcher.produces(question)


# ----------------------------------------------------------------------------- choosing


def _date(m: Any) -> str | None:
    when: datetime | None = m.valid_at or m.said_at
    return when.isoformat() if when is not None else None


def _pool(m: Any, aliases: dict[str, str] | None = None) -> list[str]:
    """A memory's words, its linked entities' words, and the words of a relation whose given name
    it holds (``aliases``: "Lucía" -> "sister")."""
    given = [w for n, rel in (aliases or {}).items() if names_in(n, m.text) for w in words(rel)]
    return words(m.text) + [w for e in (m.entities or ()) for w in words(getattr(e, "name", e))] + given


def qualifies(question: str, hit: Any, aliases: dict[str, str] | None = None) -> bool:
    """The lexical fast path: the memory's words (or a name given to the asked relation) cover
    the question's focus (see the module docstring); a name of the question alone does not,
    when the question has another content word ("Where did Rafael study?" is not answered by
    "Rafael is a paramedic."), unless the memory is in another language."""
    if hit.slot_answer:
        return True
    if not hit.passed_threshold:
        return False
    pool = _pool(hit.memory, aliases)
    required, optional = focus(question)
    if required:
        return all(_covered(r, pool) for r in required)
    # "Where did Rafael study?": the name says whom it is about, another word what is asked
    names = set(question_names(question))
    same_lang = language.detect(hit.memory.text) == language.detect(question)  # else its words cannot meet the question's
    asks = [o for o in optional if stem(o) not in names or not same_lang] or optional
    return any(_covered(o, pool) for o in asks)


def _eligible(hit: Any, stating: frozenset[int] = frozenset()) -> bool:
    """A statement that may answer: a profile, fact or experience, or an episode (the person's
    own message) that states something (in its own words: ``stating``, of a view); never a question."""
    m = hit.memory
    if not (hit.slot_answer or hit.passed_threshold or below_threshold(hit)) or m.text.rstrip().endswith(("?", "？")):
        return False
    if Kind(m.kind) in ANSWER_KINDS:
        return True
    return Kind(m.kind) == Kind.EPISODE and (states_something(m.text) or m.id in stating)


def below_threshold(hit: Any) -> bool:
    """Out of the injected memories only for its cosine (no gate said it cannot answer): its
    question forms may still answer (``Retriever.search(include_rejected=True)``)."""
    return not hit.passed_threshold and hit.why_not.startswith("semantic score below")


def choose(question: str, hits: Sequence[Any], matcher: Any = None) -> MemoryAnswer | None:
    """The memory answer among ``hits``, or None. Never for a question answered from itself or
    general knowledge (:func:`assistant.memory.retrieval.questions.computes`); for a request
    ("Which medicine should I avoid?") only a memory whose forms are close and that covers its
    "my X". A candidate (:func:`_eligible`)
    answers when its question forms are close to the question (:mod:`.forms`: cosine >=
    ``ANSWER_COSINE``; a question's "my X" the memory does not cover needs ``+FOCUS_MARGIN``), when
    its words cover the question's focus and its forms are >= ``LEXICAL_COSINE`` close, or when it
    is a profile-slot answer; the best scoring wins. A question that does not speak of the person
    ("Who's Joost?") needs one of its names in the memory. A memory that names the asked relation
    only by the name given to it ("Lucía is a pilot." for "my sister") brings the memory that
    gives the name along (``also``). A memory that only says who someone is ("User's brother is
    Rafael.") never answers a question about something else of theirs ("What does my brother
    do?": :meth:`~.forms.AnswerMatcher.asks_identity`). MiniLM is an English model: across
    languages (:mod:`.language`) a form cosine counts ``LANG_PENALTY`` less unless a name of
    the question is in the memory, and the lexical and retrieval's-best paths need both in
    English. An English memory whose form stands out (>= ``STANDOUT_COSINE`` and
    ``STANDOUT_MARGIN`` above every memory of another message) answers too: MiniLM ranks better
    than its absolute cosines say."""
    if getattr(matcher, "spell", None) is not None:  # the question as retrieval read it ("alergic" -> "allergic")
        question = matcher.spell(question)
    question = as_recall(ask_first(question))  # "... I don't remember which hospital it is." -> "Remind me which hospital it is.";  "Is there any medicine I can't take? The pharmacist asked me today ...": the question
    if computes(question) or tells(question) or produces(question, matcher) or ((unq := unquoted(question)) != question and not speaks_of_self(unq)):
        return None  # ... or about words it quotes ("What's the Spanish for 'I'm allergic to peanuts'?")
    named = question_names_known(question, hits)  # "who is joost": a name the memories write
    # "When do we fly to Japan?": the household's; "tell me what Caetano does": Caetano's, the "me" only asks
    self_q, us = speaks_of_self(recall_core(question) if named else question), speaks_of_us(question)
    if not isinstance(hits, crosslang.View) and language.detect(question) == "en" and not about_life(question, named, hits, self_q) \
            and not (matcher is not None and getattr(matcher, "available", False) and told_of(question, hits, matcher.vectors)):
        return None  # "Who discovered penicillin?" with "User is allergic to penicillin." (English: other languages drop "I")
    if (view := crosslang.english_view(question, hits)) is not None:  # another language: read in English
        return crosslang.restore(choose(*view, matcher), question, hits)
    if (asks_help := requests(question)) and (asks_advice(question) or knows(question) or explains(question)):
        return None  # "... any tips?", "How much vitamin D do I need?": the memory is context, not the answer
    kind = answer_type(question)
    # "favorite color?": a question naming no one else is about the person ("Remind me who Frieda's ...": about Frieda)
    personal = speaks_of_self(recall_core(question)) or us or not named
    stating = getattr(hits, "stating", frozenset())
    cands = [h for h in hits if _eligible(h, stating)]
    if not cands:
        return None
    aliases = {**getattr(hits, "aliases", {}), **aliases_of(hits)}  # "Thiago" for "my partner", known from all of memory
    forms_q = ask_forms(question, aliases)
    use_sem = matcher is not None and getattr(matcher, "available", False)
    cs = getattr(matcher, "cosines", None) or forms.Cosines()  # the embedder's (MiniLM's by default)
    scored = matcher.scored(forms_q, [(h.memory.text, h.memory.slot) for h in cands], aliases) if use_sem else [(0.0, 0.0)] * len(cands)
    sem = [c for c, _slot in scored]
    own = matcher.own(forms_q, [h.memory.text for h in cands]) if use_sem else [0.0] * len(cands)
    qnames = [n.casefold() for n in named]
    qlang = language.detect(question)
    required, optional = focus(question)
    np_ = owned_phrase(question)
    before, inside = asks_before(question), part_of(question)  # "Where did I work before ...?", "Which part of Glasgow ...?"
    places = {m["n"].casefold() for t in (question, *(h.memory.text for h in hits)) for m in PLACE.finditer(t)} | {(inside or "").casefold()}
    people = [n for n in qnames if n not in places]  # "Which district of Shanghai ...?": a place, no one
    home = home_of_area(question, hits) if not inside else set()  # "Which neighbourhood do I live in?": not the town
    # "Mila's teacher": "my X" may be covered by meaning ("our car" / "We drive a Kangoo"), a thing of a named
    # other only by its word (MiniLM finds "Mila's in grade 2" close to "my teacher": it is about Mila, not her teacher)
    owned_by_name = bool(required) and not re.search(r"\b(?:my|our)\b", question, re.I)
    rels = asked(question).relations
    role, others_rel = asked_role(question), others_relation(question)
    # "What does Sanne do for work?", "what does my brother do?" (the names given to the relation: "Nilton est ingé son")
    job_of = (qnames[:1] if not rels else [*rels, *(n for n, r in aliases.items() if r in rels)]) \
        if ((qnames and not self_q) or rels) and asks_job_of(question) else []
    # "Which vet does Bracken go to?": what is asked of a named other (not the person) is a word
    # beside the name; a memory that words none of it answers only with a near-identical form
    other_asks = [o for o in optional if o not in qnames and stem(o) not in qnames and o not in LIGHT_VERBS] \
        if qnames and not self_q and not required else []
    first = next((h for h in hits if h.passed_threshold and _eligible(h, stating)), None)  # retrieval's best that passed
    # who the question asks about: the relation, else a name -- unless it speaks of the person ("Do I speak any German?")
    subject = f"my {rels[0].replace('_', ' ')}" if rels else named[0].title() if named and not self_q else None
    identity = subject is None or not use_sem or matcher.asks_identity(question, subject)
    msgs = [messages(h.memory) for h in cands]
    # what each memory says of the named one asked about ("Which school does Morven attend?"), without the name
    about_whom = [*qnames, *(aliases.get(n, "") for n in qnames)] if qnames and not self_q else \
        [*rels, *(n for n, r in aliases.items() if r in rels)] if kind != "name" or asks_possessed(question) else []
    pred = predicate.cosines(matcher.vectors, direct(question), [h.memory.text for h in cands], about_whom) \
        if use_sem and about_whom else [0.0] * len(cands)
    pools = [_pool(h.memory, aliases) for h in cands]
    # the messages whose memories word the question's "my/our X" ("Where is our allotment?"): one alone is strong evidence
    wording = words_in(required, pools, msgs)
    wanted = asked_words(question)  # all of them worded: lexical evidence where MiniLM scores a long message low
    every = words_in(wanted, pools, msgs) if len(wanted) >= EVERY_WORDS else set()
    ranked: list[tuple[float, Any]] = []
    now_asked = [w for w in NOW_WORDS if re.search(rf"\b{w}\b", question, re.I)]  # "my new dombra teacher": the later one
    for i, (h, s, o, pool, pr, (_c, slot_cos)) in enumerate(zip(cands, sem, own, pools, pred, scored)):
        slot_form = slot_cos >= cs.answer and not h.memory.slot  # a slot's form of its structure is close
        lex = qualifies(question, h, aliases)
        # the question's "my X" by word, else by meaning ("our car" / "We drive an old blue Renault Kangoo.")
        covers = not required or all(_covered(r, pool) for r in required) or (use_sem and not owned_by_name and matcher.about(required, h.memory.text, np_)
                                                                               and all(_covered(r, pool) for r in required if r in THEN)) \
            or slot_form  # "Finlay's job": "Finlay is the coxswain" is a job by its structure
        # someone the question names is in its answer, in a question about the person's life too ("What present
        # did Noé get from me?" / "my birthday's 27 March"); a place it names may be left out ("那边" for Shanghai)
        someone = qnames if not personal else people
        if someone and not any(_covered(n, pool) for n in someone):
            continue
        if qnames and not self_q and all(only_owner(n, h.memory.text, question) for n in qnames):
            continue  # "How old is Camille?" / "Camille's little boy Noé turned 6": about Noé
        said = not other_asks or any(_covered(o, pool) for o in other_asks)  # "vet" for "Which vet does Bracken go to?"
        # the asked relation named (in any capture language, or by the name given to it): "mi padre" / "Mein Vater Andrés"
        names_rel = any(names_relation(h.memory.text, r, aliases) for r in rels)
        if rels and not names_rel and not (h.slot_answer and (h.memory.slot or "").rsplit(".", 1)[-1] in rels):  # a cat for "my dog"
            continue
        # a memory in another language than the question, sharing none of its names: its cosine is noise
        shares = any(_covered(n, pool) for n in qnames)
        same_lang = language.detect(h.memory.text) == qlang
        english = same_lang and qlang == "en"  # MiniLM is an English model: its cosine means little in other languages
        penalty = LANG_PENALTY if not same_lang and not shares else 0.0
        adj = s - penalty
        if asks_help:  # "Which medicine should I avoid?": only a memory clearly about it
            ok = use_sem and adj >= cs.answer and covers
        elif names_rel:  # "my first pet" needs "first" too
            ok = all(_covered(r, pool) for r in required if r in THEN)
        elif below_threshold(h):
            ok = use_sem and adj >= cs.below and covers
        elif use_sem:
            top = h is first and (lex or english or adj >= cs.below)  # retrieval's own best, on topic
            ok = h.slot_answer or (adj >= cs.answer and (covers or (adj >= cs.answer + FOCUS_MARGIN + (NAMED_MARGIN if owned_by_name else 0.0)))) \
                or (lex and english and s >= cs.lexical) or (top and covers and adj >= cs.top) \
                or (lex and english and wording and wording <= msgs[i] and s >= UNIQUE_COSINE)
        else:
            ok = lex
        if not ok and use_sem and english and ((every and every <= msgs[i] and s >= EVERY_COSINE and not asks_help) or names_role(h.memory.text, question, required)):
            ok = True  # the one message that words all the question asks; "the physio, Rui Matos" for "Who is my physiotherapist?"
        if not ok and use_sem and english and (self_q or shares) and not asks_help and s >= forms.STANDOUT_COSINE:  # stands out
            ok = s - runner_up(i, sem, msgs) >= forms.STANDOUT_MARGIN and covers and said \
                and not matcher.asks_other_slot(forms_q, h.memory.text, h.memory.slot)
        if not ok and use_sem and english and (self_q or names_rel or any(_covered(n, pool) for n in people)) and s >= forms.TOPIC_COSINE \
                and (valued(kind, h.memory.text, question) or (s >= cs.top and any(says_job_of(n, h.memory.text) for n in job_of))):
            ok = True  # the one asked of, a value of the kind asked: "What breed is Pilot?" / "a retired greyhound called Pilot"
        if job_of and not any(says_job_of(n, h.memory.text) for n in job_of):
            continue  # "What does Sanne do for work?" / "... that's where I met Sanne": no job of hers
        # a role or a named one's relation asked, the memory words it: "Which vet does Bracken go to?" / "User has a border
        # collie called Bracken."; "¿Cómo se llama el marido de Clara?" / "a Clara é parteira em Lisboa"
        if not ok or any(ws and not any(_covered(w, pool) for w in ws) for ws in (role, others_rel)):
            continue
        if (names_rel or qnames) and not identity and _names_only(h.memory.text, question, aliases):
            continue  # "User's brother is Rafael." does not answer "What does my brother do?"
        key, strong = _terms(h.memory.text, question)
        if (inside and (h.memory.slot or not strong) and names_in(inside, h.memory.text)) or (home and not set(strong) - home):
            continue  # "Which part of Glasgow ...?" / "User lives in Glasgow.": the whole, not the part asked
        if before and h.memory.slot:
            continue  # "Where did I work before ...?": a slot holds what is true now
        if not key and not yes_no(question):
            continue  # "User lives in Glasgow." says nothing "Which part of Glasgow do I live in?" does not
        if kind == "name" and not (says_possessed(thing, h.memory.text, pool, matcher) if (thing := possessed(question)) else names_asked(h.memory.text, rels, others_rel)):
            continue  # "What's my mum's name?" / "... caio came and charmed my mum": no name given to her; "my brother's dog" / no dog
        if not holds(kind, h.memory.text, question) or (h.memory.slot == "name" and qualified_name(question)):
            continue  # "What's Jonas's middle name?" is not answered by "User's son is Jonas.", "my Chinese name" by the name
        rank = (1 - OWN_WEIGHT) * adj + OWN_WEIGHT * (o - penalty) + (SLOT_BONUS if h.slot_answer or slot_form else 0.0) + (0.05 if covers else 0.0) \
            + (TOP_BONUS if h is first else 0.0) + PRED_WEIGHT * pr + (LEX_BONUS if lex and required else 0.0) \
            + (NAMING_BONUS if kind == "name" and NAMES_SOMETHING.search(h.memory.text) else 0.0) \
            + (NOW_BONUS if any(_covered(w, pool) for w in now_asked) else 0.0)
        ranked.append((rank, h))
    best = earlier.pick(question, ranked, hits=hits)  # "the original date": the memory said first, not the one telling the change
    if best is None or earlier.plan_for_outcome(question, asked_part((best := fuller(whole(best, hits), hits, question, kind, aliases)).memory.text, question)):
        return None  # "What did I end up giving Noor?" / "... thinking of getting her a Polaroid camera": a plan, no outcome
    return _answer(best, question, hits, aliases)


def _answer(hit: Any, question: str, hits: Sequence[Any], aliases: dict[str, str]) -> MemoryAnswer | None:
    m = hit.memory
    episode = Kind(m.kind) == Kind.EPISODE
    key, strong = _terms(m.text, question)
    if not key and yes_no(question):  # "Am I vegetarian?": the memory's own words are the answer
        key = tuple(dict.fromkeys(w for w in content_words(m.text) if w != "user"))
    if not key:
        return None
    also: list[tuple[int, str]] = []
    for name, rel in aliases.items():
        if names_in(name, m.text) and not _covered(rel, words(m.text)) and re.search(rf"\bmy\s+{re.escape(rel)}\b", question, re.I):
            giver = next((h.memory for h in hits if h.memory.id != m.id and names_in(name, h.memory.text)
                          and _covered(rel, words(h.memory.text))), None)  # fmt: skip
            if giver is not None and all(giver.id != i for i, _t in also):  # two names of one relation: one giver
                also.append((giver.id, giver.text))
    statement = first_to_second(m.text) if episode else rewrite(m.text, "second")
    return MemoryAnswer(m.id, m.text, _date(m), source_label(m), statement, key, strong, hit.slot_answer, said_by(m),
                        episode=episode, also=tuple(also))  # fmt: skip


def said_by(m: Any) -> bool:
    """A memory the person said or confirmed (trust >= user_confirmed): it may be voiced as
    their own words before their question (:func:`assistant.memory.retrieval.inject.with_lead`)."""
    return Trust(m.trust) >= Trust.USER_CONFIRMED


def from_log(m: Any, signals: dict[str, float] | None) -> MemoryAnswer | None:
    """The memory answer of a past turn, rebuilt from its injection-log signals
    (``memory_answer``; see :func:`assistant.memory.retrieval.inject.log_injection`), or None."""
    if not (signals or {}).get("memory_answer"):
        return None
    return MemoryAnswer(m.id, m.text, _date(m), source_label(m), rewrite(m.text, "second"), (), (), said_by_person=said_by(m))


def logged(m: Any, signals: dict[str, float]) -> dict[str, Any] | None:
    """The memory answer of a past turn as ``chat --json`` shows it (``in_reply``,
    ``replaced_reply`` from the same signals)."""
    a = from_log(m, signals)
    return a.to_json(bool(signals.get("in_reply")), bool(signals.get("replaced_reply"))) if a is not None else None
