"""Writer + consolidator together (KEEPSAKE_CONSOLIDATE_STRESS_SECONDS, default 30 s): no lost
update, no exception, the hot path never waits long; then undo restores a run."""

from __future__ import annotations

import os
import random
import threading
import time

import pytest

from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator, list_runs
from assistant.memory.records import Kind, Source, Status
from assistant.memory.store.facade import MemoryStore
from consolidate_support import clock, dt, minilm, store  # noqa: F401 - fixtures

SECONDS = float(os.environ.get("KEEPSAKE_CONSOLIDATE_STRESS_SECONDS", "30"))

PHRASES = [
    "The user prefers oat milk in coffee.", "User prefers oat milk in their coffee", "User likes oat milk.",
    "User is allergic to oat milk.", "My sister Mei lives in Boston", "My sister Lin lives in Boston",
    "I drink oat milk with my coffee every morning", "Every morning I drink oat milk with my coffee",
    "I go rock climbing at Brooklyn Boulders every Saturday", "Every Saturday I go rock climbing at Brooklyn Boulders",
    "User keeps the spare key under the blue flowerpot", "User tried a kombucha stand at the Brooklyn Flea",
    "I was born on 1990-05-01", "I was born on 1991-05-01", "User plays the cello in the Riverside Orchestra",
]  # fmt: skip
CITIES = ["Beijing", "Shanghai", "Lisbon", "Berlin", "Osaka", "Quito"]


@pytest.mark.slow
def test_writer_and_consolidator_together(store, minilm, clock):
    vectors = dict(zip(PHRASES + [f"User lives in {c}." for c in CITIES], minilm.embed(PHRASES + [f"User lives in {c}." for c in CITIES])))
    clock.set(dt(2025, 3, 25, 12))
    path = store.path
    errors: list[BaseException] = []
    stop = threading.Event()
    expected: dict[int, dict] = {}  # what the writer last set on each record it changed
    latencies: list[float] = []
    runs: list[str] = []
    rng = random.Random(7)

    def writer():
        w = MemoryStore(path, embed=minilm.embed, clock=clock)
        sid = w.create_session("stress").id
        try:
            n = 0
            while not stop.is_set():
                n += 1
                op = rng.random()
                t0 = time.perf_counter()
                if op < 0.55 or not expected:  # capture ADD (hot path)
                    text = rng.choice(PHRASES) if rng.random() < 0.7 else f"User lives in {rng.choice(CITIES)}."
                    kind = Kind.PROFILE if text.startswith("User lives in") else rng.choice([Kind.FACT, Kind.FACT, Kind.EPISODE])
                    msg = w.add_message(sid, "user", text, observed_at=dt(2024, 1, 1) + (clock() - dt(2024, 1, 1)) * rng.random())
                    src = Source(session_id=sid, message_id=msg.id, observed_at=msg.observed_at)
                    created = clock() - (dt(2025, 3, 1) - dt(2023, 1, 1)) * rng.random()
                    mid = w.add(text, kind=kind, source=src, embedding=vectors[text], created_at=created,
                                slot="home_city" if kind is Kind.PROFILE else None,
                                valid_at=msg.observed_at if kind is Kind.PROFILE else None)  # fmt: skip
                    latencies.append(time.perf_counter() - t0)
                    expected.setdefault(mid, {})
                else:  # the person edits / pins a record (no expected_version: the user wins)
                    mid = rng.choice(list(expected))
                    if rng.random() < 0.5:
                        text = rng.choice(PHRASES) + f" (edit {n})"
                        w.update(mid, text=text)
                        expected[mid]["text"] = text
                    else:
                        pinned = not w.get(mid).pinned
                        w.update(mid, pinned=pinned)
                        expected[mid]["pinned"] = pinned
                    latencies.append(time.perf_counter() - t0)
                time.sleep(rng.random() * 0.01)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
            stop.set()
        finally:
            w.close()

    def consolidator():
        c_store = MemoryStore(path, embed=minilm.embed, clock=clock)
        try:
            c = Consolidator(c_store, config=ConsolidationConfig(batch_max=8))
            while not stop.is_set():
                report = c.run(trigger="stress")
                runs.append(report.run_id)
                assert not report.errors, report.errors
                clock.advance(days=3)  # let decay have something to do
                time.sleep(0.05)  # runs are triggered minutes apart; this is already a storm
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
            stop.set()
        finally:
            c_store.close()

    threads = [threading.Thread(target=writer), threading.Thread(target=consolidator)]
    for t in threads:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in threads:
        t.join(120)
    assert not errors, errors
    print(f"\nstress: {len(runs)} runs, {len(latencies)} writes, p50 {sorted(latencies)[len(latencies)//2]*1000:.1f} ms, max {max(latencies)*1000:.0f} ms, conflicts {sum(r.conflicts for r in list_runs(store, limit=None))}, counts {[r.counts for r in list_runs(store, limit=3)]}")
    assert len(runs) >= 2 and len(latencies) > 50

    # no lost update: every value the writer set is the current one
    for mid, fields in expected.items():
        m = store.get(mid)
        for name, value in fields.items():
            assert getattr(m, name) == value, (mid, name, value, m)
        hist = store.history(mid)
        assert [v.version for v in hist] == list(range(1, len(hist) + 1))  # no version skipped or reused
    # every consolidator write went through expected_version: from_version = to_version - 1
    for e in store.audit():
        if e.actor.value == "consolidator" and e.from_version is not None:
            assert e.to_version == e.from_version + 1
    # the hot path was never held up for long (write batches are short)
    latencies.sort()
    assert latencies[int(len(latencies) * 0.99)] < 1.0, latencies[-5:]
    recorded = {r.run_id: r for r in list_runs(store, limit=None)}
    assert all(recorded[r].status == "finished" for r in runs)

    # undo restores the last run that changed something
    changed = [r for r in reversed(runs) if sum(recorded[r].counts.values()) and "ttl" not in recorded[r].counts]
    if changed:
        target = changed[0]
        touched = {e.memory_id for e in store.audit(run_id=target) if e.details.get("changes")}
        before = {}
        for e in store.audit(run_id=target):
            if e.details.get("changes") and e.memory_id not in before:
                before[e.memory_id] = e.details["changes"]
        report = Consolidator(store).undo(target)
        for mid in touched:
            try:
                m = store.get(mid)
            except KeyError:
                continue
            fields = before[mid]
            if "status" in fields and not any(s.memory_id == mid for s in report.skipped):
                assert m.status is Status(fields["status"][0])
