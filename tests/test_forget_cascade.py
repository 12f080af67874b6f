"""The cascade beyond the memory itself: derived summaries rebuilt at once (and never left
``resolving``), a resolving memory never retrieved, the old wording of an edited memory
forgotten on request. Real store (encrypted); the retrieval checks use the REAL MiniLM."""

from __future__ import annotations

import pytest

from assistant.memory.store.archive.context import ArchivedMessage
from assistant.memory.capture.capturer import Capturer
from assistant.memory.capture.commands import keyword_search
from assistant.memory.errors import NotFound
from assistant.memory.records import Kind, LinkType, Status
from assistant.config import load_settings


@pytest.fixture
def store(keepsake_home, converted_embedder_path, services):
    st = services.open_store(with_embedder=True)
    yield st
    st.close()


def _lessons(store):
    """Two messages in two conversations, their episodes, and summaries derived from them."""
    cap = Capturer(store, use_llm=False, settings=load_settings)
    s1, s2 = store.create_session("a").id, store.create_session("b").id
    m1 = store.add_message(s1, "user", "I started learning the cello with Ms Okafor.")
    m2 = store.add_message(s2, "user", "My cello lessons are on Tuesdays.")
    e1, e2 = cap.capture_message(m1.id).episode_id, cap.capture_message(m2.id).episode_id
    both = store.add("User is learning the cello with Ms Okafor. The cello lessons are on Tuesdays.", kind=Kind.EXPERIENCE)
    only1 = store.add("User has a cello teacher called Okafor.", kind=Kind.EXPERIENCE)
    store.link(e1, both, LinkType.EVOLVE_TO)
    store.link(e2, both, LinkType.EVOLVE_TO)
    store.link(e1, only1, LinkType.EVOLVE_TO)
    return {"s1": s1, "m1": m1.id, "e1": e1, "e2": e2, "both": both, "only1": only1}


@pytest.mark.parametrize("how", ["memory", "session"])
def test_a_summary_built_from_a_deleted_message_loses_its_text_and_is_not_retrievable(store, how, services):
    ids = _lessons(store)
    retriever = services.retriever(store)
    assert any("Okafor" in h.memory.text for h in retriever.search("Who teaches me the cello?", k=5))

    if how == "memory":  # the memories the message gave (its episode and its fact), the conversation stays
        from_m1 = [m.id for m in store.list(include_all=True) if any(src.message_id == ids["m1"] for src in m.sources)]
        report = store.delete(from_m1)
        assert store.get_message(ids["m1"]).content == ""
    else:
        report = store.delete_session(ids["s1"])

    assert report.ok and ids["only1"] in report.memory_ids  # built only from it: removed
    assert report.regenerate_ids == (ids["both"],)  # built from it and another: rebuilt at once
    rebuilt = store.get(ids["both"])
    assert rebuilt.text == "The cello lessons are on Tuesdays." and rebuilt.status == Status.ACTIVE
    assert [v.text for v in store.history(ids["both"])] == [rebuilt.text]  # no old version keeps it
    with pytest.raises(NotFound):
        store.get(ids["only1"])
    for query in ("Who teaches me the cello?", "Okafor", "cello teacher"):
        assert not any("okafor" in h.memory.text.lower() for h in retriever.search(query, k=10))
    assert not keyword_search(store, "Okafor")
    assert store.conn.execute("SELECT count(*) FROM memories WHERE status = 'resolving'").fetchone()[0] == 0


def test_a_resolving_memory_is_never_retrieved(store, services):
    mid = store.add("User's violin teacher is Mr Haddad.")
    retriever = services.retriever(store)
    assert [h.memory.id for h in retriever.search("Who is my violin teacher?", k=3)] == [mid]
    store.update(mid, status=Status.RESOLVING, reason="waiting for a decision")
    assert retriever.search("Who is my violin teacher?", k=3) == []
    assert keyword_search(store, "violin teacher") == []
    assert [m.id for m in store.list()] == [mid]  # still listed (the inspector shows it)


def test_forget_the_old_wording_of_an_edited_memory(store):
    s = store.create_session("c").id
    mid = store.add("User's locker code is 4417 at the Alma gym.")
    store.context_archive.append(str(s), [ArchivedMessage(1, "user", "<retrieved_memories>\n- [2024-05-01, #1] User's locker code "
                                                          "is 4417 at the Alma gym.\n</retrieved_memories>\n\nWhat is my code?", "What is my code?")])  # fmt: skip
    store.record_injection("t1", [], session_id=s)
    from assistant.memory.entries import InjectionItem

    store.record_injection("t1", [InjectionItem(mid, 0.9)], session_id=s)
    store.edit(mid, "User's locker code is 9021 at the Alma gym.")
    assert [v.text for v in store.history(mid)][0].startswith("User's locker code is 4417")

    preview = store.purge_versions_preview(mid)
    assert preview.counts["memory_versions_forgotten"] == 1 and preview.memory_ids == ()
    report = store.purge_versions(mid)

    assert report.ok
    assert [v.text for v in store.history(mid)] == ["User's locker code is 9021 at the Alma gym."]
    assert "4417" not in str([a.details for a in store.audit(mid)])
    (row,) = store.context_archive.history(str(s))
    assert "4417" not in row.content and row.raw == "What is my code?"
    assert store.get(mid).text == "User's locker code is 9021 at the Alma gym."
