"""The text matching of the Forgetter (pure functions, no I/O): normalisation at any length and
with any whitespace, spans mapped back to the original text, sentence removal that reads
naturally, and which sentence of a message carries an extracted fact."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assistant.memory.language import match


@given(st.text(alphabet=st.sampled_from(list("ab Z.\n\t  x1'")), max_size=60))
def test_the_ascii_fast_path_is_the_same_normalisation(text):
    norm, offsets = match.norm_map(text)
    slow, idx = match.fold_map(text)  # the definition, character by character
    assert norm == slow and [offsets[i] for i in range(len(norm))] == idx


def test_a_text_is_found_after_case_and_whitespace_normalisation_at_any_length():
    text = "Next trip:\n  BERLIN.  Later, berlins and Berliner."
    assert [text[s:e] for s, e in match.find_spans(text, "berlin")] == ["BERLIN"]  # word boundaries: not "berlins"
    assert match.find_spans("My  code\nis 4417", "code is 4417") == [(4, 16)]
    assert match.find_spans("a’b", "a'b") == [(0, 3)]  # typographic apostrophe
    assert match.find_spans("abc", "") == []


def test_removing_a_sentence_keeps_the_rest_readable():
    text = "Hi, I'm Dana. I live in Porto and work as a nurse. My dog is called Miso."
    spans = match.supporting_sentences(text, "User has a dog named Miso.")
    assert [text[s:e] for s, e in spans] == ["My dog is called Miso."]
    assert match.remove_spans(text, spans) == "Hi, I'm Dana. I live in Porto and work as a nurse."
    assert match.remove_spans("One.\nTwo. Three.", [(5, 9)]) == "One.\nThree."


def test_support_counts_content_words_and_names():
    # "Moved to Berlin recently": stems {berlin, recent} + identifier {berlin}; "Berlin." holds
    # berlin twice over: (1 + 1) / (2 + 1) = 0.67
    assert round(match.support("Berlin.", "Moved to Berlin recently"), 2) == 0.67
    assert match.support("I go to the gym on Mondays.", "User's locker code is 4417") == 0.0
    assert match.supporting_sentences("Where to? Berlin. Later.", "Moved to Berlin recently") == [(10, 17)]


def test_identifiers_are_names_and_codes_not_sentence_starts_or_the_person():
    assert match.identifiers("Hi, I'm Dana. My dog is called Miso. The code is 4417.") == {"dana", "miso", "4417"}
    assert match.names_in(["Miso's bowl", "nothing"], {"miso", "dana"}) == {"miso"}


def test_a_reply_names_a_forgotten_name_also_when_the_model_cut_it_short_or_misspelt_it():
    names = {"zqrecanehoqu"}  # 12 letters
    # the reply hit its token limit inside the name: 11 letters, a prefix, 11 >= 0.7 * 12 = 8.4
    assert match.mentions("Remember that my neighbour is called Zqrecanehoq", set(), names, near=True)
    assert match.mentions("Your neighbour is Zqrecanehoqa.", set(), names, near=True)  # 1 edit: 1 - 1/12 = 0.92
    assert not match.mentions("Remember that my neighbour is called Zqrecanehoq", set(), names)  # exact words only
    assert not match.mentions("Zqre is a prefix too short: 4 < 8.4", set(), names, near=True)
    assert not match.near_name("anne", "anna") and not match.near_name("annabel", "anna")  # names under 6 letters: exact
    assert match.near_name("christoph", "christopher") and not match.near_name("christian", "christopher")
