"""Typos in a question, corrected against the words of the person's memories
(assistant.memory.retrieval.spelling), pure and through the real retriever with MiniLM."""

from __future__ import annotations

from assistant.memory.retrieval.spelling import correct

VOCAB = {"allergic": 2, "shellfish": 1, "daughter": 3, "birthday": 1, "lisbon": 1, "gather": 1, "horses": 1}


def test_a_word_one_edit_from_a_memory_word_is_corrected():
    assert correct("what am i alergic to", VOCAB) == "what am i allergic to"
    assert correct("how old is my daugher", VOCAB) == "how old is my daughter"
    assert correct("when is my birtday?", VOCAB) == "when is my birthday?"
    # two letters swapped are one edit too (optimal string alignment)
    assert correct("what grade is freida in", {**VOCAB, "frieda": 4}) == "what grade is frieda in"


def test_known_words_short_words_and_other_first_letters_stay():
    assert correct("Who is my father?", VOCAB) == "Who is my father?"  # an English word, though "gather" is one edit away
    assert correct("my horse", VOCAB) == "my horse"  # five letters: too short to tell a typo
    assert correct("what am i xllergic to", VOCAB) == "what am i xllergic to"  # typos keep the first letter
    assert correct("anything", {}) == "anything"


def test_a_typo_finds_its_memory_through_the_retriever(tmp_path, converted_embedder_path):
    from datetime import UTC, datetime

    from assistant.engine.embedder import LlamaEmbedder
    from assistant.memory.records import Kind, Source
    from assistant.memory.retrieval import answer as A
    from assistant.memory.retrieval.retriever import Retriever
    from assistant.memory.store.facade import MemoryStore

    embedder = LlamaEmbedder(converted_embedder_path, n_threads=1)
    store = MemoryStore(tmp_path / "m.db", key="7e" * 32, embed=embedder.embed)
    try:
        day = datetime(2025, 3, 1, tzinfo=UTC)
        for text in ("User is allergic to shellfish.", "User lives in Ghent.", "User's favourite colour is green."):
            store.add(text, kind=Kind.FACT, valid_at=day, actor="user", source=Source(extractor="test", speaker="user", observed_at=day))
        retriever = Retriever(store, embedder)
        q = "what am i alergic to"
        found = A.choose(q, retriever.search(q, k=A.POOL, include_rejected=True), retriever.matcher)
        assert found is not None and "shellfish" in found.text
    finally:
        store.close()
        embedder.close()


def test_a_typo_kept_in_a_memory_is_read_into_the_question():
    # a new user typed "im alergic to penicilin": the question spelled right is read as the memory spells it
    vocab = {"alergic": 1, "penicilin": 1, "insulin": 2, "dentists": 1}
    assert correct("what am i allergic to", vocab) == "what am i alergic to"
    assert correct("when is my dentist appointment", vocab) == "when is my dentist appointment"  # an inflection, no typo
    assert correct("what am i allergic to", {"allergic": 1}) == "what am i allergic to"


def test_a_typo_no_memory_word_is_near_is_read_as_the_one_english_word_near_it():
    # "wats my sistrs husbands name": no memory writes "sisters", the English word one edit away is read
    assert correct("wats my sistrs husbands name", {"sister": 3, "husband": 2}).startswith("what's my sisters")
    assert correct("my lesson is", {"zzz": 1}) == "my lesson is"  # a plural in the word list is no fix of its singular


def test_a_regular_form_of_an_english_word_is_no_typo_either_way():
    # "living" had been read as the memory's "loving" ("Teo's loving the new kitchen"): a form of "love" is no typo
    assert correct("so where am I actually living these days?", {"loving": 2}) == "so where am I actually living these days?"
    assert correct("What does Fabrice's wife do for a living?", {"loving": 1}).endswith("for a living?")


def test_a_short_word_typed_wrong_is_corrected_when_the_embedder_knows_it_is_no_word(converted_embedder_path):
    # dev16 and the typo'd dev sets: "how much is my rnet", "whos my bos at work" had found nothing (words under six
    # letters were never corrected); the REAL MiniLM tells a word it knows whole ("movie", "plot") from a slip
    from assistant.engine.embedder import LlamaEmbedder
    from assistant.memory.retrieval.spelling import single_token

    embedder = LlamaEmbedder(converted_embedder_path, n_threads=1)
    try:
        is_word = single_token(embedder)
        vocab = {"rent": 3, "boss": 2, "drive": 2, "move": 1, "pilot": 1, "face": 1, "noon": 1}
        assert correct("how much is my rnet", vocab, is_word=is_word) == "how much is my rent"  # two letters swapped
        assert correct("whos my bos at work", vocab, is_word=is_word) == "who's my boss at work"  # a letter left out
        assert correct("wat car do i drve now", vocab, is_word=is_word) == "what car do i drive now"
        assert correct("How muhc is it", vocab, is_word=is_word) == "How much is it"  # no memory word: the English one
        # words the embedder knows whole stay, though one edit from a memory word ("plot"/"pilot", "movie"/"move")
        assert correct("where is our allotment plot", vocab, is_word=is_word) == "where is our allotment plot"
        assert correct("my favourite movie", vocab, is_word=is_word) == "my favourite movie"
        # a chat word, a name in capitals, a key struck far from the letter meant stay
        assert correct("fave film", vocab, is_word=is_word) == "fave film"
        assert correct("what does Mila do", {"mile": 2}, is_word=is_word) == "what does Mila do"
        assert correct("who is noor", vocab, is_word=is_word) == "who is noor"  # r and n are apart on the keyboard
        assert correct("how much is my rnet", vocab) == "how much is my rnet"  # no embedder to ask: short words stay
    finally:
        embedder.close()
