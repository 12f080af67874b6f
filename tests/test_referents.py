"""Whom "she" or "he" stands for among several names (assistant.memory.language.referents), and
what capture makes of it. Pure rules, no model."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from assistant.memory.language.referents import one_referent
from assistant.memory.language.rules import extract
from assistant.memory.language.statements import classify

OBS = datetime(2026, 12, 6, 12, 0, tzinfo=timezone.utc)


def facts(text: str) -> list[str]:
    return [c.text for c in extract(" ".join(u.text for u in classify(text).statements), OBS)]


@pytest.mark.parametrize("names, sentence, want", [
    (["Tilly", "Biscuit"], "we have a daughter called Tilly, she's 6, and a beagle named Biscuit", "Tilly"),
    (["Tom", "Ana"], "My brother Tom and my sister Ana visited; she brought cake.", "Ana"),  # the nearest word decides
    (["Tom", "Ana"], "My brother Tom and my sister Ana visited; he brought cake.", "Tom"),
    (["Ana", "Eva"], "My sister Ana and my sister Eva came; she brought cake.", None),  # two of one gender: no guess
    (["Tom", "Ana"], "Tom and Ana came; she brought cake.", None),  # no gendered word: no guess
    (["Tom", "Ana"], "My brother Tom and my sister Ana came; he and she cooked.", None),  # both pronouns
    (["Ana"], "Ana came.", "Ana"),
])  # fmt: skip
def test_the_one_a_gendered_word_names_is_the_referent(names, sentence, want):
    assert one_referent(names, sentence) == want


def test_capture_resolves_she_to_the_daughter_not_the_dog():
    got = facts("we have a daughter called Tilly, she's 6 and obsessed with dinosaurs, and a beagle named Biscuit who eats everything")
    assert "Tilly's obsessed with dinosaurs." in got and "User has a beagle named Biscuit." in got
    assert not any("household" in f for f in got), got  # the shared subject after "Tilly's 6" is Tilly, not "we"
