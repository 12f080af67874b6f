"""Answer classes found on the eleventh answers set (tests/data/answers_dev11.json, written by a
helper before any rule). Pure, no model."""

from __future__ import annotations

from assistant.memory.retrieval.held import names_role
from assistant.memory.retrieval.terms import focus


def test_a_role_named_after_a_title_typed_fast_answers_who_it_is():
    q = "I keep forgetting my physio's name, who is it?"
    required = focus(q)[0]
    assert required == ("physio",)
    assert names_role("my physio dr nadeau says my wrist is way better.", q, required)
    assert names_role("the physio, Rui Matos, says no climbing for 8 weeks", "Who is my physio?", ("physio",))
    assert not names_role("my physio says my wrist is way better.", q, required)  # no name after the role
    assert not names_role("my physio dr nadeau says my wrist is way better.", "What did my physio say about climbing?", ("physio",))


def test_a_search_knows_the_names_given_to_the_asked_relation_from_all_of_memory(tmp_path, converted_embedder_path):
    # dev12: "What does my partner do for work?" with "My boyfriend Thiago ..." said months before
    # "Thiago works as a physiotherapist.": the naming memory was not among the hits, so nothing
    # said the physiotherapist was the partner. The search carries the names, and a view in
    # English (another language among the hits) keeps them.
    from said_support import said_retriever  # tests/ is on sys.path (rootdir conftest)

    from assistant.memory.retrieval.crosslang import english_view

    said = ["My boyfriend Thiago is Brazilian, from Curitiba.", "Thiago works as a physiotherapist.",
            "Eu e o Thiago vamos a Lisboa no dia 14 de maio."]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        hits = r.search("What does my partner do for work?", k=10, include_rejected=True)
        assert hits.aliases == {"thiago": "partner"}
        view = english_view("What does my partner do for work?", hits)
        assert view is not None and view[1].aliases == {"thiago": "partner"}
        assert r.search("What's my favourite colour?", k=10, include_rejected=True).aliases == {}  # no relation asked


def test_a_favourite_asked_in_other_words_is_named_by_meaning(tmp_path, converted_embedder_path):
    # dev12: "What's my favourite novel?" had gated out "My favourite book is ..." (no word of the
    # question named it); the embedder reads "favourite novel" as "favourite book" (MiniLM 0.93),
    # not "favourite film" as "favourite book" (0.75)
    from said_support import said_retriever  # tests/ is on sys.path (rootdir conftest)

    from assistant.memory.retrieval.gates import favourite_alike

    said = ["My favourite book is One Hundred Years of Solitude; I reread it every couple of years.",
            "My favourite dish is my grandmother's arroz al horno."]  # fmt: skip
    with said_retriever(tmp_path / "m.db", converted_embedder_path, said) as r:
        assert favourite_alike(said[0], ("novel",), r.embed_query)
        assert not favourite_alike(said[0], ("film",), r.embed_query)
        assert not favourite_alike(said[0], ("novel",), None)  # no embedder: words only
        why = {h.memory.text: h.why_not for h in r.search("What's my favourite novel?", k=10, include_rejected=True)}
        assert not why.get(said[0], "").startswith("does not name the favourite"), why
        why = {h.memory.text: h.why_not for h in r.search("What's my favourite film?", k=10, include_rejected=True)}
        assert why.get(said[0], "does not name").startswith("does not name the favourite"), why


def test_a_surname_from_the_full_name_and_a_professionals_name_from_their_title():
    from assistant.memory.retrieval.held import gives_name, holds

    # dev12: "my surname" is in the person's full name; "What's my dentist's name?" in "with Dr. Bakker"
    assert holds("surname", "I'm Marisol Vidal Keller, but everyone just calls me Mari.", "Remind me what my surname is.")
    assert not holds("surname", "I'm Mari, and I live in Rotterdam.", "Remind me what my surname is.")  # one name: no surname
    assert gives_name("I've got a dentist appointment on the 12th of April with Dr. Bakker.", ["dentist"])
    assert not gives_name("I've got a dentist appointment on the 12th of April.", ["dentist"])
    assert not gives_name("My sister had a check-up with Dr. Bakker.", ["sister"])  # a titled name is no family name


def test_a_mate_is_a_friend():
    from assistant.memory.retrieval.answerable import asked

    assert asked("I forget what my best mate does for work.").relations == ("friend",)


def test_the_thing_of_a_relation_asked_by_name_must_be_spoken_of():
    from assistant.memory.retrieval.held import says_possessed
    from assistant.memory.retrieval.questions import possessed
    from assistant.memory.retrieval.terms import words

    # dev12: "What is my brother's dog called?" had been answered "User's younger brother is Pablo."
    assert possessed("What is my brother's dog called?") == "dog"
    assert possessed("what is the name of the dog of my brother?") == "dog"  # another language read in English
    assert possessed("What's my mum's name?") is None
    text = "User's younger brother is Pablo."
    assert not says_possessed("dog", text, words(text))
    text = "Pablo has a beagle called Toby and a dog bed in every room."
    assert says_possessed("dog", text, words(text))
    assert says_possessed("husband", "my sister Fenna and her fiancé Pieter", words("my sister Fenna and her fiancé Pieter"))  # a word of the relation
