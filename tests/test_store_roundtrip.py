"""Hypothesis round-trips: any Unicode text and any timezone-aware datetime come back exactly
(datetimes as the same instant, in UTC); string order in the database is time order."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_fakes import fake_hash_embedder

from assistant.memory.records import Kind, Scope, Source, Trust, content_hash, normalize_text
from assistant.memory.times import parse_iso, ts_from_db, ts_to_db
from assistant.memory.store.facade import MemoryStore

_counter = itertools.count()
aware = st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=st.timezones())
texts = st.text(min_size=1, max_size=300).filter(lambda s: bool(normalize_text(s)))
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _instant(d: datetime) -> datetime:
    """The UTC wall time of ``d``, computed independently of the code under test."""
    return d.replace(tzinfo=None) - d.utcoffset()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = MemoryStore(tmp_path_factory.mktemp("rt") / "rt.db", key="ab" * 32, embed=fake_hash_embedder)
    yield s
    s.close()


def _scope() -> Scope:
    return Scope(f"hyp-{next(_counter)}")  # a fresh scope per example: no dedup across examples


@SETTINGS
@given(text=texts)
def test_memory_text_roundtrip(store: MemoryStore, text: str) -> None:
    mid = store.add(text, scope=_scope())
    m = store.get(mid)
    assert m.text == text
    assert m.content_hash == content_hash(text)
    assert json.loads(json.dumps(m.to_json(), ensure_ascii=False))["text"] == text
    assert store.get(store.edit(mid, text + " (edited)").id).text == text + " (edited)"
    assert store.history(mid)[0].text == text


@SETTINGS
@given(content=st.text(max_size=500))
def test_message_content_roundtrip(store: MemoryStore, content: str) -> None:
    s = store.create_session(content[:40])
    msg = store.add_message(s.id, "user", content)
    assert store.get_message(msg.id).content == content
    assert store.get_session(s.id).title == content[:40]


@SETTINGS
@given(valid=aware, invalid=aware, observed=aware)
def test_datetimes_roundtrip_as_the_same_instant(store: MemoryStore, valid: datetime, invalid: datetime, observed: datetime) -> None:
    lo, hi = sorted([valid, invalid], key=_instant)
    mid = store.add("dated", scope=_scope(), valid_at=lo, invalid_at=hi, source=Source(observed_at=observed))
    m = store.get(mid)
    assert m.valid_at.tzinfo == timezone.utc
    assert m.valid_at.replace(tzinfo=None) == _instant(lo)
    assert m.invalid_at.replace(tzinfo=None) == _instant(hi)
    assert m.sources[0].observed_at.replace(tzinfo=None) == _instant(observed)
    assert parse_iso(m.to_json()["valid_at"]) == m.valid_at


@SETTINGS
@given(a=aware, b=aware)
def test_as_of_order_matches_time_order(store: MemoryStore, a: datetime, b: datetime) -> None:
    scope = _scope()
    store.add("valid from a", scope=scope, valid_at=a)
    found = store.list(scope=scope, as_of=b)
    assert bool(found) == (_instant(a) <= _instant(b))
    assert (ts_to_db(a) <= ts_to_db(b)) == (_instant(a) <= _instant(b))


@given(d=aware)
def test_db_timestamps_are_fixed_width_utc(d: datetime) -> None:
    s = ts_to_db(d)
    assert len(s) == 32 and s.endswith("+00:00")
    assert ts_from_db(s).replace(tzinfo=None) == _instant(d)


@given(s=st.text())
def test_normalize_is_idempotent(s: str) -> None:
    assert normalize_text(normalize_text(s)) == normalize_text(s)


def test_naive_datetimes_and_empty_text_are_refused(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="naive"):
        store.add("x", valid_at=datetime(2024, 1, 1))
    with pytest.raises(ValueError, match="empty"):
        store.add(" \n\t ")
    with pytest.raises(ValueError):
        store.add("x", valid_at=datetime(2024, 2, 1, tzinfo=timezone.utc), invalid_at=datetime(2024, 1, 1, tzinfo=timezone.utc))
    with pytest.raises(ValueError):
        store.add("x", confidence=1.5)
    with pytest.raises(ValueError):
        Scope("  ")
    with pytest.raises(ValueError):
        store.add("\ud800 lone surrogate")


def test_records_basics() -> None:
    assert normalize_text("  I  like TEA. ") == "i like tea"
    assert content_hash("I like tea.") == content_hash("i like   tea")
    assert Trust.USER_STATED > Trust.USER_CONFIRMED > Trust.ASSISTANT_INFERRED > Trust.IMPORTED > Trust.EXTERNAL
    assert Trust.lowest([Trust.USER_STATED, Trust.IMPORTED, Trust.ASSISTANT_INFERRED]) == Trust.IMPORTED
    assert [k.value for k in Kind] == ["profile", "fact", "episode", "experience"]
    assert Scope(" me ").key == "me"
    with pytest.raises(ValueError):
        ts_to_db(datetime(2024, 1, 1))
    assert ts_to_db(datetime(2024, 1, 1, 12, tzinfo=timezone(timedelta(hours=2)))) == "2024-01-01T10:00:00.000000+00:00"
