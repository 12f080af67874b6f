"""What a question asks about, read from its structure (pure functions, no model): the thing
"my X" or "<Name>'s X" names, a modifier that moves it in time, a hyphenated relation, and the
questions a statement about a named person answers."""

from __future__ import annotations

import pytest

from assistant.memory.retrieval.answerable import asked
from assistant.memory.retrieval.forms import named_forms
from assistant.memory.retrieval.terms import focus, same_word


@pytest.mark.parametrize(
    "question, required",
    [
        ("What's my dog called?", ("dog",)),
        ("What's my car's licence plate?", ("car", "licence", "plate")),
        ("What was my first car?", ("first", "car")),  # today's car does not answer it
        ("Who was my previous boss?", ("previous", "boss")),
        ("What's the name of Ana's dentist?", ("dentist",)),  # the name owns the thing asked
        ("What's Tom's middle name?", ("middle",)),
        ("What's my mother-in-law's name?", ("mother-in-law",)),
        ("What's the weather like?", ()),  # "What's" is a contraction, not an owner
        ("Where does Felix live?", ()),
    ],
)
def test_focus_is_the_thing_owned(question, required):
    assert focus(question)[0] == required


def test_a_hyphenated_relation_is_not_its_first_part():
    assert asked("What's my mother-in-law's name?").relations == ("mother-in-law",)
    assert asked("What's my mother's name?").relations == ("mother",)
    assert not same_word("mother-in-law", "mother") and same_word("mother-in-law", "mother-in-law")
    # an irregular past is its verb (a closed class): "Where did I buy ...?" / "... I bought off an old guy in Braga"
    assert same_word("buy", "bought") and same_word("met", "meet") and not same_word("buy", "brought")


@pytest.mark.parametrize(
    "text, forms",
    [
        ("Mila is 7.", ["How old is Mila?"]),
        ("Mila is seven years old.", ["How old is Mila?"]),
        ("Ana is in Lyon.", ["Where is Ana?"]),
        ("Mila is happy.", []),  # says nothing a "What does Mila do?" asks
        ("Olive has a brother.", ["What does Olive have?"]),
        ("Kasper repairs bicycles.", ["What does Kasper do?", "What does Kasper repair?"]),
    ],
)
def test_named_forms_follow_the_verb(text, forms):
    assert named_forms(text) == forms


def test_a_breed_names_the_animal():
    from assistant.memory.retrieval.answerable import about_relation, relation_names

    assert about_relation("User has a beagle named Pretzel.", "dog", episode=False)
    assert not about_relation("User has a grey cat named Olive.", "dog", episode=False)
    assert relation_names("We have a beagle called Pretzel.", "dog") == {"pretzel"}


@pytest.mark.parametrize(
    "question, kind",
    [
        ("What's my dog called?", "name"),
        ("What's Tom's middle name?", "name"),
        ("How old is Mila?", "number"),
        ("What year was I born?", "year"),  # a four-digit year, not "March 9th"
        ("When is my mum's birthday?", "when"),
        ("Which day is my pottery class?", "when"),
        ("Who is Joost?", None),  # asks who he is to the person
        ("Who is my physiotherapist?", "name"),  # asks whose name fills the role
        ("who's our landlord", "name"),
        ("When do I need my glasses?", None),  # may be an occasion
        ("Where do I live?", None),
    ],
)
def test_answer_type_follows_the_question_word(question, kind):
    from assistant.memory.retrieval.questions import answer_type

    assert answer_type(question) == kind


def test_a_memory_holds_the_kind_of_value_asked():
    from assistant.memory.retrieval.answer import holds

    assert not holds("name", "User's son is Jonas.", "What's Jonas's middle name?")  # the only name is asked about
    assert holds("name", "User has a beagle named Pretzel.", "What's my dog called?")
    assert holds("name", "User takes cetirizine every morning.", "Tell me the name of my allergy medication.")
    # a verb or adverb form names nothing: the choir's name is in another memory
    assert not holds("name", "User has joined a choir.", "What's the name of my choir?")
    assert not holds("name", "User: physio finally cleared me.", "Who is my physiotherapist?")
    assert holds("name", "User's choir is called Coro da Ribeira.", "What's the name of my choir?")
    assert holds("number", "Radiohead is User's favourite band, User has seen them live twice.", "How many times have I seen Radiohead?")
    assert not holds("number", "User's daughter is Mila.", "How old is Mila?")
    assert holds("when", "User's pottery class is on Thursday evenings.", "Which day is my pottery class?")
    assert holds("when", "User is taking French lessons on Thursdays, online.", "What day do I have French?")  # a plural weekday
    assert holds(None, "anything", "Who is Joost?")
    assert holds("year", "User was born in 1987.", "What year was I born?")
    # an amount is no date's number; a town asked needs a place named; a named one's birthday is said of them (eighth set)
    assert not holds("number", "I said yes to Madeira Cabos — last day there is May 29 and I start on June 15.", "How much do I earn at Madeira Cabos?")
    assert holds("number", "I earn 2,400 a month at Madeira Cabos.", "How much do I earn at Madeira Cabos?")
    assert not holds(None, "Mum's birthday is April 23rd, she turns 66.", "Which city does my mum live in?")
    assert holds(None, "Mum lives in Lyon.", "Which city does my mum live in?")
    assert holds(None, "我2014到2017年住在静安区。", "Which district of Shanghai did I live in?")
    assert not holds("when", "It's my birthday on 9 July and Leonor called.", "When's Nilton's birthday?")
    assert holds("when", "Leonor's birthday is the 23rd of May.", "When's Leonor's birthday?")
    assert not holds("year", "User's birthday is March 9th.", "What year was I born?")  # a date, but no year
    # "When is ...?" asks a time; a capitalised name is none
    assert not holds("when", "Mum's name is Morag, she still lives in Stornoway.", "When is my mum's birthday?")
    assert holds("when", "Arjun's birthday is the 2nd of August.", "When is Arjun's birthday?")


@pytest.mark.parametrize("text, question, held", [
    # a duration, an amount, a frequency or an ordinal is no age (answers_dev5..7: each had been shown as one)
    ("User's household came from the rescue in Toruń, Kacper drove 2.5h each way to get Zefir.", "How old is Kacper?", False),
    ("Matjes swallowed a bit of rubber glove, the bill was 310 euros.", "How old is Matjes?", False),
    ("User has to give Matjes drops twice a day for 10 days.", "How old is Matjes?", False),
    ("Zora refused to come back to the glove for twenty good minutes.", "How old is Zora?", False),
    ("Leonor's birthday is the 23rd of May, not the 28th.", "How old is Leonor?", False),
    # ages as people say them stay
    ("Our daughter Inés has four years.", "How old is Inés?", True),  # "Nuestra hija Inés tiene cuatro años." read in English
    ("My birthday is the 14th of March. 42 this year, don't remind me.", "How old am I turning this year?", True),
    ("Frieda is 9.", "How old is Frieda?", True),
    ("Our baby Noa is 3 months old.", "How old is Noa?", True),
    # a number in a clause about someone else is not the age of the one asked
    ("My big sister Leonor is a midwife in Porto, and her birthday is in May, which I have managed to forget two years running.",
     "How old is my sister Leonor?", False),
    ("My sister Leonor is a midwife in Porto and she turns 41 in May.", "How old is my sister Leonor?", True),
])  # fmt: skip
def test_an_age_is_a_number_said_of_the_one_asked(text, question, held):
    from assistant.memory.retrieval.answer import holds

    assert holds("number", text, question) is held


def test_a_breed_asked_needs_a_breed_said():
    from assistant.memory.retrieval.answer import holds
    from assistant.memory.retrieval.questions import answer_type

    assert answer_type("What breed is Knopf?") == "breed" and answer_type("What kind of dog is Pilot?") == "breed"
    assert not holds("breed", "Knopf has already eaten one of Teo's slippers out of protest.", "What breed is Knopf?")
    assert holds("breed", "User has a beagle named Pretzel.", "What breed is Pretzel?")
    assert holds("breed", "Forgot to mention Tattie, our ginger tabby cat.", "What breed is Tattie?")


def test_a_language_is_no_one_and_a_glossed_job_may_say_where():
    from assistant.memory.retrieval.answerable import question_names
    from assistant.memory.retrieval.job_said import says_job_of

    # "my Mandarin lesson": no one a memory must name (the lesson is written in Chinese: 每个星期三晚上八点上课)
    assert question_names("remind me which evening my Mandarin lesson is") == ()
    assert question_names("What does my Chinese teacher Wang do?") == ("wang",)
    # "o Rui, que é maquinista do metro do Porto" read in English: the job, then where
    assert says_job_of("rui", "User: Rui, what is train driver of metro of Porto.")
    assert not says_job_of("rui", "User: Leonor came for Easter with Rui and the twins.")


def test_a_name_of_a_kind_is_not_the_persons_name():
    from assistant.memory.retrieval.questions import qualified_name

    assert qualified_name("remind me what my Chinese name is") and qualified_name("What's my nickname?")
    assert not qualified_name("What's my name?") and not qualified_name("What's my full name?")


def test_a_place_of_several_words_is_a_value_not_a_name_only():
    from assistant.memory.retrieval.held import names_only

    # "Cape Verde" after "from" is where Dad is from, not two more names of people (an eighth set's "where is my dad from?")
    assert not names_only("User: Dad's from Cape Verde and Mum's Swiss.", "where is my dad from?", {"dad": "father"})
    assert names_only("User's older brother is Rafael.", "What does my brother do?", {"rafael": "brother"})


def test_a_role_asked_who_is_worded_with_a_name_after_it():
    from assistant.memory.retrieval.held import names_role

    text = "tore the meniscus in my left knee bouldering last week 🙄 the physio, Rui Matos, says no climbing for 8 weeks"
    assert names_role(text, "Who is my physiotherapist?", ("physiotherapist",))
    assert not names_role("the physio says no climbing for 8 weeks", "Who is my physiotherapist?", ("physiotherapist",))  # no name
    assert not names_role(text, "What did my physiotherapist say?", ("physiotherapist",))  # not asking who
