"""Issue 28, fifth session: questions in the other capture languages reach the memory that
answers them, through the real capture, store and MiniLM.

- a word of another capture language is no typo of a memory's word ("Quando" was "corrected" to
  the French "quand" of a memory, and the question then read as French: "when vamos has Lisboa?");
- a Latin name written against Chinese characters is its own word ("Arjun的生日是哪天？" was one
  token the Chinese lexicon never read);
- "we" is the person with their household, in six languages ("¿Cuándo volamos a Japón?" names no
  one else: a memory of the household answers it);
- the person's own message in another language states something ("我在...学中文");
- the relation and the favourite a question asks are read in its English reading too ("Was
  macht mein Mann beruflich?": the husband, read as the name given to him by retrieval);
- beside the languages: a clause quoted out of a message answers with the whole message
  (:func:`assistant.memory.retrieval.aliases.whole`), and "Which neighbourhood do I live in?" is
  not answered by the home town's slot (:func:`assistant.memory.retrieval.held.home_of_area`);
  "my in-laws" are read as the partner's parents (:func:`assistant.memory.retrieval.aliases.in_law_read`).
"""

from __future__ import annotations

import pytest

from assistant.memory.language.gloss import gloss, lexicon_words
from assistant.memory.retrieval.answerable import states_something
from assistant.memory.retrieval.questions import speaks_of_self, speaks_of_us
from assistant.memory.retrieval.spelling import correct
from said_support import answer, said_retriever  # noqa: I001 - tests/ is on sys.path (rootdir conftest)

SAID = [
    ("lisbon", "Em outubro vamos a Lisboa, do dia 24 ao dia 31, para comemorar o nosso aniversário."),
    ("japan", "We're flying to Osaka on October 14 for two weeks, first time in Japan for all of us!"),
    ("birthday", "Arjun's birthday is the 2nd of August — remind me to plan something this year."),
    ("home", "Just so you know, I live in Vancouver, in Mount Pleasant."),
    ("hometown", "I grew up in Freiburg, down in the south-west of Germany near the Black Forest."),
    ("film", "Mon film préféré, c'est Amélie, je le regarde chaque hiver."),
    ("gp", "My family doctor is Dr. Priya Natarajan at the Broadway clinic."),
    ("pets", "We have a beagle called Pretzel. We also have a grey cat named Olive."),
    ("husband", "My husband Arjun teaches physics at Hillhead High School."),
    ("paramedic", "My brother Rafael is a paramedic."),
    ("sister", "A minha irmã mais nova, a Clara, é parteira em Lisboa."),
    ("inlaws", "Arjun's parents, Sunil and Meera, live in Pune and they're coming to stay with us over Christmas."),
    ("summer", "Quand j'étais étudiante, je travaillais l'été au café du ferry entre Ullapool et Stornoway."),
]  # fmt: skip


@pytest.fixture(scope="module")
def said(tmp_path_factory, converted_embedder_path):
    with said_retriever(tmp_path_factory.mktemp("langs") / "m.db", converted_embedder_path, SAID, said_on="2025-05-02", key="5c" * 32) as retriever:
        yield retriever


@pytest.mark.parametrize("question, must", [
    ("Quando vamos a Lisboa?", "outubro"),  # "Quando" stays Portuguese though the French memory says "Quand"
    ("¿Cuándo volamos a Japón?", "October 14"),  # "we": the household's trip, though "Japón" is no word of the memory
    ("When do we fly to Japan?", "October 14"),
    ("Arjun的生日是哪天？", "2nd of August"),  # the Latin name and the characters after it are two words
    # "mon mari" / "mein Mann" read in English ("my husband") and as the name given to him (Arjun) by retrieval
    ("Quel est le métier de mon mari ?", "physics"),
    ("Was macht mein Mann beruflich?", "physics"),
    ("我丈夫是做什么工作的？", "physics"),
    ("我的狗叫什么名字？", "Pretzel"),
    # a clause quoted out of a message answers with the whole message: the dates and the why are in the rest
    ("What dates is our Lisbon trip?", "24"),
    ("What are we celebrating in Lisbon?", "aniversário"),
    ("Which neighbourhood do I live in?", "Mount Pleasant"),  # a part of the home town, not the town's slot
    # a word for the same thing: the favourite asked ("movie" / "film") and a word no memory has ("GP" / "doctor")
    ("What's my favourite movie?", "Amélie"),
    ("What's my GP's name?", "Natarajan"),
    ("Remind me which town I'm originally from.", "Freiburg"),  # read as "which town am I originally from?"
    # "my in-laws" are the partner's parents: read as "Arjun's parents" (the husband's given name)
    ("Where do my in-laws live?", "Pune"),
    ("Tell me my sister's job.", "parteira"),
    ("What does my other half do for work?", "physics"),  # "other half", "hubby", "missus": the partner  # "a Clara": the article before her name is dropped, so Clara is the sister's name
    ("Wann kommen meine Schwiegereltern zu Besuch?", "Christmas"),  # both pets are the "pet" slot: the dog is the beagle, not the cat
])  # fmt: skip
def test_a_question_in_another_language_finds_its_memory(said, question, must):
    a = answer(said, question)
    assert a is not None and must in a.text, (question, a and a.text)


def test_a_favourite_asked_in_another_language_needs_a_memory_that_names_it(said):
    # the husband's favourite colour was never said: "Arjun teaches physics" is no answer to it
    assert answer(said, "我丈夫最喜欢什么颜色？") is None
    assert answer(said, "Quelle est la couleur préférée de mon mari ?") is None


def test_a_recall_request_is_read_as_the_direct_question_it_asks():
    from assistant.memory.retrieval.questions import direct

    assert direct("Remind me which town I'm originally from.") == "which town am I originally from."
    assert direct("Remind me where I live.") == "where do I live."
    assert direct("Which town am I from?") == "Which town am I from?"  # a direct question stays


def test_a_word_of_another_capture_language_is_no_typo():
    # "quando" is one edit from the memory's "quand" (French), and no English word
    assert "quando" in lexicon_words() and "metier" in lexicon_words()  # with and without accents
    assert correct("Quando vamos a Lisboa?", {"quand": 2, "lisboa": 1}) == "Quando vamos a Lisboa?"
    assert correct("what am i alergic to", {"allergic": 1}) == "what am i allergic to"  # an English typo still is


def test_a_latin_name_against_chinese_is_its_own_word():
    assert "birthday" in gloss("Arjun的生日是哪天？") and "Arjun" in gloss("Arjun的生日是哪天？")


def test_a_text_without_function_words_is_the_language_its_lexicon_knows():
    from assistant.memory.language.langid import detect

    assert detect("Que carro temos?") == "pt"  # "que" is shared, "carro" and "temos" are Portuguese words
    assert detect("Pizza tonight") == "en" and detect("Thanks!") == "en" and detect("Radiohead forever") == "en"


def test_an_article_before_a_name_is_dropped_in_the_gloss():
    assert gloss("A minha irmã mais nova, a Clara, é parteira em Lisboa.").startswith("my younger sister, Clara,")
    assert "the house" in gloss("A casa é grande.")  # before a word of the lexicon it is "the"


def test_we_is_the_household_and_i_the_person():
    assert speaks_of_us("When do we fly to Japan?") and speaks_of_us("¿Cuándo es nuestro aniversario?")
    assert not speaks_of_self("When do we fly to Japan?") and not speaks_of_us("When do I fly to Japan?")


@pytest.mark.parametrize("text", ["我在格拉斯哥大学的孔子学院学中文，每个星期二晚上上课。", "ich arbeite als tischler.", "nós temos um cão."])
def test_the_persons_own_message_in_another_language_states_something(text):
    assert states_something(text)
