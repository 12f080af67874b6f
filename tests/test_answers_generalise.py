"""Issue 28: answers that generalise. Refusals only for facts of the person's life, never for a
general question or with memory off; a refusal never reaches the next turn's history; the
Must-show checks (pharmacist, 2+2, "¿Dónde vivo?") through the real chat model, MiniLM and store.
Assertions are on what code decides (the memory answer, the correction), never on the 135M
model's words. Tests named ``..._fake_model`` check logic with a scripted model."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from assistant.answering import EMPTY, UNKNOWN, for_history, settle
from assistant.memory.retrieval import questions as Q
from assistant.session import ChatSession
from chat_fakes import ScriptedModel  # noqa: I001 - tests/ is on sys.path (rootdir conftest)

GENERAL = [
    "Am I right that 2+2 is 4?", "Am I right that water boils at 100 C?",
    "What is my BMI if I weigh 70 kg and am 1.75 m tall?", "Suggest a gift for my mother's birthday",
    "Is my plan to learn Spanish in a month realistic?", "How do I say 'my dog' in French?",
    "Comment puis-je améliorer ma prononciation ?", "What's 17 times 23?",
    # a condition with a number, advice asked as "we" or by an infinitive, knowledge in Spanish
    "If a cake needs 200 g of sugar and I triple it, how much sugar is that?",
    "Mon fils ne mange pas de légumes, que faire ?", "Mi hija no duerme bien, ¿cómo podemos ayudarla?",
    "How can we save more money as a family?", "¿En qué año cayó el muro de Berlín?",
    # deliberation (a modal after the person, "some" ideas), and tips or a gift asked in another language
    "What are some fun things I could do with my in-laws at Christmas in Glasgow?",
    "Was schenke ich meiner Schwester, die Hebamme ist, zum Geburtstag?", "¿Qué consejos hay para correr la primera media maratón?",
    "What's the biggest ocean on our planet?",  # "our" of everyone, not of the household
    # which kinds of things do something, "my" only its setting; a conversion (dev4)
    "What exercises help my knee recover after a meniscus tear?", "Which herbs grow well in my garden in a hot, dry summer?",
    "How many micrograms is 2000 IU of vitamin D?", "Quantos metros tem uma milha?", "How many grams are in a pound?",
]  # fmt: skip
PERSONAL = ["Quantos anos tem a minha filha?", "What books have I read this year?", "Which friends came to my party?", "What languages do I speak?",
            "What do I do for a living?", "¿Dónde vivo?", "Wo wohne ich?", "Tell me my name.", "Remind me where I live.",
            "In which city do I live?", "Où est-ce que j'habite ?", "Am I vegetarian?",
            "¿Qué deporte practico los fines de semana?", "¿De dónde soy?",
            "what's the name of our dog?", "¿Cómo se llama nuestro perro?"]  # a thing of the household  # fmt: skip


@pytest.mark.parametrize("question", GENERAL)
def test_a_general_question_is_never_refused_or_replaced(question):
    """Whatever the model answers (even a made-up "you"), code neither refuses nor replaces it."""
    assert not Q.asks_personal_fact(question)
    s = settle(question, "Yes, you are right: it is 4.", None, [])
    assert s.correction is None and s.reply == "Yes, you are right: it is 4."


@pytest.mark.parametrize("question", PERSONAL)
def test_a_question_about_the_persons_life_may_be_refused(question):
    assert Q.asks_personal_fact(question)
    assert settle(question, "You live in Paris and work as a chef.", None, []).correction == "unknown"


def test_a_gloss_is_not_read_as_advice_by_its_shape():
    assert not Q.requests("Wohin fliegen wir im August?")  # "where to fly we": a question, not "where to ...?" advice


def test_memory_off_means_no_memory_refusal():
    s = settle("Where do I live?", "You live in Paris.", None, [], memory_on=False)
    assert s.correction is None and s.reply == "You live in Paris."


def test_a_refusal_never_reaches_the_history():
    # 28.5: the code refusal is left out; a "don't know" next to a memory answer the person was
    # shown becomes that answer; the model's own "I don't know" with nothing to answer stays
    assert for_history(UNKNOWN, "unknown", None) is None
    assert for_history("I don't know where you live.", None, None) == "I don't know where you live."
    ma = {"text": "User lives in Ghent.", "statement": "You live in Ghent.", "in_reply": False}
    assert for_history("I'm not sure, you haven't told me.", None, ma) == "You live in Ghent."
    assert for_history("Paris is the capital of France.", None, None) == "Paris is the capital of France."


def test_a_refused_turn_is_left_out_of_the_next_prompt_fake_model(keepsake_home, converted_embedder_path, services):
    model = ScriptedModel(["Your name is Bob.", "Hello!", "Fine."])
    store = services.open_store()
    session = ChatSession(store, model, store.create_session(title="t").id, settings=services.settings,
                          retriever=services.retriever(store))  # fmt: skip
    try:
        first = session.send("What is my name?")
        assert first.correction == "unknown" and first.reply == UNKNOWN  # invented about the person: refused
        session.send("Hi there.")
        session.send("And now?")
        sent = [m.content for m in model.calls[2] if m.role in ("user", "assistant")]
        assert UNKNOWN not in sent and "What is my name?" not in sent  # the refused turn is not in the history
        assert "Hello!" in sent
        # the same holds for a history rebuilt from the store (another process, a restart)
        from assistant.session_history import answered_history

        rebuilt = [m.content for m in answered_history(store, session.session_id)]
        assert UNKNOWN not in rebuilt and "Hello!" in rebuilt
    finally:
        session.close()
        store.close()


def test_a_reply_that_repeats_an_earlier_one_is_replaced_and_left_out_fake_model(keepsake_home, converted_embedder_path, services):
    """A small model copies its previous answer into later turns: the copy is shown as EMPTY
    (or the memory answer) and never reaches the history, so it cannot teach the next turn."""
    same = "Ze klok och klok! Welcome to Antwerp! I'm happy to chat with you about your pet."
    model = ScriptedModel([same, same + " ", "Four.", "Okay then."])
    store = services.open_store()
    session = ChatSession(store, model, store.create_session(title="t").id, settings=services.settings,
                          retriever=services.retriever(store))  # fmt: skip
    try:
        first = session.send("Hi, tell me something nice.")
        assert first.correction is None and first.reply == same
        second = session.send("Am I right that 2+2 is 4?")
        assert second.correction == "repeat" and second.reply == EMPTY and second.model_reply.strip() == same
        third = session.send("Thanks.")
        assert third.correction is None and third.reply == "Four."  # a new reply is not a repeat
        session.send("Bye.")
        sent = [m.content for m in model.calls[3] if m.role == "assistant"]
        assert sent.count(same) == 1 and EMPTY not in sent  # the copy and its stand-in are not in the history
        from assistant.session_history import answered_history

        rebuilt = [m.content for m in answered_history(store, session.session_id)]
        assert EMPTY not in rebuilt and rebuilt.count(same) == 1
    finally:
        session.close()
        store.close()


def test_repeats_needs_a_long_near_copy():
    from assistant.memory.retrieval.reply_check import repeats

    assert repeats("You live in Antwerp, a lovely city in Belgium.", ["you live in  antwerp, a lovely city in belgium"])
    assert not repeats("You're welcome!", ["You're welcome!"])  # short courtesies may come twice
    assert not repeats("You live in Antwerp, a lovely city in Belgium.", ["Your cat Pepper is three years old now."])


def test_an_empty_reply_to_news_or_a_greeting_is_no_request_to_rephrase():
    """Trial finding: "My partner Joost is a carpenter, ..." got "Sorry, I don't have a good
    answer to that. Could you rephrase it?" when the guard emptied the model's echo. Nothing was
    asked: news gets ACK, a greeting GREETING; a question still gets EMPTY."""
    from assistant.answering import ACK, GREETING

    assert settle("My partner Joost is a carpenter, and we have a cat called Pepper.", "", None, []).reply == ACK
    assert settle("Hello there!", "", None, []).reply == GREETING
    assert settle("What's the capital of Peru?", "", None, []).reply == EMPTY


def test_a_greeting_answered_with_an_earlier_reply_gets_a_greeting():
    """Trial finding: "Hello there!" got "You live in Antwerp." - the previous turn's memory
    answer copied. Under REPEAT_MIN_CHARS (24) for questions, but a greeting repeating any earlier
    reply of 12+ characters is a copy; a new greeting stays, and news may repeat a courtesy."""
    from assistant.answering import GREETING

    copied = settle("Hello there!", "You live in Antwerp.", None, [], earlier=["You live in Antwerp."])
    assert copied.reply == GREETING and copied.correction == "repeat" and copied.model_reply == "You live in Antwerp."
    assert settle("Hello there!", "Hi! How are you today?", None, [], earlier=["You live in Antwerp."]).reply == "Hi! How are you today?"
    news = settle("We got a puppy!", "That sounds lovely!", None, [], earlier=["That sounds lovely!"])
    assert news.reply == "That sounds lovely!" and news.correction is None


def keepsake(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "assistant.cli", *args, "--json"], capture_output=True, text=True,
                         timeout=600, env=os.environ.copy())  # fmt: skip
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_must_show_pharmacist_two_plus_two_and_donde_vivo(converted_embedder_path):
    """Issue 28, Must show, through the `keepsake` command: the memory answer (decided by code)
    names the job and the city; 2+2 is neither refused nor replaced."""
    job = keepsake("memory", "add", "User works as a pharmacist.")
    city = keepsake("memory", "add", "User lives in Ghent.")
    living = keepsake("chat", "--once", "What do I do for a living?")
    assert living["memory_answer"] and living["memory_answer"]["memory_id"] == job["id"]
    assert "pharmacist" in living["memory_answer"]["text"]
    maths = keepsake("chat", "--once", "Am I right that 2+2 is 4?")
    assert maths["correction"] not in ("unknown", "memory") and maths["memory_answer"] is None
    where = keepsake("chat", "--once", "¿Dónde vivo?")
    assert where["memory_answer"] and where["memory_answer"]["memory_id"] == city["id"]
    # telling is not asking: the memory the message replaces is never shown as its answer
    moved = keepsake("chat", "--once", "I moved to Antwerp last week.")
    assert moved["memory_answer"] is None


@pytest.mark.parametrize("text, telling", [
    ("I moved to Antwerp last week.", True), ("Hi, I'm Marta. I live in Ghent and work as a nurse.", True),
    ("My name is Dana.", True), ("Where do I live?", False), ("Tell me my name.", False),
    ("wat's my nam", False), ("I forgot where my sister works again", False), ("I moved. Where do I live now?", False),
])  # fmt: skip
def test_a_message_that_tells_a_slot_and_asks_nothing_gets_no_memory_answer(text, telling):
    from assistant.memory.retrieval.answer import tells

    assert tells(text) is telling


@pytest.fixture(scope="module")
def matcher(converted_embedder_path):
    from assistant.engine.embedder import LlamaEmbedder
    from assistant.memory.language.reading import english_embed
    from assistant.memory.retrieval.forms import AnswerMatcher

    embedder = LlamaEmbedder(converted_embedder_path, n_threads=1)
    yield AnswerMatcher(english_embed(embedder.embed_queries))
    embedder.close()


@pytest.mark.parametrize("text, produce", [
    ("Write a short birthday poem for my son.", True),
    ("Build me a weekly workout routine for my knees?", True),   # a verb no list holds
    ("Could you please estimate the cost of a week in Rome?", True), ("Summarise the plot of Hamlet.", True),
    ("Any tips for my first marathon?", True),
    ("Escribe un poema para mi hijo.", True),                    # read in its English gloss
    ("Tell me my name.", False), ("What is my job?", False), ("favorite color?", False),
    ("Name the trumpet player I'm always listening to.", False),
    ("Give me my wife's name.", False), ("List the languages I speak.", False),  # its object: what the person has
    ("Planning a gift for Camille, what does she teach again?", False),  # a gerund opens a clause, it orders nothing
])  # fmt: skip
def test_a_request_to_produce_something_is_recognised_by_meaning(matcher, text, produce):
    assert matcher.produces(text) is produce


def test_a_request_to_produce_something_is_never_refused(matcher):
    """The question-shaped request reads as a question about the person by its words alone, so
    code would refuse it; read by meaning it asks for a routine, and the reply stays."""
    q = "Build me a weekly workout routine for my knees?"
    assert settle(q, "Monday: squats, Tuesday: rest.", None, []).correction == "unknown"
    s = settle(q, "Monday: squats, Tuesday: rest.", None, [], matcher=matcher)
    assert s.correction is None and s.reply == "Monday: squats, Tuesday: rest."


def test_a_condition_about_the_person_carries_data_only_with_a_number():
    assert Q.computes("What's my BMI if I weigh 70 kg?")
    assert not Q.computes("I can't remember if I ever told you my hometown.")


def _hit(text, slot=None):
    from types import SimpleNamespace

    return SimpleNamespace(memory=SimpleNamespace(text=text, slot=slot, entities=()), passed_threshold=True, slot_answer=False, why_not="")


def test_a_question_about_a_named_pet_or_child_may_be_refused_fake_hits():
    """Second new-user trial: "What's the name of Biscuit's vet?" (never said) got the model's
    "Biscuit's vet is a beagle named Biscuit.": a question about someone the memories name as
    the person's own asks for a fact of their life, so code may say it does not know."""
    hits = [_hit("User has a beagle named Biscuit.", "pet"), _hit("User's son is Leo.", "family.son"), _hit("Leo is 6.")]
    invented = settle("What's the name of Biscuit's vet?", "Biscuit's vet is a beagle named Biscuit.", None, hits)
    assert invented.correction == "unknown"
    assert settle("How old is Leo?", "Leo is 6.", None, hits).correction is None  # grounded in a memory
    assert settle("Can you suggest a birthday gift for Leo?", "A football.", None, hits).correction is None  # a request
    assert settle("Who is Marie Curie?", "A physicist.", None, hits).correction is None  # no one of theirs
    off = settle("What's the name of Biscuit's vet?", "Dr. Lee.", None, hits, memory_on=False)
    assert off.correction is None  # memory off: no memory refusal


def test_a_reply_that_repeats_the_question_loses_that_sentence():
    """Found by a new user: "You're flying to Reykjavik ... !\nRemind me when my Iceland trip is."."""
    q = "Remind me when my Iceland trip is."
    s = settle(q, "You're flying to Reykjavik on March 14.\nRemind me when my Iceland trip is.", None, [], memory_on=False)
    assert s.reply == "You're flying to Reykjavik on March 14."
    # a question echoed at the start goes too; a greeting may be answered in kind
    assert settle("What is 2+2?", "What is 2+2? It is 4.", None, []).reply == "It is 4."
    assert settle("Hello there!", "Hello there!", None, []).reply == "Hello there!"


def test_a_reply_in_the_persons_voice_is_turned_to_them_once():
    """Found by a new user: "You are allergic to shellfish.\n\nYou're allergic to shellfish."."""
    from assistant.memory.retrieval.answer import MemoryAnswer
    from assistant.memory.retrieval.reply_check import address_person

    a = MemoryAnswer(1, "User is allergic to shellfish.", None, "cli", "You are allergic to shellfish.", ("allergic", "shellfish"), ())
    assert address_person("You are allergic to shellfish.\n\nI'm allergic to shellfish.", a) == "You are allergic to shellfish."
    assert address_person("I'm allergic to shellfish. Be careful.", a) == "You're allergic to shellfish. Be careful."


def test_a_pet_named_by_its_breed_is_the_persons_dog_fake_hits():
    """"Was the growth on my dog cancerous?" / "Pilot had a lump removed ...": the memory that
    gives Pilot ("a retired greyhound called Pilot") makes "my dog" Pilot."""
    from assistant.memory.retrieval.aliases import aliases_of

    hits = [_hit("Pilot had a lump removed from his shoulder at the vet, it was benign."),
            _hit("User's household adopted a retired greyhound called Pilot from the shelter in Gaia."),
            _hit("We also have a grey cat named Olive who hates Pretzel.")]  # fmt: skip
    assert aliases_of(hits) == {"pilot": "dog", "olive": "cat"}


def test_advice_is_asked_in_words_or_their_english_reading():
    assert Q.asks_advice("My cat and my dog don't get along, any tips?")
    assert Q.asks_advice("¿Qué consejos hay para dormir mejor?")
    assert not Q.asks_advice("Which medicine should I avoid?")  # a request that memory answers
    assert not Q.asks_advice("Remind me what I should get my girlfriend for her birthday.")  # recall, not a gift to choose


def test_a_request_for_advice_gets_no_memory_answer(matcher):
    """Its memory is context for the advice ("any tips?" with "We also have a grey cat named
    Olive who hates Pretzel."), not the answer: the bench counts that as a general question
    answered from memory."""
    from assistant.memory.retrieval.answer import choose

    from types import SimpleNamespace

    def fact(i, text):
        m = SimpleNamespace(id=i, text=text, slot=None, entities=(), kind="fact", sources=(), valid_at=None, created_at=None, said_at=None, invalid_at=None,
                            trust="user_stated", session_id=None, message_id=None)  # fmt: skip
        return SimpleNamespace(memory=m, passed_threshold=True, slot_answer=False, why_not="")

    hits = [fact(1, "We also have a grey cat named Olive who hates Pretzel."), fact(2, "User has a beagle named Pretzel.")]
    assert choose("My cat and my dog don't get along, any tips?", hits, matcher) is None
    assert choose("What's my cat called?", hits, matcher) is not None  # the same memories answer a question


def test_the_recall_wrapper_is_no_question_about_the_person():
    assert Q.recall_core("Remind me who Frieda's best friend is.") == "who Frieda's best friend is."
    assert Q.recall_core("Do you remember what Noé calls me?") == "what Noé calls me?"  # the "me" after it stays
    assert not Q.speaks_of_self(Q.recall_core("Remind me who Frieda's best friend is."))


def test_a_role_asked_to_be_named_needs_a_memory_that_words_it(matcher):
    """Never said, once invented: "Which vet does Bracken go to?" was answered by "User's
    household have got a border collie called Bracken." (about Bracken, naming no vet)."""
    from types import SimpleNamespace

    from assistant.memory.retrieval.answer import choose

    def fact(i, text):
        m = SimpleNamespace(id=i, text=text, slot=None, entities=(), kind="fact", sources=(), valid_at=None, created_at=None, said_at=None, invalid_at=None,
                            trust="user_stated", session_id=None, message_id=None)  # fmt: skip
        return SimpleNamespace(memory=m, passed_threshold=True, slot_answer=False, why_not="")

    collie = fact(1, "User's household have got a border collie called Bracken.")
    assert choose("Which vet does Bracken go to?", [collie], matcher) is None
    assert choose("What breed is Bracken?", [collie], matcher) is not None  # the breed is a value it holds
    vets = fact(2, "Bracken goes to Dr. Lee at the Hillside Vets.")
    a = choose("Which vet does Bracken go to?", [collie, vets], matcher)
    assert a is not None and "Hillside" in a.text
    # "supported" words the team: "Which football team do I support?"
    assert choose("Which football team do I support?", [fact(3, "I've supported Real Valladolid since I was a kid.")], matcher)


def test_the_asked_role_is_what_is_asked_not_its_owner():
    assert "vet" in Q.asked_role("Which vet does Bracken go to?")
    assert "phone" in Q.asked_role("What's my dentist's phone number?") and "dentist" not in Q.asked_role("What's my dentist's phone number?")
    assert Q.asked_role("Where does Bracken sleep?") == frozenset()


@pytest.mark.parametrize("text, relation, named", [
    ("Frieda started 4th grade today, her teacher is Frau Kessler and she already has a best friend, Matilde", "friend", False),
    ("Frieda already has a best friend, Matilde.", "friend", False),  # the same, once capture gave "she" its name
    ("her friend Ana came over", "friend", False),  # hers, not the person's
    ("Camille's little boy Noé turned 6", "son", False),
    ("Te cuento: mi mejor amigo Nacho se casa en Valencia", "friend", True),
    ("User's best friend is Nacho.", "friend", True),
    ("User has a beagle named Pretzel.", "dog", True),
])  # fmt: skip
def test_a_relation_someone_else_has_is_not_the_persons(text, relation, named):
    """"Who's my best friend?" had been answered by Frieda's best friend."""
    from assistant.memory.retrieval.aliases import names_relation

    assert names_relation(text, relation, {}) is named


@pytest.mark.parametrize("question", [
    "What's the German for 'my husband is a doctor'?",  # the quoted words are mentioned, not said of the person
    "My aunt says coffee stunts your growth. Is she right?",  # a short tag judging the statement before it
    "I want to run a marathon in six weeks. Realistic?",
    "How does my robot vacuum know where the stairs are?",  # how a thing of theirs works
    "Why does my laptop fan get so loud?",  # why a thing of theirs behaves as it does
    "Can my rabbit eat tomatoes?",  # what anyone's pet can eat
    "How much protein do I need per day?",
    "Why do I sneeze when I look at the sun?",  # a habit under a condition
    "I'm 1.80 m tall, how much is that in feet?",
    "Is it true that I can't mix bleach and vinegar?",  # "I" as anyone, with a modal
    "Any exercises I can do at my desk?",
    # "why" of what keeps happening under a condition, in other languages too; may they do it to a thing of theirs
    "¿Por qué me pica la garganta cuando como piña?", "Warum tun mir die Knie weh, wenn ich Treppen steige?",
    "Why does my bread go stale so fast once it's sliced?", "Can I put my cast-iron pan in the dishwasher?",
    "What does the turbo button on my blender actually do?", "What is the orange light on my router telling me?",  # what a thing does or tells
])  # fmt: skip
def test_a_general_question_that_mentions_the_person_is_no_personal_fact(question):
    assert not Q.asks_personal_fact(question)


@pytest.mark.parametrize("question", [
    "Why does my sister live in Lisbon?", "How does my brother know Camille?",  # what a person of theirs does
    "Is there any food I can't stand?", "Where do I live?",
    "Why did I move to Leeds after the divorce?", "why am i learning french again",  # a reason they told
    "What does my sister do?", "What does the little guy call me now?",  # what a person of theirs does
])  # fmt: skip
def test_a_question_about_the_persons_life_stays_one(question):
    assert Q.asks_personal_fact(question)


def test_the_general_bench_scores_both_kinds():
    from assistant.bench.general import score

    out = score([{"q": "Why does my laptop fan get so loud?", "kind": "general", "lang": "en"},
                 {"q": "Where do I live?", "kind": "personal", "lang": "en"}])  # fmt: skip
    assert (out["general_refusable"], out["personal_read"], out["misread"]) == (0, 1, [])


@pytest.mark.parametrize("question, personal", [
    ("Which hotel are we staying at in Lisbon?", True),  # "we" in a plan or a past is the household
    ("Where did we go on our honeymoon?", True),
    ("Why do we dream?", False),  # "we" in the simple present may be anyone
    ("How are we supposed to know?", False),
    ("Onde é que passei a lua de mel?", True),  # Portuguese: a first-person preterite in -ei
    ("Em que ano tirei a carta de condução?", True),
])  # fmt: skip
def test_we_in_a_plan_and_a_portuguese_first_person_verb_are_the_person(question, personal):
    assert Q.asks_personal_fact(question) is personal


def test_a_german_genitive_names_someone_of_theirs_fake_hits():
    """"Was ist Arjuns Lieblingsessen?" asks about Arjun (never said: code may say it does not know)."""
    from assistant.memory.retrieval.answer import about_known

    hits = [_hit("User's husband is Arjun.", "family.husband")]
    assert about_known("Was ist Arjuns Lieblingsessen?", hits)
    assert not about_known("Was ist Thomas Lieblingsessen?", hits)  # no one of theirs


@pytest.mark.parametrize("question", [
    "I'm allergic to penicillin, is amoxicillin safe for me to take?",  # a new user's safety question got their own memory back
    "My mum loves gardening, what's a good birthday present for her?",
    "What's a good name for a beagle?",
])  # fmt: skip
def test_the_question_a_message_ends_with_is_read_after_what_it_tells(question):
    assert Q.requests(question) and not Q.asks_personal_fact(question)


def test_the_last_question_keeps_a_question_about_the_person():
    assert Q.last_ask("I moved last week, where do I live now?") == "where do I live now?"
    assert Q.asks_personal_fact("I moved last week, where do I live now?")


def test_a_reply_about_someone_named_is_grounded_only_by_a_memory_about_them_fake_hits():
    """A new user: "when is Tom's birthday?" (never said) got the model's "Tom's birthday is on the
    3rd of August." - Mum's birthday - and it was not refused: the date was in a memory."""
    hits = [_hit("User's partner is Tom.", "partner"), _hit("Mum's birthday is on 3 August."), _hit("Tom is a carpenter.")]
    s = settle("when is Tom's birthday?", "Tom's birthday is on the 3rd of August.", None, hits)
    assert s.correction == "unknown"
    assert settle("what does Tom do?", "Tom is a carpenter.", None, hits).correction is None


def test_a_reply_about_someone_named_is_grounded_only_by_what_a_message_says_of_them_fake_hits():
    """A new user's week, replayed: "How old is Jonas?" (never said) got the model's "Jonas is 47
    years old." unrefused -- 47 was the person's own age, in the message that also named Jonas."""
    hits = [_hit("I'm Matilde Brandt, I turned 47 in October. My husband Jonas is a piano tuner."), _hit("User's husband is Jonas.", "partner")]
    assert settle("How old is Jonas?", "Jonas is 47 years old.", None, hits).correction == "unknown"
    assert settle("What does Jonas do?", "Jonas is a piano tuner.", None, hits).correction is None


def test_a_glossed_question_with_its_subject_after_the_verb_is_no_advice():
    """"Wohin fliegen wir nach Weihnachten?" reads "where to fly we to Christmas?": not "where to go ...?" advice."""
    assert not Q.requests("where to fly we to Christmas?")
    assert Q.requests("Where to go for dinner tonight?")


def test_the_whole_noun_phrase_the_question_owns_is_read():
    from assistant.memory.retrieval.terms import owned_phrase

    assert owned_phrase("what was my vit d number") == "vit d number"
    assert owned_phrase("What's my master's degree in?") == "master's degree"
    assert owned_phrase("What did my blood test show I was low in?") == "blood test show"
    assert owned_phrase("Where is our allotment?") == "allotment" and owned_phrase("Where is it?") == ""


def test_a_compound_the_question_owns_is_covered_by_meaning_not_its_first_word(matcher):
    # "my vit" 0.13 with the message (under TOPIC_COSINE 0.20); "my vit d number" 0.31
    text = "doc says my vitamin D is low (18 ng/ml), taking 2000 IU a day now"
    assert not matcher.about(("vit",), text)
    assert matcher.about(("vit",), text, "vit d number")
    assert not matcher.about(("boat",), text, "boat")  # a thing never spoken of stays uncovered


@pytest.mark.parametrize("text, names", [
    ("I sing in a little jazz band called the Blue Herons", True), ("Lotte named the hamster Kaas", True),
    ("mi perro se llama Tango", True), ("我的猫叫花花", True), ("The Beatles are my favourite band", False),
    ("I was called in to work on Monday", False),
])  # fmt: skip
def test_a_memory_that_names_something_in_so_many_words(text, names):
    from assistant.memory.retrieval.held import NAMES_SOMETHING

    assert bool(NAMES_SOMETHING.search(text)) is names


def test_a_name_asked_is_answered_by_the_memory_that_names_it(tmp_path, converted_embedder_path):
    from said_support import answer, said_retriever

    said = ["The Beatles are my favourite band of all time, saw Paul live in 2018.",
            "I sing in a little jazz band called the Blue Herons, we mostly play weddings."]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        a = answer(r, "What's the name of my band?")
    assert a is not None and "Blue Herons" in a.text


@pytest.mark.parametrize("kind, text, question, held", [
    ("number", "l'anniversaire de Lotte, c'est le 12 mars", "How old is Lotte?", False),  # a day of a month is no age
    ("number", "Lotte turned 9 on Sunday (2026-03-12).", "How old is Lotte?", True),
    ("number", "Born on 3 May 1990 in Leeds.", "How old is Priya?", True),  # the age follows from the year
    ("when", "In May we fly to Oslo, from the 3rd to the 9th.", "What time is my flight to Oslo?", False),  # a date, no time of day
    ("when", "My shift starts at 5 a.m., so I'm in bed by 9.", "What time does my shift start?", True),
    ("when", "Choir is on Thursday evenings.", "What time is choir?", True),
])  # fmt: skip
def test_an_age_or_a_time_of_day_asked_needs_one_not_a_date(kind, text, question, held):
    from assistant.memory.retrieval.held import holds

    assert holds(kind, text, question) is held


@pytest.mark.parametrize("text, question, only", [
    ("Lotte's little girl Ines turned 6 on Thursday.", "How old is Lotte?", True),  # about Ines
    ("Lotte's studio is in the old mill.", "Where does Lotte work?", False),  # a thing of hers: about her
    ("Lotte's little girl Ines turned 6.", "How old is Lotte's girl?", False),  # asked of the one she owns
    ("Lotte turned 40, her girl Ines made a cake.", "How old is Lotte?", False),
])  # fmt: skip
def test_a_name_written_only_as_someone_elses_owner(text, question, only):
    from assistant.memory.retrieval.held import only_owner

    assert only_owner("lotte", text, question) is only


def test_an_age_asked_of_someone_is_not_their_childs(tmp_path, converted_embedder_path):
    from said_support import answer, said_retriever

    said = ["I'm seeing someone! Her name's Lotte, she teaches maths in Ghent.",
            "Lotte's little girl Ines turned 6 on Thursday! we did a unicorn party in the garden."]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        lotte, ines = answer(r, "How old is Lotte?"), answer(r, "How old is Ines?")
    assert lotte is None  # never said: Ines's age is not hers
    assert ines is not None and "turned 6" in ines.text


def test_the_message_that_words_all_a_question_asks():
    from assistant.memory.retrieval.terms import content_words, wording, words

    def wording_all(question, pools, msgs, least):
        asked = content_words(question)
        return wording(asked, pools, msgs) if len(asked) >= least else set()

    pools = [words("off to Ghent for a symposium on dunes, presenting our erosion model on Friday"),
             words("I present the weather on local radio"), words("the symposium dinner was lovely")]  # fmt: skip
    msgs = [frozenset({1}), frozenset({2}), frozenset({3})]
    assert wording_all("What am I presenting at the symposium?", pools, msgs, 2) == {1}
    assert wording_all("Where's the symposium?", pools, msgs, 2) == set()  # one word is too little evidence
    assert wording_all("What colour is my boat?", pools, msgs, 2) == set()


@pytest.mark.parametrize("question, words", [
    ("What's the name of Finlay's partner?", {"partner", "husband", "wife"}), ("What is the name of the husband of Clara?", {"husband"}),
    ("Who is Frieda's mother?", {"mother", "mum"}), ("Where does my sister live?", set()), ("What's Jonas's middle name?", set()),
])  # fmt: skip
def test_a_relation_someone_named_has_is_read(question, words):
    from assistant.memory.retrieval.held import others_relation

    got = others_relation(question)
    assert words <= got and (bool(got) is bool(words))


def test_a_relation_of_someone_named_needs_a_memory_that_words_it(tmp_path, converted_embedder_path):
    from said_support import answer, said_retriever

    said = ["A minha irmã mais nova, a Inês, é enfermeira no Porto.", "Inês runs every morning before her shift."]
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        husband, job = answer(r, "¿Cómo se llama el marido de Inês?"), answer(r, "O que faz a minha irmã?")
    assert husband is None  # never said: her job is not her husband's name
    assert job is not None and "enfermeira" in job.text


@pytest.mark.parametrize("text, says", [
    ("I did my master's in Delft, that's where I met Sanne.", False), ("Sanne is a hydrologist in Delft.", True),
    ("Sanne teaches chemistry at a secondary school.", True), ("my ex Sanne, the mother of my kid, is architect.", True),
    ("A Sanne trabalha num banco.", True), ("Sanne loves octopuses.", False),
])  # fmt: skip
def test_what_someone_named_does_for_a_living_needs_a_memory_that_says_a_job(text, says):
    from assistant.memory.retrieval.job_said import asks_job_of, says_job_of

    assert asks_job_of("What does Sanne do for work?") and not asks_job_of("What does Sanne do on Saturdays?")
    assert says_job_of("sanne", text) is says


def test_an_episode_keeps_its_place_for_a_rare_word_its_clauses_lack(tmp_path, converted_embedder_path):
    """One hit per message lets a clause ("Tobi started year 4 at the Elbschule") stand for its
    message; the message keeps its own place for a rare asked word only it has ("teacher")."""
    from datetime import datetime, timezone

    from assistant.memory.retrieval import gates
    from assistant.memory.store import search_reads as reads
    from assistant.memory.store.filters import MemoryFilter, select_sql
    from said_support import said_retriever

    # (laughter run into the next words ends the clause: "teacher" is in the message only; "lol," before a comma is a
    # chat tag dropped since the eighteenth session, and "the teacher is Herr Brandt" then a clause of its own)
    said = ["Tobi started year 4 at the Elbschule today lol the teacher is Herr Brandt", "Tobi is obsessed with submarines right now."]
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        def rare(c, question):
            sql, params = select_sql(MemoryFilter(), datetime.now(timezone.utc))
            rows = {row[0]: row for row in reads.rows_by_ids(c, sql, params, list(range(1, 100)))}
            return {rows[i][1] for i in gates.wording_rare(c, rows, question, lambda ts: {t: reads.doc_freq(c, t) for t in ts},
                                                            reads.count_rows(c))}  # fmt: skip
        teacher = r.store.read(lambda c: rare(c, "Who's Tobi's teacher this year?"))
        year = r.store.read(lambda c: rare(c, "What year is Tobi in at school?"))
    assert teacher == {said[0]}  # the message, not a clause of it
    assert not year  # "year" is in its clause too


def test_a_german_ordinal_date_ends_no_sentence():
    from assistant.memory.language.match import sentence_spans
    from assistant.memory.language.rules import sentences

    text = "Urlaub gebucht! Vom 28. August bis 6. September fahren wir nach Oslo. Mama hat am 14. März Geburtstag. Ich bin 38. Super."
    want = ["Urlaub gebucht!", "Vom 28. August bis 6. September fahren wir nach Oslo.", "Mama hat am 14. März Geburtstag.", "Ich bin 38.", "Super."]
    assert sentences(text) == want
    assert [text[a:b] for a, b in sentence_spans(text)] == want


@pytest.mark.parametrize("kind, text, question, held", [
    ("when", "From 28 August until 6 September we take the ferry from Kiel to Oslo.", "What time does our ferry leave?", False),
    ("colour", "Tattie, our ginger tabby cat, runs the house.", "What colour is Tattie?", True),
    ("colour", "Matjes stays with our neighbour Frau Kowalski.", "What colour is Matjes?", False),  # never said
    ("colour", "我的猫是黑色的", "What colour is my cat?", True),
])  # fmt: skip
def test_a_colour_or_a_time_of_day_asked_needs_one(kind, text, question, held):
    from assistant.memory.retrieval.held import holds
    from assistant.memory.retrieval.questions import answer_type

    assert answer_type(question) in (kind, "when")
    assert holds(kind, text, question) is held


def test_a_pro_drop_message_read_in_english_still_states_something(tmp_path, converted_embedder_path):
    """"Se llama Pilar y es alérgica ..." reads "is called Pilar and is allergic ...": no subject in
    English, a statement in its own words."""
    from said_support import answer, said_retriever

    said = ["Mi marido dice que su madre viene de Sevilla el sábado y se queda una semana. Se llama Pilar y es alérgica a los perros, "
            "menos mal que tenemos un gato jaja"]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        a = answer(r, "¿A qué es alérgica Pilar?")
    assert a is not None and "perros" in a.text


@pytest.mark.parametrize("text, question, held", [
    ("Ma meilleure amie Claudine, de Lyon, se marie à Annecy.", "what is the surname of Claudine?", False),  # a town is no surname
    ("my friend Claudine Martin is getting married", "What's Claudine's last name?", True),
    ("我从九月开始学中文，我的老师姓王。", "my Chinese teacher surname what?", True),  # the surname said
])  # fmt: skip
def test_a_surname_asked_needs_one(text, question, held):
    from assistant.memory.retrieval.held import holds
    from assistant.memory.retrieval.questions import answer_type

    assert answer_type(question) == "surname"
    assert holds("surname", text, question) is held


@pytest.mark.parametrize("message", [
    "My ferret once swallowed rubber - what household things are generally dangerous for ferrets?",
    "Qual é a capital da Noruega? Quero visitar com a minha família.",
    "我的儿子对花生过敏，学校午餐时要注意什么？",
    "Mein Kollege bringt ständig Linsensuppe mit – ist Linsensuppe eigentlich gesund?",
])  # fmt: skip
def test_what_a_message_tells_around_a_general_question_does_not_make_it_personal(message):
    assert not Q.asks_personal_fact(message)


def test_a_personal_question_after_a_statement_stays_personal():
    assert Q.asks_personal_fact("I fly to Lisbon next week - what time is my flight?")
