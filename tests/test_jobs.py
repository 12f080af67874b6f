"""APScheduler wiring: idle (debounced), nightly, after compaction, run now; one run at a time;
results as events; status. Time is shortened through ``idle_seconds``/``check_interval``."""

from __future__ import annotations

import threading
import time

import pytest

from assistant import events
from assistant.config import Settings
from assistant.jobs import TOPIC, ConsolidationJobs, status_from_store
from assistant.config import paths


class FakeRun:
    """Stands in for a consolidation run: records triggers and concurrency, optionally slow."""

    def __init__(self, seconds: float = 0.0, fail: bool = False):
        self.seconds = seconds
        self.fail = fail
        self.triggers: list[str] = []
        self.active = 0
        self.max_active = 0
        self.cancelled: list[bool] = []
        self._lock = threading.Lock()

    def __call__(self, trigger, cancel):
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            self.triggers.append(trigger)
        try:
            end = time.monotonic() + self.seconds
            while time.monotonic() < end and not cancel.is_set():
                time.sleep(0.01)
            self.cancelled.append(cancel.is_set())
            if self.fail:
                raise RuntimeError("boom")
            return {"run_id": f"r{len(self.triggers)}", "trigger": trigger, "counts": {"duplicate": 1}}
        finally:
            with self._lock:
                self.active -= 1


@pytest.fixture
def published():
    got: list[dict] = []
    unsubscribe = events.subscribe(TOPIC, got.append)
    yield got
    unsubscribe()


def wait_for(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def jobs_with(run, **kw):
    kw.setdefault("idle_seconds", 0.4)
    kw.setdefault("check_interval", 0.05)
    kw.setdefault("nightly_hour", None)
    return ConsolidationJobs(run=run, **kw).start()


def test_idle_trigger_fires_after_the_configured_idle_time(published):
    run = FakeRun()
    jobs = jobs_with(run)
    try:
        t0 = time.monotonic()
        jobs.note_activity()
        assert wait_for(lambda: run.triggers, timeout=3)
        elapsed = time.monotonic() - t0
        assert run.triggers == ["idle"] and 0.4 <= elapsed < 1.5
        assert wait_for(lambda: published)
        assert published[0]["ok"] is True and published[0]["trigger"] == "idle" and published[0]["counts"] == {"duplicate": 1}
        time.sleep(0.8)  # still idle: it fired once for this idle period
        assert run.triggers == ["idle"]
        jobs.note_activity()  # activity re-arms it
        assert wait_for(lambda: len(run.triggers) == 2, timeout=3)
    finally:
        jobs.shutdown()


def test_idle_trigger_never_fires_while_the_person_types():
    run = FakeRun()
    jobs = jobs_with(run)
    try:
        end = time.monotonic() + 1.5  # typing: a key press every 50 ms for 1.5 s (idle is 0.4 s)
        while time.monotonic() < end:
            jobs.note_activity()
            time.sleep(0.05)
        assert run.triggers == []
        assert jobs.status().next_idle_in is not None and jobs.status().next_idle_in > 0.2
        assert wait_for(lambda: run.triggers == ["idle"], timeout=3)  # stops typing -> fires
    finally:
        jobs.shutdown()


def test_typing_during_an_idle_run_asks_it_to_stop():
    run = FakeRun(seconds=3.0)
    jobs = jobs_with(run)
    try:
        assert wait_for(lambda: run.active == 1, timeout=3)
        jobs.note_activity()
        assert wait_for(lambda: run.cancelled == [True], timeout=2)
    finally:
        jobs.shutdown()


def test_one_run_at_a_time_and_triggers_coalesce(published):
    run = FakeRun(seconds=0.4)
    jobs = jobs_with(run, idle_seconds=3600)
    try:
        assert jobs.run_now() == "scheduled"
        assert wait_for(lambda: run.active == 1)
        st = jobs.status()
        assert st.running and st.running_trigger == "manual"
        results = [jobs.run_now() for _ in range(5)] + [events.publish("compaction", object()) and "sent"]
        assert set(results[:5]) == {"queued"}
        assert jobs.wait_idle(10)
        assert run.max_active == 1
        assert run.triggers == ["manual", "manual"]  # the burst became one pending run
        assert len(published) == 2
        st = jobs.status()
        assert not st.running and st.runs == 2 and st.last_run["trigger"] == "manual"
    finally:
        jobs.shutdown()


def test_compaction_event_triggers_a_run():
    run = FakeRun()
    jobs = jobs_with(run, idle_seconds=3600)
    try:
        from assistant.context.compaction import CompactionEvent  # the real payload type

        assert CompactionEvent is not None
        events.publish("compaction", object())
        assert wait_for(lambda: run.triggers == ["compaction"])
    finally:
        jobs.shutdown()
    events.publish("compaction", object())  # unsubscribed on shutdown
    time.sleep(0.1)
    assert run.triggers == ["compaction"]


def test_nightly_trigger_is_scheduled_at_the_configured_hour():
    run = FakeRun()
    jobs = jobs_with(run, idle_seconds=3600, nightly_hour=4)
    try:
        nxt = jobs.status().next_nightly
        assert nxt is not None and (nxt.hour, nxt.minute) == (4, 0)
        job = jobs._scheduler.get_job("consolidation.nightly")
        assert job.max_instances == 1 and job.coalesce is True
    finally:
        jobs.shutdown()


def test_a_failing_run_is_reported_and_the_scheduler_keeps_going(published):
    run = FakeRun(fail=True)
    jobs = jobs_with(run, idle_seconds=3600)
    try:
        jobs.run_now()
        assert wait_for(lambda: published)
        assert published[0]["ok"] is False and "boom" in published[0]["error"]
        run.fail = False
        jobs.run_now()
        assert wait_for(lambda: len(published) == 2) and published[1]["ok"] is True
    finally:
        jobs.shutdown()


def test_real_consolidation_through_the_scheduler(published, tmp_path):
    from assistant.memory.records import Kind
    from assistant.memory.store.facade import MemoryStore

    store = MemoryStore(paths().database)
    store.add("User lives in Beijing.", kind=Kind.PROFILE, slot="home_city")
    store.add("User lives in Beijing!", kind=Kind.PROFILE, slot="home_city")  # hash twin: dedup on write
    jobs = ConsolidationJobs(store, idle_seconds=3600, check_interval=0.05, nightly_hour=None).start()
    try:
        jobs.run_now()
        assert wait_for(lambda: published, timeout=10)
        summary = published[0]
        assert summary["ok"] and summary["trigger"] == "manual" and summary["run_id"].startswith("c")
        st = status_from_store(store, Settings())
        assert st.last_run["run_id"] == summary["run_id"] and st.last_run["trigger"] == "manual"
    finally:
        jobs.shutdown()
        store.close()
