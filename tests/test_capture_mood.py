"""What the person says without asserting it is no fact (issue 24): hypotheticals, other people's
opinions and hearsay, claims about the world -- decided by clause structure and mood in the six
capture languages -- while the person's own clause beside them is kept, and real conditionals,
plans and facts told by someone about the person stay facts. Pure rules: no model."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from assistant.memory.language import mood
from assistant.memory.language.rules import extract
from assistant.memory.language.statements import classify

OBS = datetime(2024, 3, 18, 10, 0, tzinfo=timezone.utc)


def facts(text: str) -> list[str]:
    said = "\n".join(u.text for u in classify(text).statements)
    return [c.text for c in extract(said, OBS)] if said else []


@pytest.mark.parametrize("text", [
    "If we ever moved abroad we'd rent out the flat.",
    "Si ganara más, me compraría un coche eléctrico.",
    "Wenn ich Zeit hätte, würde ich Gitarre lernen.",
    "Si j'avais un jardin, je planterais des tomates.",
    "Se eu tivesse tempo, aprendia a nadar.",
    "要是我有钱，我就会买房子。",
])  # fmt: skip
def test_a_hypothetical_is_no_fact(text):
    assert mood.hypothetical(text)
    assert facts(text) == []


@pytest.mark.parametrize("text", [
    "If I eat dairy I get a rash.",  # a habit, said as a condition: indicative, not irrealis
    "Wenn ich müde bin, trinke ich Kaffee.",
    "Mi hija se llama Lucía.",  # "se" is no condition
])  # fmt: skip
def test_a_real_conditional_or_a_reflexive_is_not_hypothetical(text):
    assert not mood.hypothetical(text)
    assert facts(text)


def test_the_persons_clause_beside_a_hypothetical_is_kept():
    assert facts("I live in Leeds, but if I won the lottery I'd move to York.") == ["User lives in Leeds."]
    got = facts("Eu moro em Recife e se eu pudesse morava na praia.")
    assert len(got) == 1 and "Recife" in got[0] and "praia" not in got[0]


@pytest.mark.parametrize("text", [
    "My dad reckons I should sell the car.",
    "Mi hermano cree que debería estudiar medicina.",
    "Meine Schwester findet, ich sollte mehr reisen.",
    "Mon frère pense que je devrais changer de voiture.",
    "Meu pai acha que eu devia casar.",
    "我爸爸认为我应该考研。",
    "Apparently the bakery on our street is closing.",
    "Dizem que o aluguel vai subir.",
])  # fmt: skip
def test_someone_elses_opinion_or_hearsay_is_no_fact(text):
    assert facts(text) == []


def test_a_fact_about_the_person_told_by_someone_is_kept():
    assert facts("My GP said I have asthma.") == ["User's GP said User has asthma."]


def test_the_persons_own_plan_with_think_is_kept():
    assert any("Porto" in f for f in facts("We think we'll move to Porto in May."))


@pytest.mark.parametrize("text, kept, gone", [
    ("I'm a teacher, and teachers in Scotland are overworked.", "teacher", "overworked"),
    ("Ich wohne in Köln und die Mieten sind hier sehr hoch.", "Köln", "Mieten"),
    ("Trabajo en un hotel y los turistas son muy simpáticos.", "hotel", "turistas"),
])  # fmt: skip
def test_a_claim_about_the_world_beside_the_persons_clause_is_dropped(text, kept, gone):
    got = facts(text)
    assert any(kept in f for f in got) and not any(gone in f for f in got)


@pytest.mark.parametrize("text", [
    "I'm wondering whether to sell the flat.",
    "No sé si debería apuntarme al gimnasio.",
    "Ich weiß nicht, ob ich das Angebot annehmen soll.",
    "J'aimerais savoir si je peux congeler du pain.",
    "Não sei se devo mudar de emprego.",
    "我不知道要不要换工作。",
    # forgetting what is asked (a new user's "I forgot ..." became a memory)
    "I can't remember where I parked, can you remind me?",
    "I forgot what my sister's husband is called.",
    "No recuerdo dónde vive mi hermana.",
])  # fmt: skip
def test_an_indirect_question_is_no_fact(text):
    assert facts(text) == []


def test_the_persons_clause_before_an_indirect_question_is_kept():
    got = facts("Trabajo de noche y me pregunto si debería dormir más.")
    assert len(got) == 1 and "noche" in got[0] and "dormir" not in got[0]


@pytest.mark.parametrize("text, kept, gone", [
    ("I've been off work since Monday, which is annoying because we're moving house on the 30th.", "30th", "annoying"),
    ("We've got two teenagers, so the house is chaos lol", "teenagers", "chaos"),
    ("Je suis épuisée, on a déménagé ce week-end.", "déménagé", "épuisée"),
    ("Ich bin so müde, wir hatten gestern Gäste.", "Gäste", "müde"),
    ("Nos casamos en mayo, y la verdad es que estamos muy nerviosos.", "mayo", "nerviosos"),
])  # fmt: skip
def test_a_comment_or_a_passing_state_beside_a_fact_is_dropped(text, kept, gone):
    got = facts(text)
    assert any(kept in f for f in got) and not any(gone in f for f in got)


@pytest.mark.parametrize("text", [
    "We might get a camper van next year.",
    "Quizás nos mudemos a Bilbao.",
    "Vielleicht ziehen wir nach Hamburg.",
    "On va peut-être vendre la maison.",
    "Talvez a gente compre um carro.",
    "我们可能明年去北京。",
])  # fmt: skip
def test_what_is_only_possible_is_no_fact(text):
    assert facts(text) == []


@pytest.mark.parametrize("text", ["I'm vegetarian.", "I'm really into climbing.", "Estoy casada desde 2015."])
def test_a_lasting_state_is_kept(text):
    assert facts(text)


def test_an_irregular_past_verb_puts_a_month_behind():
    assert any("January 2024" in f for f in facts("We lost two clients in January and nobody's been replaced."))


def test_a_coordinated_subject_is_one_clause():
    got = facts("Mein Mann und ich haben uns 2015 in Wien kennengelernt.")
    assert len(got) == 1 and "Wien" in got[0] and "Mann" in got[0]


@pytest.mark.parametrize("text, kept, gone", [
    ("Ich spiele seit Jahren Handball im Verein, das macht einfach Spaß.", "Handball", "Spaß"),
    ("Trabajo en una farmacia, lo cual me gusta bastante.", "farmacia", "gusta"),
])  # fmt: skip
def test_a_comment_after_a_comma_is_dropped(text, kept, gone):
    got = facts(text)
    assert any(kept in f for f in got) and not any(gone in f for f in got)


# a quoted clause is someone's words or text handed over (new sentences, not from any set)
@pytest.mark.parametrize("text", [
    'Please check the spelling here: "My cousin Benedikt lives in Graz and owns two horses."',
    "Mets ça en anglais : « Ma sœur habite à Nantes avec son mari »",
    "Übersetz mal: „Mein Bruder arbeitet als Koch in Wien.“",
    'My landlord wrote "we will raise your rent in May" in the email.',
    "把这句改得更正式一点：“我周末经常去公园跑步。”",
])  # fmt: skip
def test_a_quoted_clause_is_no_fact(text):
    assert facts(text) == []


@pytest.mark.parametrize("text, kept", [
    ('I\'m reading "The Old Man and the Sea" at the moment.', "Old Man"),  # a title in quotes
    ('I work at "Happy Days" nursery in Leeds.', "Happy Days"),  # a name in quotes
    ('My sister Ana is a nurse. Can you translate: "good morning, how are you?"', "nurse"),  # the person's own sentence stays
])  # fmt: skip
def test_a_title_or_a_name_in_quotes_and_the_persons_own_sentence_stay(text, kept):
    assert any(kept in f for f in facts(text)), facts(text)


# only about today: a plan, mood or choice for today in the present/future; the conversation keeps
# it, memory does not (new sentences, not from any set)
@pytest.mark.parametrize("text", [
    "Ugh, tonight I'm just ordering a pizza and watching telly.",
    "Heute Abend koche ich nichts, wir gehen zum Italiener.",
    "Ce soir je reste à la maison et je lis un peu.",
    "Hoy me quedo en casa, no tengo ganas de salir.",
    "hoje vou dormir cedo, tô morta",
    "今天不想出门，在家看电视。",
])  # fmt: skip
def test_a_clause_only_about_today_is_no_fact(text):
    assert facts(text) == [], facts(text)


@pytest.mark.parametrize("text, kept", [
    ("I finally got my driving licence today!", "licence"),  # a completed event of today lasts
    ("Today I start my new job at the bakery.", "bakery"),  # a beginning: a lasting state
    ("Heute habe ich meinen Hund Bruno aus dem Tierheim geholt.", "Bruno"),
    ("Hoy mi novia y yo adoptamos un gato, se llama Simón.", "Simón"),
    ("My dentist appointment is at 4 today.", "dentist"),  # a number: dated, kept
])  # fmt: skip
def test_what_happened_today_or_starts_today_stays(text, kept):
    assert any(kept in f for f in facts(text)), facts(text)


# laughter ends what the person asserts: what follows it in the sentence is an aside, and the
# laughter itself is never part of a memory (new sentences, not from any set)
@pytest.mark.parametrize("text, kept, gone", [
    ("Toco la batería en un grupo de rock, jajaja, y los vecinos me odian", "batería", "vecinos"),
    ("Trabalho num call center de madrugada, kkkk ninguém merece", "call center", "ninguém"),
    ("Je fais du yoga tous les matins mdr je suis toujours en retard", "yoga", "retard"),
    ("My wife runs a bakery haha and I eat all the profits", "bakery", "profits"),
])  # fmt: skip
def test_what_follows_laughter_is_an_aside(text, kept, gone):
    got = facts(text)
    assert any(kept in f for f in got), got
    assert not any(gone in f for f in got), got
    assert not any(w in f.lower() for f in got for w in ("jaja", "kkk", "mdr", "haha")), got


@pytest.mark.parametrize("text", [
    "Suppose I moved to Lisbon, would I need a Portuguese driving licence?",
    "Imagine I quit my job next month, how long would my savings last?",
    "Angenommen, ich ziehe nach Graz, brauche ich dann ein neues Nummernschild?",
    "Supongamos que me mudo a Chile, ¿necesito visado?",
    "Supposons que je change de travail, est-ce que je perds mes congés ?",
    "假设我搬到成都，房租大概多少？",
])  # fmt: skip
def test_a_supposition_is_no_fact(text):
    assert facts(text) == [], facts(text)


def test_say_as_a_verb_or_an_imagined_fact_is_not_a_supposition():
    assert not mood.supposed("I imagine my sister will visit in May")
    assert any("Lisbon" in f for f in facts("I moved to Lisbon last year, suppose I should learn Portuguese."))


@pytest.mark.parametrize("text", [
    "Set an alarm for 6:45 tomorrow.",
    "Remind me to water the plants on Friday.",
    "Lembra-me de ligar ao canalizador amanhã.",
    "Recuérdame comprar pilas esta tarde.",
    "Erinnert mich bitte an den Geburtstag von Oma.",
    "Rappelez-moi de réserver le train.",
    "提醒我周五交房租。",
])  # fmt: skip
def test_a_reminder_or_an_alarm_asked_of_the_assistant_is_no_fact(text):
    assert facts(text) == [], facts(text)


def test_today_named_before_a_clause_scopes_it_unless_it_names_its_own_time():
    assert facts("Es regnet heute den ganzen Tag, ich lese lieber ein Buch.") == []
    assert any("Rad" in f for f in facts("Heute bin ich müde, aber ich fahre jeden Tag mit dem Rad zur Arbeit."))
    assert any("十" in f for f in facts("我今天好累，加班到十点。"))  # a time given: kept
