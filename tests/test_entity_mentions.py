"""A memory's "Mentions" follow its text: an edit drops the entity links the new text no longer
names and links the proper nouns it names now (the inspector showed "Mentions: Ghent" on a memory
edited to drop Ghent). Real SQLCipher store; a hash embedder (mentions do not depend on vectors)."""

from __future__ import annotations

import pytest
from store_fakes import fake_hash_embedder

from assistant.config import paths
from assistant.memory.language.rules import relink_entities
from assistant.memory.store.facade import MemoryStore
from assistant.memory.store.versions import mentions


@pytest.fixture
def store() -> MemoryStore:
    s = MemoryStore(paths().database, embed=fake_hash_embedder)
    yield s
    s.close()


def entity_names(store: MemoryStore) -> set[str]:
    return {r[0] for r in store.conn.execute("SELECT name FROM entities")}


def test_an_edit_that_drops_a_place_drops_its_mention(store):
    mid = store.add_ex("User moved from Ghent to Antwerp in 2024.", entities=["Ghent", "Antwerp"]).id
    m = store.edit(mid, "User moved to antwerp in 2024.")  # Ghent gone; Antwerp kept whatever its case
    assert m.entities == ("Antwerp",)
    assert store.get(mid).entities == ("Antwerp",)
    assert "Ghent" not in entity_names(store)  # nothing else linked it: the entity went too


def test_an_entity_another_memory_still_names_stays(store):
    a = store.add_ex("User's sister lives in Ghent.", entities=["Ghent"]).id
    b = store.add_ex("User studied in Ghent.", entities=["Ghent"]).id
    store.edit(b, "User studied in Leuven.")
    assert store.get(b).entities == () and store.get(a).entities == ("Ghent",)
    assert "Ghent" in entity_names(store)


def test_relinking_adds_the_places_the_new_text_names(store):
    mid = store.add_ex("User lives in Ghent.", entities=["Ghent"]).id
    m = relink_entities(store, store.edit(mid, "User lives in Bruges near the Zwin Nature Park."))
    assert "Ghent" not in m.entities and "Bruges" in m.entities
    assert store.get(mid).entities == m.entities


def test_mentions_are_whole_words_ignoring_case():
    assert mentions("moved from ghent.", "Ghent")
    assert not mentions("a Ghentish accent", "Ghent")
    assert mentions("Ferrari 488 GTB, red", "Ferrari 488 GTB")
