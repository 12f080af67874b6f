"""The real SmolLM2-135M default model through llama.cpp (small and fast enough for tests)."""

from __future__ import annotations

import threading

import pytest

from assistant.engine import registry
from assistant.engine.chat import ChatMessage, LlamaChatModel


@pytest.fixture(scope="module")
def model():
    m = LlamaChatModel(registry.default_chat_path(), n_ctx=2048, n_threads=2)
    m.load()
    return m


def test_a_reply_comes_with_its_stats(model):
    # No exact answer is asserted: at temperature 0 the 135M model says "Paris" on one CPU and
    # "La femme de France, ..." on an AVX2-only one. Quality lives in `keepsake bench answers`.
    messages = [ChatMessage("system", "You are a helpful assistant."), ChatMessage("user", "Write one sentence about the sea.")]
    text, stats = model.complete(messages, temperature=0.0, max_tokens=40)
    assert text.strip()
    assert stats.prompt_tokens > 0 and stats.prompt_tokens_evaluated > 0
    assert stats.generated_tokens > 0 and stats.ttft_ms > 0 and stats.tokens_per_s > 0
    assert 1 <= stats.threads <= 2  # configured 2; fewer when other programs hold the cores


def test_a_reply_gets_no_more_threads_than_the_cores_left_free(model, monkeypatch):
    """A second llama.cpp thread on a core another program holds slowed a reply 10x (see
    assistant/engine/threads.py); with every core busy elsewhere the reply runs on one thread,
    and the prefix cache still serves the next one."""
    import assistant.engine.threads as threads

    monkeypatch.setattr(threads, "busy_cores", lambda sample_s=0.0: float(threads.os.cpu_count() or 1))
    messages = [ChatMessage("system", "You are terse."), ChatMessage("user", "Name a colour.")]
    text, stats = model.complete(messages, temperature=0.0, max_tokens=8)
    assert stats.threads == 1 and stats.generated_tokens > 0
    monkeypatch.setattr(threads, "busy_cores", lambda sample_s=0.0: 0.0)
    _, again = model.complete(messages, temperature=0.0, max_tokens=8)
    assert again.threads == min(2, threads.os.cpu_count() or 1)
    assert again.prompt_tokens_evaluated < again.prompt_tokens  # the threads change, the cache stays


@pytest.mark.parametrize("configured, cpus, busy, expected", [
    (4, 2, 0.1, 2),  # round(2 - 0.1) = 2, under the configured 4
    (4, 2, 1.9, 1),  # round(2 - 1.9) = 0: at least 1
    (4, 2, 1.4, 1),  # round(0.6) = 1
    (2, 8, 3.0, 2),  # round(8 - 3) = 5, capped at the configured 2
    (8, 8, 2.6, 5),  # round(5.4) = 5
])
def test_threads_for_takes_the_free_cores(configured, cpus, busy, expected):
    from assistant.engine.threads import threads_for

    assert threads_for(configured, cpus, busy) == expected


def test_append_only_prompt_reuses_the_prefix(model):
    history = [ChatMessage("system", "You are terse."), ChatMessage("user", "Name a colour.")]
    reply, first = model.complete(history, temperature=0.0, max_tokens=8)
    history += [ChatMessage("assistant", reply), ChatMessage("user", "Name another one.")]
    _, second = model.complete(history, temperature=0.0, max_tokens=8)
    # Only the tokens after the shared prefix are evaluated again.
    assert second.prompt_tokens_evaluated < second.prompt_tokens
    assert second.prompt_tokens_evaluated <= second.prompt_tokens - first.prompt_tokens + 16


def test_cancel_stops_the_stream(model):
    cancel = threading.Event()
    gen = model.generate([ChatMessage("user", "Count from one to one hundred in words.")], temperature=0.0, max_tokens=300, cancel=cancel)
    pieces = 0
    for _ in gen:
        pieces += 1
        if pieces == 3:
            cancel.set()
    assert gen.stats.finish_reason == "cancelled"
    assert pieces <= 4


def test_json_schema_output_is_constrained(model):
    schema = {"type": "object", "properties": {"index": {"type": "integer", "minimum": 0, "maximum": 3}}, "required": ["index"]}
    out = model.complete_json([ChatMessage("user", "Pick a number between 0 and 3 as JSON.")], schema)
    assert isinstance(out["index"], int)


def test_token_count_uses_the_model_tokenizer(model):
    assert model.count_tokens("") == 0
    assert 1 <= model.count_tokens("hello") < model.count_tokens("hello " * 20)
