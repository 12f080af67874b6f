"""The inspector's item model, tested without widgets: QAbstractItemModelTester on the table model
and on the sorting proxy, lazy paging over list_memories(limit, offset), stale pages dropped."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QModelIndex, Qt  # noqa: E402
from PySide6.QtTest import QAbstractItemModelTester  # noqa: E402

from ui.inspector.cells import COLUMN  # noqa: E402
from ui.inspector.query import FACT_KINDS, MemoryQuery  # noqa: E402
from ui.inspector.memory_model import (  # noqa: E402
    MEMORY_ID_ROLE,
    SORT_ROLE,
    MemoryProxy,
    MemoryTableModel,
    SyncLoader,
    store_fetch,
)

UTC = timezone.utc
Fatal = QAbstractItemModelTester.FailureReportingMode.Fatal


@pytest.fixture
def store(services):
    s = services.open_store(with_embedder=False)
    kinds = ["fact", "profile", "episode", "experience"]
    for i in range(530):
        s.add(f"Sample memory {i:03d} about topic {i % 7}", kind=kinds[i % 4], valid_at=datetime(2024, 1, 1 + i % 28, tzinfo=UTC))
    yield s
    s.close()


def _drain(qtbot, model: MemoryTableModel) -> None:
    """Fetch every page (pages arrive on the next event-loop turn, like the async loader)."""
    for _ in range(100):
        qtbot.waitUntil(lambda: not model.loading, timeout=5000)
        if not model.canFetchMore(QModelIndex()):
            return
        model.fetchMore(QModelIndex())
    raise AssertionError("paging never ended")


def test_model_passes_the_item_model_tester_while_paging_filtering_and_removing(qtbot, store):
    model = MemoryTableModel(SyncLoader(store_fetch(store)), page_size=100)
    tester = QAbstractItemModelTester(model, Fatal)
    model.set_query(MemoryQuery())
    qtbot.waitUntil(lambda: model.rowCount() >= 100, timeout=5000)
    _drain(qtbot, model)
    # one row per fact: the default view leaves the 132 episodes (i % 4 == 2) to "Your messages"; 530 - 132 = 398
    assert model.rowCount() == 398 == store.count(kind=FACT_KINDS)
    assert len(set(model.ids())) == 398  # no page twice
    model.set_query(MemoryQuery(kind="episode"))
    _drain(qtbot, model)
    assert model.rowCount() == 132
    model.set_query(MemoryQuery(kind="profile"))
    _drain(qtbot, model)
    assert model.rowCount() == store.count(kind="profile")
    assert all(model.memory_at(i).kind.value == "profile" for i in range(model.rowCount()))
    model.remove_ids(model.ids()[:3])
    assert model.rowCount() == store.count(kind="profile") - 3
    model.set_results(store.list(limit=5), {1: 0.5})
    assert model.rowCount() == 5 and not model.canFetchMore(QModelIndex())
    del tester


def test_proxy_sorts_loaded_rows_and_passes_the_tester(qtbot, store):
    model = MemoryTableModel(SyncLoader(store_fetch(store)), page_size=200)
    proxy = MemoryProxy()
    proxy.setSourceModel(model)
    QAbstractItemModelTester(model, Fatal)
    QAbstractItemModelTester(proxy, Fatal)
    model.set_query(MemoryQuery())
    _drain(qtbot, model)
    proxy.sort(COLUMN["text"], Qt.SortOrder.AscendingOrder)
    texts = [proxy.index(r, COLUMN["text"]).data(SORT_ROLE) for r in range(proxy.rowCount())]
    assert texts == sorted(texts)
    proxy.sort(COLUMN["valid_from"], Qt.SortOrder.DescendingOrder)
    first = proxy.index(0, COLUMN["valid_from"]).data(Qt.ItemDataRole.DisplayRole)
    assert first == "2024-01-28"
    model.set_query(MemoryQuery(text="topic 3"))  # substring filter in the store, sorted by the proxy
    _drain(qtbot, model)
    assert proxy.rowCount() == store.count(text="topic 3", kind=FACT_KINDS) > 0  # episodes: under "Your messages"


def test_lazy_fetch_reads_only_what_is_needed_and_drops_stale_pages(qtbot, store):
    calls: list[tuple[MemoryQuery, int, int]] = []

    def fetch(q, offset, limit):
        calls.append((q, offset, limit))
        return store.list_memories(**q.kwargs(), limit=limit, offset=offset)

    model = MemoryTableModel(SyncLoader(fetch), page_size=50)
    model.set_query(MemoryQuery())
    qtbot.waitUntil(lambda: model.rowCount() == 50, timeout=5000)
    assert [(o, n) for _, o, n in calls] == [(0, 50)]
    assert model.canFetchMore(QModelIndex())
    # a page requested for the old query arrives after the filter changed: dropped
    old_generation = model._generation
    model.set_query(MemoryQuery(kind="fact"))
    qtbot.waitUntil(lambda: model.rowCount() == 50, timeout=5000)
    model.receive_page(old_generation, 50, store.list(limit=50, offset=50), 50)
    assert all(model.memory_at(i).kind.value == "fact" for i in range(model.rowCount()))
    assert model.rowCount() == 50


def test_cells_show_the_memory_columns(qtbot, store):
    model = MemoryTableModel(SyncLoader(store_fetch(store)))
    model.set_query(MemoryQuery(kind="episode"))
    qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=5000)
    m = model.memory_at(0)
    row = {key: model.index(0, col).data() for key, col in COLUMN.items()}
    assert row["text"] == m.text
    assert row["kind"] == "Your message"
    assert row["valid_from"].startswith("2024-01-")
    assert row["valid_to"] == "now"
    assert row["trust"] == "You said it"
    assert row["status"] == "Active"
    assert row["uses"] == "0"
    assert model.index(0, 0).data(MEMORY_ID_ROLE) == m.id
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Memory", "Kind", "True since", "True until", "Learned", "Known from", "Source", "Status", "Uses"]


def test_filters_map_to_the_store_query():
    as_of = datetime(2024, 6, 1, tzinfo=UTC)
    facts = {"kind": FACT_KINDS}  # no kind chosen: the facts, one row each (episodes are "Your messages")
    assert MemoryQuery().kwargs() == facts
    assert MemoryQuery(kind="fact", trust="imported", text="tea").kwargs() == {"kind": "fact", "trust": "imported", "text": "tea"}
    assert MemoryQuery(kind="episode").kwargs() == {"kind": "episode"}
    assert MemoryQuery(status="any").kwargs() == {**facts, "include_archived": True}
    assert MemoryQuery(status="archived").kwargs() == {**facts, "status": "archived"}
    assert MemoryQuery(as_of=as_of).kwargs() == {**facts, "as_of": as_of}
    assert MemoryQuery(include_history=True).kwargs() == {**facts, "include_all": True}


def test_as_of_and_history_filters_against_the_store(qtbot, store):
    from datetime import timedelta

    lisbon = store.add("User lives in Lisbon.", kind="profile", valid_at=datetime(2019, 1, 1, tzinfo=UTC))
    store.invalidate(lisbon, datetime(2025, 3, 10, tzinfo=UTC))
    model = MemoryTableModel(SyncLoader(store_fetch(store)), page_size=1000)

    def ids_for(q):
        model.set_query(q)
        _drain(qtbot, model)
        return set(model.ids())

    assert lisbon not in ids_for(MemoryQuery(kind="profile"))  # true now: no
    assert lisbon in ids_for(MemoryQuery(kind="profile", as_of=datetime(2024, 6, 1, tzinfo=UTC)))  # true then
    assert lisbon not in ids_for(MemoryQuery(kind="profile", as_of=datetime(2025, 3, 10, tzinfo=UTC) + timedelta(days=1)))
    assert lisbon in ids_for(MemoryQuery(kind="profile", include_history=True))
    row = model.row_of(lisbon)
    assert model.index(row, COLUMN["valid_to"]).data() == "2025-03-10"
    assert model.index(row, COLUMN["text"]).data(Qt.ItemDataRole.ForegroundRole) is not None  # faded: no longer true


def test_a_changed_memory_leaves_a_view_it_no_longer_matches_by_the_stores_rules(qtbot, store):
    """MemoryQuery.accepts (used when a row changes in place) agrees with list_memories for
    current, no-longer-true, replaced, expiring, archived and awaiting-tidy-up memories."""
    from datetime import timedelta

    now = datetime.now(UTC)
    ids = {
        "current": store.add("User likes green tea.", kind="fact"),
        "ended": store.add("User works at Acme.", kind="fact", valid_at=datetime(2020, 1, 1, tzinfo=UTC)),
        "replaced": store.add("User lives in Oslo.", kind="profile"),
        "expiring": store.add("User has a dentist appointment.", kind="fact", ttl=timedelta(days=3)),
        "archived": store.add("User once tried knitting.", kind="fact"),
        "resolving": store.add("User's sister is Ana.", kind="fact"),
        "future_end": store.add("User is on holiday.", kind="fact"),
    }
    store.invalidate(ids["ended"], datetime(2024, 5, 1, tzinfo=UTC))
    store.update(ids["replaced"], expired_at=now - timedelta(minutes=1))
    store.archive(ids["archived"])
    store.update(ids["resolving"], status="resolving")
    store.invalidate(ids["future_end"], now + timedelta(days=10))
    memories = {m.id: m for m in store.get_many(list(ids.values()))}
    model = MemoryTableModel(SyncLoader(store_fetch(store)), page_size=1000)
    queries = [MemoryQuery(), MemoryQuery(status="any"), MemoryQuery(status="archived"), MemoryQuery(status="resolving"),
               MemoryQuery(as_of=datetime(2023, 1, 1, tzinfo=UTC)), MemoryQuery(include_history=True),
               MemoryQuery(kind="profile", include_history=True)]  # fmt: skip
    for q in queries:
        model.set_query(q)
        _drain(qtbot, model)
        listed = set(model.ids()) & set(ids.values())
        accepted = {mid for mid, m in memories.items() if q.accepts(m)}
        assert accepted == listed, q
    # and the live effect: invalidating the current memory in the "true now" view drops its row
    model.set_query(MemoryQuery())
    _drain(qtbot, model)
    assert model.row_of(ids["current"]) >= 0
    model.update_memory(store.invalidate(ids["current"]))
    assert model.row_of(ids["current"]) < 0


def test_a_loose_search_result_says_so_in_its_row(qtbot, store):
    """Trial finding (issue 24): a search's weak matches were told apart only by grey text and a
    tooltip; the row's text now says "loosely related", a close match's text stays as it is."""
    model = MemoryTableModel(SyncLoader(store_fetch(store)), page_size=200)
    rows = store.list(limit=3)
    model.set_results(rows, {m.id: 0.5 for m in rows}, strong={rows[0].id})
    texts = [model.index(r, COLUMN["text"]).data() for r in range(3)]
    assert "loosely related" not in texts[0]
    assert all(t.endswith("· loosely related") for t in texts[1:]), texts
    model.set_results(rows, {})  # strength unknown (no embedder): no row claims anything
    assert not any("loosely" in model.index(r, COLUMN["text"]).data() for r in range(3))
