"""Issue 28: the classes a third set written apart from the rules (``bench answers --set``, a
Glasgow nurse) showed on its first run, through the real capture, store and MiniLM:

- a general question that shares a word with a memory ("Who discovered penicillin?" with "I'm
  allergic to penicillin.") gets no memory answer; a question about the person's household, a
  family word, a favourite or one of their own people still does (:func:`aliases.about_life`);
- "we've got a border collie called Bracken" says the person has a dog;
- "Favourite film ever is Local Hero." and "The twins, Isla and Rory, are 8." are about the
  person (their "my" is left out);
- a message naming a relation keeps every memory that names it in the hits ("What does my
  husband do?" with "My husband Arjun teaches physics ..."), "wee" is a modifier;
- among memories about one person, the one whose own words answer wins over one that only has
  forms about that person ("How old is Jonas?": answer.OWN_WEIGHT).
"""

from __future__ import annotations

import pytest

from assistant.memory.language.statements import Act, classify
from said_support import answer, said_retriever  # noqa: I001 - tests/ is on sys.path (rootdir conftest)

SAID = [
    ("allergy", "Important: I'm allergic to penicillin."),
    ("home", "I live in Glasgow, in Partick."),
    ("dog", "We've got a border collie called Bracken."),
    ("film", "Favourite film ever is Local Hero. The beach scenes get me every single time."),
    ("twins", "The twins, Isla and Rory, are 8."),
    ("son", "Jonas, our son, turned 4 in February."),
    ("daycare", "Jonas goes to a daycare called Little Sprouts, it's two blocks from us."),
    ("partner", "My husband Arjun teaches physics at Hillhead High School. He's been there since 2014."),
    ("sister", "My wee sister Eilidh is a family law solicitor in Edinburgh."),
    ("job", "I'm an intensive care nurse, a charge nurse actually, mostly on nights."),
    ("allotment", "We finally got an allotment at Hamiltonhill after three years on the waiting list."),
    ("cat", "Forgot to mention Tattie, our ginger tabby cat. He basically runs the house."),
]  # fmt: skip


@pytest.fixture(scope="module")
def glasgow(tmp_path_factory, converted_embedder_path):
    with said_retriever(tmp_path_factory.mktemp("dev3") / "m.db", converted_embedder_path, SAID, said_on="2025-04-02", key="6f" * 32) as retriever:
        yield retriever


@pytest.mark.parametrize("question", [
    "Who discovered penicillin?", "Which river runs through Glasgow?",
    "How do you keep a border collie from getting bored indoors?",
])  # fmt: skip
def test_a_general_question_sharing_a_word_with_a_memory_gets_no_memory_answer(glasgow, question):
    assert answer(glasgow, question) is None


@pytest.mark.parametrize("question, must", [
    ("Am I allergic to any medicine?", "penicillin"),  # speaks of the person
    ("What's my dog's name?", "Bracken"),  # "we've got a border collie"
    ("favorite film?", "Local Hero"),  # a favourite, "my" left out in question and memory
    ("How old are the twins?", "8"),  # a family word without "my"
    ("How old is Jonas?", "4"),  # one of their people; its own words beat the daycare's forms
    # the message that names him also says what he does: that memory keeps its place in the hits
    # beside "User's husband is Arjun." (gates.one_per_message keep), and "He" is no name of the cat
    ("What does my husband do?", "physics"),
    ("What does my sister do?", "solicitor"),  # "wee sister" only says who she is
    ("Where is our allotment?", "Hamiltonhill"),  # the one message wording "allotment" (UNIQUE_COSINE)
    ("What do I do for a living?", "nurse"),  # "User is an ...": a job by its structure, no slot captured
])  # fmt: skip
def test_a_question_about_the_persons_life_is_still_answered(glasgow, question, must):
    a = answer(glasgow, question)
    assert a is not None and must in a.text, (question, a and a.text)


def test_a_job_said_as_i_am_a_does_not_answer_another_slot(glasgow):
    a = answer(glasgow, "Who is my employer?")
    assert a is None or "nurse" not in a.text


def test_a_left_out_my_is_still_about_the_person():
    # "mum is 70" typed in lower case opening a clause is the person's mum (twelfth session, dev9: "mum (Gulnara) lives in Taraz")
    for text in ("Favourite film ever is Local Hero.", "Fave band is Runrig.", "The twins, Isla and Rory, are 8.", "mum is 70"):
        assert classify(text).units[0].act is Act.STATEMENT, text
    for text in ("Favorites are hard to pick.", "Paris is the capital of France.", "all the mums at school are 40"):
        assert classify(text).units[0].act is Act.OTHER, text
