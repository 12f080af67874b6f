"""As-of queries on both axes: "what was true on D" (world time) and "what did we believe at T"
(system time), plus the default view (currently valid, not superseded, TTL not passed)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from store_fakes import FakeClock, dt, fake_hash_embedder

from assistant.memory.records import Kind, Status, Trust, UpdateType
from assistant.memory.store.facade import MemoryStore
from assistant.memory.store.filters import MemoryFilter
from assistant.config import paths


@pytest.fixture
def world():
    """Beijing (said 2024-01-10) -> moved to Shanghai (said 2025-03-20, moved 2025-03-13) ->
    the Shanghai text corrected on 2025-04-01."""
    clock = FakeClock(dt(2024, 1, 10, 9))
    store = MemoryStore(paths().database, embed=fake_hash_embedder, clock=clock)
    beijing = store.add("Lives in Beijing", kind=Kind.PROFILE, slot="home_city", valid_at=dt(2024, 1, 10))
    clock.set(dt(2025, 3, 20, 18))
    shanghai = store.add("Lives in Shanghai", kind=Kind.PROFILE, slot="home_city", valid_at=dt(2025, 3, 13))
    store.invalidate(beijing, dt(2025, 3, 13), update_type=UpdateType.CONFLICT, actor="consolidator")
    clock.set(dt(2025, 4, 1, 12))
    store.edit(shanghai, "Lives in Shanghai, China")
    clock.set(dt(2025, 5, 1))
    return store, clock, beijing, shanghai


def _texts(items) -> list[str]:
    return sorted(m.text for m in items)


def test_default_view_is_what_is_true_and_believed_now(world) -> None:
    store, _, beijing, _ = world
    assert _texts(store.list()) == ["Lives in Shanghai, China"]
    b = store.get(beijing)
    assert b.invalid_at == dt(2025, 3, 13) and b.expired_at == dt(2025, 3, 20, 18)
    assert _texts(store.list(include_all=True)) == ["Lives in Beijing", "Lives in Shanghai, China"]
    assert store.count() == 1 and store.count(include_all=True) == 2


def test_world_time_as_of(world) -> None:
    store, *_ = world
    assert _texts(store.list(as_of=dt(2024, 6, 1))) == ["Lives in Beijing"]
    assert _texts(store.list(as_of=dt(2025, 3, 12))) == ["Lives in Beijing"]
    assert _texts(store.list(as_of=dt(2025, 3, 13))) == ["Lives in Shanghai, China"]  # invalid_at is exclusive
    assert _texts(store.list(as_of=dt(2023, 1, 1))) == []


def test_system_time_known_at(world) -> None:
    store, *_ = world
    assert _texts(store.list(known_at=dt(2024, 1, 1))) == []  # before we knew anything
    # what we believed in mid 2024: Beijing, with no end date then
    then = store.list(known_at=dt(2024, 6, 1))
    assert _texts(then) == ["Lives in Beijing"] and then[0].invalid_at is None and then[0].version == 1
    # after the move was learned but before the correction: the old Shanghai wording
    assert _texts(store.list(known_at=dt(2025, 3, 25))) == ["Lives in Shanghai"]
    assert _texts(store.list(known_at=dt(2025, 4, 2))) == ["Lives in Shanghai, China"]


def test_both_axes_together(world) -> None:
    store, *_ = world
    # "what did we believe, on 2025-03-25, had been true on 2024-06-01?"
    assert _texts(store.list(known_at=dt(2025, 3, 25), as_of=dt(2024, 6, 1))) == ["Lives in Beijing"]
    # in 2024 we did not know about Shanghai at all, whatever world date we ask about
    assert _texts(store.list(known_at=dt(2024, 6, 1), as_of=dt(2025, 4, 1))) == ["Lives in Beijing"]
    assert _texts(store.list(known_at=dt(2025, 3, 25), include_all=True)) == ["Lives in Beijing", "Lives in Shanghai"]


def test_sources_added_later_are_not_known_earlier(world) -> None:
    from assistant.memory.records import Source

    store, clock, beijing, _ = world
    store.add_source(beijing, Source(speaker="user", extractor="import"))
    assert len(store.list(known_at=dt(2024, 6, 1))[0].sources) == 0
    assert len(store.get(beijing).sources) == 1


def test_ttl_archive_and_future_facts(world) -> None:
    store, clock, beijing, shanghai = world
    tmp = store.add("Parked on level 3", ttl=timedelta(hours=5))
    future = store.add("Starts the new job at Alibaba", valid_at=dt(2025, 6, 1))
    assert tmp in [m.id for m in store.list()] and future not in [m.id for m in store.list()]
    assert future in [m.id for m in store.list(as_of=dt(2025, 7, 1))]
    clock.advance(hours=6)
    assert tmp not in [m.id for m in store.list()]
    assert tmp in [m.id for m in store.list(include_expired=True)]
    assert tmp in [m.id for m in store.list(known_at=dt(2025, 5, 1, 1))]  # the TTL had not passed then
    store.archive(shanghai, update_type=UpdateType.DECAY, actor="consolidator")
    assert store.list() == []
    assert [m.id for m in store.list(include_archived=True)] == [shanghai]
    assert store.get(shanghai).status == Status.ARCHIVED
    store.restore(shanghai)
    assert [m.id for m in store.list()] == [shanghai]


def test_one_memory_filter_value_is_what_the_keywords_describe() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    for i in range(6):  # 3 imported (odd i), 3 user-stated
        store.add(f"fact number {i}", trust=Trust.IMPORTED if i % 2 else Trust.USER_STATED)
    store.add("a profile slot", kind=Kind.PROFILE, slot="name")
    imported = MemoryFilter.build(kind="fact", trust="imported")
    assert imported == MemoryFilter(kinds=(Kind.FACT,), trusts=(Trust.IMPORTED,))
    assert store.count(imported) == store.count(kind="fact", trust="imported") == 3
    assert [m.id for m in store.list(imported, limit=2)] == [m.id for m in store.list(kind="fact", trust="imported", limit=2)]
    with pytest.raises(TypeError):
        store.list(imported, kind="profile")  # a filter or keywords, never both
    with pytest.raises(TypeError):
        store.count(knd="fact")  # a misspelt filter is an error, not "no filter"


def test_filters_and_paging() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    ids = [store.add(f"fact number {i}", trust=Trust.IMPORTED if i % 2 else Trust.USER_STATED) for i in range(25)]
    store.add("a profile slot", kind=Kind.PROFILE, slot="name")
    assert store.count() == 26
    assert store.count(kind="fact") == 25 and store.count(kind=["profile"]) == 1
    assert store.count(trust="imported") == 12 and store.count(min_trust=Trust.USER_CONFIRMED) == 14
    page1 = store.list(kind=Kind.FACT, limit=10)
    page3 = store.list(kind=Kind.FACT, limit=10, offset=20)
    assert [m.id for m in page1] == ids[::-1][:10] and len(page3) == 5
    assert [m.id for m in store.list(kind="fact", order="oldest", limit=2)] == ids[:2]
    assert _texts(store.list(text="number 1")) == sorted(f"fact number {i}" for i in [1] + list(range(10, 20)))
    assert store.list(text="100%_\\") == []  # LIKE wildcards are escaped
    assert [m.slot for m in store.list(slot="name")] == ["name"]
    store.pin(ids[0])
    assert [m.id for m in store.list(pinned=True)] == [ids[0]]
