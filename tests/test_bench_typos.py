"""The typed-fast variant of an answers set (``keepsake bench answers --typos``): one slip per
English question, the same on every run; other languages and general questions untouched. Pure."""

from __future__ import annotations

from rapidfuzz.distance import OSA

from assistant.bench.typos import typed, with_typos


def test_one_slip_in_one_word_the_same_every_time():
    q = "How much is my rent now?"
    assert typed(q) == typed(q) != q
    assert OSA.distance(typed(q), q) == 1  # one letter left out, doubled, or two swapped
    assert typed(q).split()[0][0] == "H"  # a first letter is never touched
    assert typed("Who is he?") == "Who is he?"  # no word of four letters: as asked


def test_only_english_questions_and_never_said_ones_change():
    data = {"questions": [{"q": "Which city do I live in now?", "lang": "en"}, {"q": "¿Dónde vivo ahora?", "lang": "es"}],
            "never_said": [{"q": "What's my blood type?", "lang": "en"}], "general": [{"q": "What is 17% of 1,250?"}]}
    out = with_typos(data)
    assert out["questions"][0]["q"] != data["questions"][0]["q"] and out["questions"][1]["q"] == "¿Dónde vivo ahora?"
    assert out["never_said"][0]["q"] != "What's my blood type?" and out["general"] == data["general"]
    assert data["questions"][0]["q"] == "Which city do I live in now?"  # the set itself is left as it was
