"""Cross-language glossing (issue 28.6), pure: the bilingual lexicons (package data) and the word
by word English gloss of es/de/fr/pt/zh text; English is never glossed; names pass through."""

from __future__ import annotations

from importlib import resources

import pytest

from assistant.memory.language.gloss import LANGS, english, gloss, known, lexicon
from assistant.memory.language.reading import english_embed, reading


@pytest.mark.parametrize("lang", LANGS)
def test_each_lexicon_is_package_data_with_hundreds_of_everyday_words(lang):
    assert resources.files("assistant.memory.language").joinpath("lexicon", f"{lang}.tsv").is_file()
    assert len(lexicon(lang).forms) >= 1500


@pytest.mark.parametrize("text, want", [
    ("¿Dónde vivo ahora?", "where I live now?"),                       # es: the verb says who
    ("Wo wohne ich?", "where live I?"),                                 # de
    ("Où est-ce que j'habite ?", "where I live?"),                      # fr: "est-ce que" dropped, "j'" elided
    ("Onde eu moro?", "where I live?"),                                 # pt: "eu" + "I live" said once
    ("我住在哪里？", "I live in where?"),                                # zh: greedy longest match, ？ -> ?
    # the second extension: units, places, health words the first lexicons lacked
    ("¿Cuántos kilómetros hay de mi casa al trabajo?", "how many kilometres there is of my house to work?"),
    ("In welchem Ort ist Omas Pflegeheim?", "in which place is grandmother care home?"),
])  # fmt: skip
def test_a_question_is_glossed_word_by_word(text, want):
    assert gloss(text) == want


def test_names_and_numbers_pass_through_as_written():
    assert gloss("Vivo en Gante desde 2019.") == "I live in Gante since 2019."
    assert gloss("Mi hermana Lucía trabaja en Spotify.") == "my sister Lucía works at Spotify."  # "trabaja en": a workplace


def test_multi_word_forms_take_the_longest_match():
    assert gloss("¿De dónde eres?") == "where from you are?"       # "de dónde", not "of" + "where"
    assert gloss("Ich gehe zu Fuß zur Arbeit.").startswith("I go on foot to work")


def test_accents_plurals_and_german_compounds_are_read():
    assert gloss("¿donde vivo?") == "where I live?"                  # typed without the accent
    assert gloss("Mis canciones favoritas") == "my song favourite"  # canción + es, read without the accent
    assert gloss("Was ist mein Lieblingsfilm?") == "what is my favourite film?"
    assert known("Beruf", "de") and known("Hundename", "de") and not known("Andrés", "de")


def test_chinese_pronoun_before_a_relation_is_possessive_and_names_stay_together():
    assert gloss("我妹妹是护士。") == "my younger sister is nurse."
    assert gloss("我住在根特。") == "I live in 根特."


def test_english_is_never_glossed_and_reads_as_itself():
    assert gloss("User lives in Ghent.") is None
    assert english("Where do I live?") == "Where do I live?"
    assert reading("User lives in Ghent.") == "User lives in Ghent."
    assert reading("¿Dónde vivo?") == "where I live?"


def test_an_embedder_wrapped_reads_each_text_in_english_model_independent_fake_embedder():
    seen: list[list[str]] = []
    embed = english_embed(lambda texts: seen.append(list(texts)) or [[0.0]] * len(texts))
    embed(["¿Dónde vivo?", "User lives in Ghent."])
    assert seen == [["where I live?", "User lives in Ghent."]]
    assert english_embed(embed) is embed and english_embed(None) is None  # wrapped once


def test_a_text_is_glossed_only_when_most_of_its_words_are_the_languages():
    assert gloss("User works as a pharmacist.") is None                # "as", "a": Portuguese words, English text
    assert gloss("Mi hermana Lucía Fernández García") == "my sister Lucía Fernández García"  # names left out of the count


@pytest.mark.parametrize("text, want", [
    ("Quem é que me dá aulas de cavaquinho?", "who me teaches ukulele?"),  # "é que" after a question word says nothing
    ("Com quem é que vivo?", "with who I live?"),  # a first-person verb names its subject, as Spanish "vivo" -> "I live"
    ("Quando é que comecei no emprego novo?", "when I started in job new?"),
    ("Eu moro em Lisboa.", "I live in Lisbon."),  # "Eu" and the verb's "I" are read once
])  # fmt: skip
def test_portuguese_questions_read_with_their_subject(text, want):
    assert gloss(text) == want
