"""The chat model reads imported messages in the background (issue 14.6): the import never runs
the model, queues what stated something, and the queue is resumable and cancellable. The model
here is FAKE: what is tested is the queue and scheduling logic, which does not depend on what a
model says (the real model's extraction is tested in test_capture.py)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from capture_fakes import FakeQueuedModel

from assistant import events
from assistant.config import Settings
from assistant.jobs import TOPIC, ConsolidationJobs, status_from_store
from assistant.memory.capture.importing import model_extraction
from assistant.memory.capture.capturer import Capturer
from assistant.memory.capture.importing.importers import import_file
from assistant.memory.store.facade import MemoryStore
from assistant.config import load_settings

LINES = [
    ("user", "I adopted a kitten called Miso last week."),
    ("assistant", "Lovely!"),
    ("user", "What should I feed her?"),  # a question: nothing for the model to read
    ("assistant", "Kitten food."),
    ("user", "We live in Lyon and I work at Renault."),
    ("user", "My sister Ana visits in June."),
]


@pytest.fixture
def store(tmp_path):
    s = MemoryStore(tmp_path / "m.db")
    yield s
    s.close()


def chats(tmp_path: Path) -> Path:
    path = tmp_path / "chats.jsonl"
    path.write_text("".join(json.dumps({"session": "s", "role": r, "content": c, "timestamp": f"2024-02-0{i + 1}T10:00:00Z"}) + "\n"
                            for i, (r, c) in enumerate(LINES)))  # fmt: skip
    return path


def imported(store, tmp_path, **kw):
    return import_file(store, chats(tmp_path), capturer=Capturer(store, use_llm=False, settings=Settings()), **kw)


def test_import_queues_only_statements_and_never_runs_the_model(store, tmp_path):
    report = imported(store, tmp_path, queue_model=True)
    assert (report.user_messages, report.captured, report.model_extraction_queued) == (4, 3, 3)
    assert model_extraction.status(store).left == 3
    assert imported(store, tmp_path, queue_model=True).model_extraction_queued == 0  # nothing new
    assert model_extraction.status(store).left == 3


def test_no_llm_import_queues_nothing(store, tmp_path):
    assert imported(store, tmp_path).model_extraction_queued == 0
    assert model_extraction.status(store).left == 0


def test_run_reads_the_queue_in_order_and_resumes_after_a_limit_fake_model(store, tmp_path):
    imported(store, tmp_path, queue_model=True)
    model = FakeQueuedModel({"facts": [{"text": "User adopted a kitten called Miso."}]})
    first = model_extraction.run(store, model, limit=1, settings=load_settings)
    assert (first.processed, first.left, first.stopped) == (1, 2, True)
    assert "I adopted a kitten called Miso" in model.calls[0][0][1].content  # the first message, its statement
    assert "User adopted a kitten called Miso." in [m.text for m in store.list(include_all=True)]
    rest = model_extraction.run(store, model, settings=load_settings)  # a later run goes on where the first stopped
    assert (rest.processed, rest.left, rest.stopped) == (2, 0, False)
    assert len(model.calls) == 3 and "Ana" in model.calls[-1][0][1].content
    assert model_extraction.status(store).left == 0


def test_a_failing_message_does_not_block_the_queue_fake_model(store, tmp_path):
    imported(store, tmp_path, queue_model=True)

    class Broken(Capturer):
        def capture_message(self, message_id, **kw):
            raise RuntimeError("model crashed")

    report = model_extraction.run(store, None, capturer=Broken(store, use_llm=False, settings=Settings()))
    assert (report.processed, report.failed, report.left) == (3, 3, 0)


def test_cancel_stops_between_messages_and_the_queue_keeps_the_rest_fake_model(store, tmp_path):
    imported(store, tmp_path, queue_model=True)
    cancel = threading.Event()
    model = FakeQueuedModel()
    report = model_extraction.run(store, model, cancel=cancel, progress=lambda r: cancel.set(), settings=load_settings)
    assert (report.processed, report.left, report.stopped) == (1, 2, True)


def test_queue_ranges_merge():
    assert model_extraction.merge([[5, 9], [1, 3], [4, 4], [20, 22]]) == [[1, 9], [20, 22]]


def test_idle_scheduler_runs_the_extraction_after_consolidation_fake_model(store, tmp_path):
    imported(store, tmp_path, queue_model=True)
    got: list[dict] = []
    unsubscribe = events.subscribe(TOPIC, got.append)
    model = FakeQueuedModel()
    jobs = ConsolidationJobs(store, settings=Settings(), nightly_hour=None, extract_model=lambda: model,
                             subscribe_compaction=False).start()  # fmt: skip
    try:
        assert jobs.status().model_extraction_left == 3
        jobs.run_now()
        assert jobs.wait_idle(120)
    finally:
        jobs.shutdown()
        unsubscribe()
    (summary,) = got
    assert summary["ok"] and summary["model_extraction"]["processed"] == 3, summary
    assert len(model.calls) == 3
    assert status_from_store(store, Settings()).model_extraction_left == 0
