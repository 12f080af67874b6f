"""Issue 28, thirteenth session: answer classes the tenth tester's set (dev10, written before any
rule) showed, run through the real capture, store and MiniLM (one module store):

- a name given casually ("adopted a dog!!! 🐶 her name is bolacha") answers "what's my dog's name";
- a name written after "de" ("la orquesta de Caio") is still someone when the memories also write
  them doing something ("Caio plays cello"): the question about them is about the person's life.
"""

from __future__ import annotations

import pytest

from said_support import answer, said_retriever  # noqa: I001 - tests/ is on sys.path (rootdir conftest)

SAID = [
    ("dog", "adopted a dog!!! 🐶 her name is pipoca, shes a 2 yr old mutt from the shelter in matosinhos."),
    ("met", "met someone at a jazz night at a tiny bar called the blue cellar. his name is ruben, hes dutch and plays trombone in a brass band."),
    ("plans", "Cambio de planes: la banda de Ruben tiene gira por Francia en mayo, así que nos vamos a Sevilla en junio."),
]  # fmt: skip


@pytest.fixture(scope="module")
def said(tmp_path_factory, converted_embedder_path):
    with said_retriever(tmp_path_factory.mktemp("dev10") / "m.db", converted_embedder_path, SAID, said_on="2026-11-20") as r:
        yield r


def test_a_name_given_casually_answers_the_pets_name(said):
    got = answer(said, "What's my dog's name?")
    assert got is not None and "Pipoca" in got.text, got and got.text


def test_someone_written_after_de_is_still_someone(said):
    got = answer(said, "What instrument does Ruben play?")
    assert got is not None and "trombone" in got.text, got and got.text
