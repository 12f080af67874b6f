"""A question said as not remembering (assistant.memory.language.indirect): read by clause
structure into the recall request or direct question the answer pipeline reads."""

from __future__ import annotations

import pytest

from assistant.memory.language.indirect import as_recall


@pytest.mark.parametrize("said, asked", [
    ("Tía Solange wants to visit Mom in hospital and I don't remember which hospital it is.", "Remind me which hospital it is."),
    ("The parents at school asked what telescope the club uses and I drew a blank.", "Remind me what telescope the club uses."),
    ("I need to call Chispa's vet but I've forgotten his name.", "What is Chispa's vet's name?"),  # "his": the one named before
    ("I keep forgetting my boss's surname", "What is my boss's surname?"),
    ("not sure I remember when Noor's birthday is", "Remind me when Noor's birthday is."),
    ("I can't remember if I told you what my girlfriend does for work", "Remind me what my girlfriend does for work."),
    ("My new doctor asked about drug allergies and my mind went totally blank.", "What is my drug allergies?"),
    ("I'm blanking on my mum's birthday", "What is my mum's birthday?"),
    # dev15: someone asked and the person did not know, said in other words than "drew a blank"
    ("my friend asked me what breed Pepper was and I totally blanked", "Remind me what breed Pepper was."),
    ("my accountant is asking what I earned from tuning in 2025 and I don't have the paper here", "Remind me what I earned from tuning in 2025."),
    ("the mortgage broker asked for my current salary and now I'm second-guessing myself", "What is my current salary?"),
    ("mum asked when we're flying out for Christmas and I honestly don't know the date", "Remind me when we're flying out for Christmas."),
    ("the pet insurance form asks how old Biscuit is", "Remind me how old Biscuit is."),  # a form asks: no tail needed
    # a value gone from mind, lost track of, needed by someone; "her" is the one named before
    ("I want to send Callum's fiancée a card but her name has completely gone", "What is Callum's fiancée's name?"),
    ("I need to get Aisha a birthday present and I've lost track of when her birthday is", "Remind me when Aisha's birthday is."),
    ("I'm updating my CV and need my manager's full name for the reference section", "What is my manager's full name?"),
    ("I'm doing my budget and can't remember exactly what my rent is", "Remind me what my rent is."),
    ("I can't remember what Biscuit's vet is called, remind me?", "Remind me what Biscuit's vet is called."),  # a tail asking nothing
])  # fmt: skip
def test_a_question_said_as_not_remembering_is_read_as_a_recall(said, asked):
    assert as_recall(said) == asked


@pytest.mark.parametrize("said", [
    "I forgot to buy milk",  # an errand, not a question
    "I forgot my keys at home",  # left behind: nothing of anyone's unknown
    "I had no idea she was pregnant",  # a clause, no question
    "I think my interview is in September but I can't remember the exact day.",  # "the exact day": of the clause before
    "Remind me where I live.",
    "Mum asked when we are visiting and I said Christmas",  # she was told: nothing unknown
    "my boss asked me to work Saturday and I said yes",
    "I need my glasses",  # no value of the person's asked
    "I need my passport renewed by June",
    "where do I live, do you know?",  # a direct question with a tail: as asked
    "remind me?",
    "I forget - what food do I have to keep away from?",  # a direct question already
    "hello there",
])  # fmt: skip
def test_what_is_no_question_or_already_one_is_left_as_said(said):
    assert as_recall(said) == said


def test_an_indirect_question_gets_the_memory_answer(tmp_path, converted_embedder_path):
    from said_support import answer, said_retriever  # tests/ is on sys.path (rootdir conftest)

    said = [("surgery", "Mom's knee replacement is scheduled for November 5 at Hospital Van Buren in Valparaíso. I'm nervous.", "2026-10-01"),
            ("cat", "Pisco passed away last night in his sleep. Fifteen years with that grumpy orange boy. I'm a mess.", "2026-06-15")]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        a = answer(r, "Tía Solange wants to visit Mom in hospital and I don't remember which hospital it is.")
        assert a is not None and "Van Buren" in a.text, a
        assert answer(r, "I forgot to buy milk") is None  # an errand: no memory answer


def test_a_question_asked_again_asks_what_was_told():
    # dev16: "hey what night's pottery again" had been no question about the person (no "my"): nothing shown
    from assistant.memory.language.indirect import as_recall

    assert as_recall("hey what night's pottery again") == "Remind me what night's pottery."
    assert as_recall("what did krill die of again, can't face scrolling back") == "Remind me what did krill die of."
    assert as_recall("btw what was the ex's name again lol") == "Remind me what was the ex's name."
    assert as_recall("I went to Rome again") == "I went to Rome again"  # a statement
    assert as_recall("What's my brother's name again?") == "What's my brother's name again?"  # asks of the person already
    assert as_recall("why am i learning french again") == "why am i learning french again"  # a reason: the whole message
    assert as_recall("can you say that again?") == "can you say that again?"  # a request, no wh-question


def test_someone_asking_or_a_form_wanting_a_value_the_person_lost():
    # dev16: each had been left as a statement, no memory answer
    from assistant.memory.language.indirect import as_recall

    assert as_recall("the walk-in clinic form asks for drug allergies and my mind's gone blank") == "What is my drug allergies?"
    assert as_recall("the insurance form wants the purchase price of my car and I can't remember the final figure") == \
        "What is the purchase price of my car?"
    # someone asking, no blank told: what the person should know
    assert as_recall("dad's asking which day I'm flying over to Bergen for Christmas") == "Remind me which day I'm flying over to Bergen for Christmas."
    assert as_recall("Tobias keeps asking which evening Gaelic is on now so he can sort his shifts") == "Remind me which evening Gaelic is on now."
    # "she" is the one named before
    assert as_recall("was reminiscing about Krill with Tobias and couldn't remember what colour she was") == "Remind me what colour Krill was."
    # wanting a thing is no question
    assert as_recall("she wants pizza and I forgot") == "she wants pizza and I forgot"
    assert as_recall("I want a new bike and I don't know which") == "I want a new bike and I don't know which"
