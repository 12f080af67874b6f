"""Which earlier statement a plain-word change ends (issue 23, :mod:`...plans.shifts`): the
selection logic on hand-made unit vectors (no model; the real MiniLM runs in test_truth.py).

Vectors are chosen so the cosines are exact: with unit e1, e2, e3, a vector a*e1 + b*e2 has
cosine a with e1."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np

from assistant.memory.consolidation.plans.shifts import ShiftConfig, plan_shifts, score_shifts
from assistant.memory.records import Kind, Status, Trust
from assistant.memory.store.tidying.snapshot import Rec, Snapshot

NOW = datetime(2026, 12, 3, 9, tzinfo=timezone.utc)


def _rec(i: int, text: str, days_ago: int, row: int, slot: str | None = None, kind: Kind = Kind.FACT, **kw) -> Rec:
    said = NOW - timedelta(days=days_ago)
    return Rec(id=i, text=text, kind=kind, scope="user", slot=slot, valid_at=said, invalid_at=kw.get("invalid_at"),
               created_at=said, expired_at=None, trust=Trust.USER_STATED, confidence=1.0, content_hash=str(i),
               status=Status.ACTIVE, version=1, pinned=False, use_count=0, last_used_at=None, expires_at=None,
               start_kind="observed", observed_at=said, message_ids=kw.get("message_ids", (100 + i,)), row=row)  # fmt: skip


def _snap(recs: list[Rec], vectors: list[list[float]]) -> Snapshot:
    v = np.array(vectors, dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return Snapshot(NOW, recs, {r.id: r for r in recs}, v, [])


def _unit(a: float, b: float = 0.0) -> list[float]:
    """a*e1 + b*e2 + rest*e3, a unit vector (cosines with e1, e2 are a, b)."""
    return [a, b, float(np.sqrt(max(0.0, 1 - a * a - b * b)))]


def test_the_one_clearly_nearest_earlier_statement_ends_with_hand_made_vectors():
    coffee = _rec(1, "User drinks coffee every morning.", 30, 0)
    home = _rec(2, "User lives in Ghent.", 60, 1, slot="home")
    tea = _rec(3, "User drinks green tea in the mornings these days.", 0, 2)
    snap = _snap([coffee, home, tea], [[1, 0, 0], [0, 1, 0], _unit(0.7, 0.2)])
    [sh] = plan_shifts(snap, snap.recs)
    # s(coffee) = 0.70 >= 0.45 and 0.70 - s(home) 0.20 = 0.50 >= margin
    assert (sh.old.id, sh.new.id) == (1, 3) and round(sh.cosine, 2) == 0.7 and round(sh.runner_up, 2) == 0.2


def test_two_equally_near_statements_end_neither_with_hand_made_vectors():
    job = _rec(1, "User works as a nurse.", 30, 0)
    train = _rec(2, "User takes the train to the office.", 20, 1)
    wfh = _rec(3, "User is working from home now.", 0, 2)
    snap = _snap([job, train, wfh], [[1, 0, 0], [0, 1, 0], _unit(0.5, 0.48)])
    # best 0.50, runner-up 0.48: 0.02 < margin 0.06 -> no change
    assert plan_shifts(snap, snap.recs) == []
    assert [round(s, 2) for s, _ in score_shifts(snap, snap.recs)[0].ranked] == [0.5, 0.48]


def test_below_the_threshold_plans_and_names_end_nothing_with_hand_made_vectors():
    coffee = _rec(1, "User drinks coffee every morning.", 30, 0)
    tea = _rec(2, "User drinks green tea these days.", 0, 1)
    snap = _snap([coffee, tea], [[1, 0, 0], _unit(0.4)])
    assert plan_shifts(snap, snap.recs) == []  # 0.40 < now_cosine 0.45
    assert plan_shifts(snap, snap.recs, config=ShiftConfig(now_cosine=0.35)) != []
    name = _rec(1, "User's name is Marta.", 30, 0, slot="name", kind=Kind.PROFILE)
    newname = _rec(2, "These days everyone calls me Marta.", 0, 1)
    snap = _snap([name, newname], [[1, 0, 0], _unit(0.9)])
    assert plan_shifts(snap, snap.recs) == []  # a name slot is never ended by a shift
    plan = _rec(2, "I'm going to drink tea instead.", 0, 1)
    snap = _snap([coffee, plan], [[1, 0, 0], _unit(0.9)])
    assert plan_shifts(snap, snap.recs) == []  # a plan ends nothing


def test_a_second_run_never_walks_down_the_list_with_hand_made_vectors():
    # the nearest statement already ended (by the first run): the shift ends nothing more,
    # even though the runner-up alone would now pass the threshold and the margin
    coffee = _rec(1, "User drinks coffee every morning.", 30, 0, invalid_at=NOW - timedelta(days=1))
    juice = _rec(2, "User drinks orange juice at lunch.", 20, 1)
    tea = _rec(3, "User drinks green tea these days.", 0, 2)
    snap = _snap([coffee, juice, tea], [[1, 0, 0], [0, 1, 0], _unit(0.8, 0.6)])
    assert plan_shifts(snap, snap.recs) == []


def test_in_other_languages_shared_content_words_decide_not_cosines_with_hand_made_vectors():
    # cosines say the teacher statement is nearest (0.8 vs 0.6); German cosines are noise, so the
    # one earlier message sharing a content word ("joggen") is what ends
    jog = _rec(1, "User: Ich gehe dreimal die Woche joggen.", 30, 0)
    job = _rec(2, "User: Ich bin Lehrerin.", 20, 1)
    pilates = _rec(3, "User: Ich habe mit dem Joggen aufgehört und mache jetzt Pilates.", 0, 2)
    snap = _snap([jog, job, pilates], [[1, 0, 0], [0, 1, 0], _unit(0.6, 0.8)])
    [sh] = plan_shifts(snap, snap.recs)
    assert (sh.old.id, sh.new.id) == (1, 3)
    # two earlier messages sharing as many words: nothing ends
    work = _rec(2, "User: Ich gehe joggen mit Kollegen.", 20, 1)
    snap = _snap([jog, work, pilates], [[1, 0, 0], [0, 1, 0], _unit(0.6, 0.8)])
    assert plan_shifts(snap, snap.recs) == []


def test_a_name_or_a_relation_shared_is_not_a_shared_state_with_hand_made_vectors():
    # new-user trial: "Hier, Tomasz a commencé des cours de guitare" shared only "Tomasz" with the
    # husband's job and name, and ended both (and the message they came from)
    name = _rec(1, "User's husband is Tomasz.", 30, 0)
    job = _rec(2, "Tomasz is a civil engineer.", 30, 1)
    guitar = _rec(3, "User: Hier, Tomasz a commencé des cours de guitare le mardi soir.", 0, 2)
    snap = _snap([name, job, guitar], [[1, 0, 0], [0, 1, 0], _unit(0.6, 0.8)])
    assert plan_shifts(snap, snap.recs) == []
    # the relation word alone ("mari") is no shared state either; a shared state word still ends
    wife = _rec(1, "User: Mon mari est ingénieur.", 30, 0)
    started = _rec(3, "User: Mon mari a commencé la guitare.", 0, 2)
    snap = _snap([wife, job, started], [[1, 0, 0], [0, 1, 0], _unit(0.6, 0.8)])
    assert plan_shifts(snap, snap.recs) == []
    jog = _rec(1, "User: Mein Bruder geht dreimal die Woche joggen.", 30, 0)
    quit_ = _rec(3, "User: Mein Bruder hat mit dem Joggen aufgehört und macht jetzt Pilates.", 0, 2)
    snap = _snap([jog, job, quit_], [[1, 0, 0], [0, 1, 0], _unit(0.6, 0.8)])
    assert [(sh.old.id, sh.new.id) for sh in plan_shifts(snap, snap.recs)] == [(1, 3)]


def test_the_record_of_the_shift_that_speaks_of_the_old_state_is_the_winner_with_hand_made_vectors():
    # one message, two records: the move (near the old home, 0.7) and the packing (0.2): the move
    # is what replaces the home, and its stated date is the change's date
    home = _rec(1, "User lives in Gothenburg.", 60, 0, slot="home_city", kind=Kind.PROFILE)
    packed = _rec(2, "User's household packed everything up.", 0, 1)
    moved = _rec(3, "User moved to Malmö the week of 2026-11-23.", 0, 2)
    moved = replace(moved, message_ids=packed.message_ids)  # said in one message
    snap = _snap([home, packed, moved], [[1, 0, 0], _unit(0.2, 0.9), _unit(0.7, 0.1)])
    [sh] = plan_shifts(snap, snap.recs)
    assert (sh.old.id, sh.new.id) == (1, 3)


def test_someone_elses_change_ends_nothing_the_person_said_of_themselves_with_hand_made_vectors():
    # cosine 0.9 and no runner-up would end it; the change is Noé's (what he calls the person), the
    # earlier statement the person's own
    name = _rec(1, "User is Lukas, 38.", 30, 0)
    nick = _rec(2, "User: Noé calls me 'Lu' now instead of Lukas.", 0, 1)
    snap = _snap([name, nick], [[1, 0, 0], _unit(0.9)])
    assert plan_shifts(snap, snap.recs) == []
    # and the person's change ends nothing of their husband's
    taxi = _rec(1, "User's husband drives a taxi.", 30, 0)
    dpd = _rec(2, "User is driving for DPD now.", 0, 1)
    assert plan_shifts(_snap([taxi, dpd], [[1, 0, 0], _unit(0.9)]), [taxi, dpd]) == []
    # who the person's partner is is theirs: a new partner still ends it
    tom = _rec(1, "User's partner is Tom.", 30, 0)
    sam = _rec(2, "User is with Sam now.", 0, 1)
    [sh] = plan_shifts(_snap([tom, sam], [[1, 0, 0], _unit(0.9)]), [tom, sam])
    assert sh.old.id == 1


def test_whom_a_record_is_about():
    from assistant.memory.consolidation.plans.shifts import whose

    assert whose("User lives in Porto.") == "user"
    assert whose("User's household moved to Foz.") == "user"
    assert whose("User's partner is Tom.") == "user"
    assert whose("User's husband drives a taxi.") == "husband"
    assert whose("User: Noé calls me 'Lu' now.") == "noé"
    assert whose("Morven lives for volleyball.") == "morven"
    assert whose("User: Finally moved the piano.") is None  # an adverb, no name
    assert whose("User: These days User's only pet is a parrot.") is None
    # another capture language by its English gloss, a lead before a colon left out (dev9: "Nurlan started
    # at the zoo" had ended the person's "Kurz zu meinen Tieren: ich habe ... eine Schildkröte namens Bublik")
    assert whose("Nurlan hat am Montag im Zoo Almaty angefangen.") == "nurlan"
    assert whose("User: Kurz zu meinen Tieren: ich habe eine Schildkröte namens Bublik.") == "user"


def test_a_quoted_clause_with_its_own_subject_is_not_the_persons_claim():
    from assistant.memory.language.claims import claims

    # "instead of Lukas" is what Noé stopped calling the person, not something the person stopped
    assert claims("User: Noé calls me 'Lu' now instead of Lukas.") == ()
    # a quoted clause without a subject of its own stays the person's
    [c] = claims("User: I run every morning now instead of swimming.")
    assert c.ended and c.value == frozenset({"swim"})


def test_a_name_in_chinese_is_who_not_a_shared_state_with_hand_made_vectors():
    # dev6: "我们已经搬到弗罗茨瓦夫啦！... Aga下个月要带她的狗Kluska来看我们" (a move) shared only "Aga" with the message
    # where Aga checked the greyhound, and ended it
    aga = _rec(1, "User: (aga = User's best friend since highschool.", 30, 0)
    moved = replace(_rec(2, "User: 我们已经搬到弗罗茨瓦夫啦.", 0, 1), message_ids=(300,))
    visit = replace(_rec(3, "User: Aga2026年9月要带她的狗Kluska来看我们.", 0, 2), message_ids=(300,))
    snap = _snap([aga, moved, visit], [[1, 0, 0], _unit(0.6, 0.8), _unit(0.7, 0.7)])
    assert plan_shifts(snap, snap.recs) == []


def test_a_naming_verb_is_no_shared_state_with_hand_made_vectors():
    # dev5: "Su profe nueva se llama Frau Ahrens" shared only "llama" with "Se llama Amparo" (Joaquín's mother) and ended it
    amparo = _rec(1, "User: Se llama Amparo.", 30, 0)
    teacher = _rec(2, "User: Su profe nueva se llama Frau Ahrens.", 0, 1)
    snap = _snap([amparo, teacher], [[1, 0, 0], _unit(0.5, 0.8)])
    assert plan_shifts(snap, snap.recs) == []


def test_kin_stay_kin_when_their_own_life_changes_with_hand_made_vectors():
    # dev6: "filip starts 4th grade at primary school no. 45" (a beginning, cosine 0.65 >= 0.55)
    # had ended "User's son is Filip."
    son = _rec(1, "User's son is Filip.", 200, 0, slot="relation.son", kind=Kind.PROFILE)
    flat = _rec(2, "User: new flat is on ulica Jedności Narodowej in wrocław.", 0, 1, message_ids=(9,))
    school = _rec(3, "User: filip starts 4th grade at primary school no. 45 there.", 0, 2, message_ids=(9,))
    snap = _snap([son, flat, school], [[1, 0, 0], _unit(0.2), _unit(0.65)])
    assert plan_shifts(snap, snap.recs) == []
    # a role is no kin: "User's boss is Anna." ends when Anna's leaving is the change
    boss = _rec(1, "User's boss is Anna.", 200, 0)
    left = _rec(2, "Anna left, Ben runs the workshop now.", 0, 1)
    snap = _snap([boss, left], [[1, 0, 0], _unit(0.65)])
    [sh] = plan_shifts(snap, snap.recs)
    assert (sh.old.id, sh.new.id) == (1, 2)


def test_an_earlier_message_in_another_language_is_no_lexical_candidate_with_hand_made_vectors():
    # dev6: the French savings update shared only the place name "wrocław" with the English new job and ended it
    job = _rec(1, "User got the job, senior glassblower at the politechnika workshop in wrocław.", 30, 0)
    savings = _rec(2, "User: Pour Wrocław j'ai acheté un vélo cargo, j'en suis à 24 700 zł maintenant.", 0, 1)
    snap = _snap([job, savings], [[1, 0, 0], _unit(0.9)])
    assert plan_shifts(snap, snap.recs) == []


def test_in_other_languages_the_statement_ending_shares_a_word_with_the_change_with_hand_made_vectors():
    # the nearest record by cosine of the message sharing "joggen" says something else ("mit Lea"):
    # the one sharing the word ends, its neighbour clause stays
    lea = _rec(1, "User: Ich wohne mit Lea.", 30, 0, message_ids=(7,))
    jog = _rec(2, "User: Ich gehe dreimal die Woche joggen.", 30, 1, message_ids=(7,))
    pilates = _rec(3, "User: Ich habe mit dem Joggen aufgehört und mache jetzt Pilates.", 0, 2)
    snap = _snap([lea, jog, pilates], [[1, 0, 0], [0, 1, 0], _unit(0.8, 0.5)])
    [sh] = plan_shifts(snap, snap.recs)
    assert (sh.old.id, sh.new.id) == (2, 3)


def test_a_birthday_is_no_state_a_change_ends_with_hand_made_vectors():
    # dev14: "Noor moved in this weekend!!" (a "now" cue, cosine 0.7 >= 0.45) had ended "Noor's birthday is 12 August."
    birthday = _rec(1, "Noor's birthday is 12 August.", 20, 0)
    moved = _rec(2, "Noor moved in this weekend!! the spare room is her drum kit room now", 0, 1)
    snap = _snap([birthday, moved], [[1, 0, 0], _unit(0.7)])
    assert plan_shifts(snap, snap.recs) == []
    # the same change still ends a state: where Noor lived
    flat = _rec(1, "Noor lives in a flat in Gorgie.", 20, 0)
    snap = _snap([flat, moved], [[1, 0, 0], _unit(0.7)])
    [sh] = plan_shifts(snap, snap.recs)
    assert (sh.old.id, sh.new.id) == (1, 2)
