"""Compaction ladder (assistant.context.compaction + facts + window).

Tests whose name ends in ``_no_model`` or ``_fake_model`` check logic that does not depend on the
model (token counts from the real tokenizer where it matters, a recording fake for the
narrative); the summary-content and end-to-end tests use the real SmolLM2-135M.
"""

from __future__ import annotations


import llama_cpp
import pytest

from assistant import events
from assistant.context.compaction import (
    KEEP_TURNS,
    Compactor,
    ContextMessage,
    apply_state,
    load_state,
    read_history,
    turn_starts,
)
from assistant.context.facts import Fact, extract, salvage
from assistant.context.window import SessionContext
from assistant.engine import registry
from assistant.engine.chat import LlamaChatModel
from assistant.memory.store.facade import MemoryStore
from assistant.config import paths


def chars(text: str) -> int:
    return (len(text) + 3) // 4


@pytest.fixture(scope="module")
def model():
    m = LlamaChatModel(registry.default_chat_path(), n_ctx=2048, n_threads=1)
    # LlamaChatModel leaves prompt processing on every core (n_threads_batch); on a shared
    # machine that spins and makes these tests 10x slower. One thread for both.
    llama_cpp.llama_set_n_threads(m.load()._ctx.ctx, 1, 1)
    return m


class RecordingModel:
    """A fake model: returns queued texts and records every prompt it was given."""

    def __init__(self, *replies: str) -> None:
        self.replies, self.prompts = list(replies), []

    def complete(self, messages, **kw):
        self.prompts.append("\n".join(m.content for m in messages))
        return (self.replies.pop(0) if self.replies else "A short narrative."), None


@pytest.fixture
def archive():
    """The store's encrypted context archive (a real store in the test's KEEPSAKE_HOME)."""
    store = MemoryStore(paths().database)
    yield store.context_archive
    store.close()


@pytest.fixture
def bus():
    got = []
    off = events.subscribe("compaction", got.append)
    yield got
    off()


TALK = [
    "Hi, I'm Dana Moreau and I work as a nurse at the Lyon hospital.",
    "My colleague Marc Dubois covered my shift on 2024-05-03.",
    "I decided to book a trip to Porto on June 14th with my sister Lea.",
    "The budget for the trip is 850 euros.",
    "I need to renew my passport before then.",
    "The scan of my passport is in /home/dana/documents/passport_scan.pdf.",
    "My dog Biscuit is 3 years old.",
    "Tomorrow I will call Dr. Patel about my knee.",
    "Can you suggest a dinner with lentils?",
    "I'm meeting Lea at 7pm on Friday.",
    "The pottery class costs 120 euros per term.",
    "Marc says hi.",
]


def conversation(turns: int, *, start_id: int = 1, talk=TALK) -> list[ContextMessage]:
    out, i = [], start_id
    for t in range(turns):
        text = talk[t % len(talk)]
        out += [ContextMessage("user", text, i, raw=text), ContextMessage("assistant", f"Thanks for telling me ({t}).", i + 1)]
        i += 2
    return out


def test_summary_cut_lands_on_a_user_message_and_keeps_six_turns_intact_no_model(bus, archive):
    history = conversation(12)
    history.insert(9, ContextMessage("assistant", "And one more thing.", 10))  # two replies in a row
    history = [ContextMessage(m.role, m.content, i + 1, m.raw) for i, m in enumerate(history)]
    result = Compactor(chars, archive=archive).compact("s1", history, target_tokens=0)
    assert "summary" in result.steps
    kept = result.history
    assert kept[0].role == "user" and len(turn_starts(kept)) == KEEP_TURNS
    assert kept == history[-len(kept) :]  # the recent turns are exactly as they were sent
    state = result.state
    assert state.covered_up_to == history[-len(kept) - 1].id
    assert f"archive ({state.archive})" in state.summary and state.archive == "session-s1/history"
    assert [m.id for m in read_history(archive, "s1")] == [m.id for m in history]  # full history archived first
    assert bus and bus[-1].summarized and bus[-1].session_id == "s1" and bus[-1].tokens_after < bus[-1].tokens_before


def test_summary_keeps_identifiers_that_appear_in_the_history(model, archive):
    history = conversation(16)  # the summary covers the first 10 turns
    result = Compactor(model.count_tokens, model, archive=archive).compact("s2", history, target_tokens=0)
    summary = result.state.summary
    for identifier in ["Dana Moreau", "Lyon", "Marc Dubois", "2024-05-03", "Porto", "June 14th", "Lea", "850 euros",
                       "/home/dana/documents/passport_scan.pdf", "Biscuit", "3 years", "Dr. Patel", "7pm", "Friday"]:  # fmt: skip
        assert identifier in summary, identifier
    assert "Decisions:" in summary and "I decided to book a trip to Porto" in summary
    assert "Open items:" in summary and "I need to renew my passport" in summary
    assert "Narrative: " in summary  # the model's part, after the structured part kept by code
    assert model.count_tokens(summary) < Compactor(model.count_tokens, archive=archive).tokens(history[: -2 * KEEP_TURNS])


def test_summary_is_regenerated_from_the_full_history_never_from_a_summary_fake_model(archive):
    fake = RecordingModel("First narrative about Dana.", "Second narrative.")
    c = Compactor(chars, fake, archive=archive)
    first = c.compact("s3", conversation(12), target_tokens=0)
    assert "summary" in first.steps and "First narrative about Dana." in first.state.summary
    more = conversation(6, start_id=25, talk=["I finished the passport renewal, done.", "Work was calm today."])
    second = c.compact("s3", first.history + more, target_tokens=0)
    assert "summary" in second.steps
    prompt = fake.prompts[-1]
    assert "I'm Dana Moreau" in prompt  # from before the first cut: read from the archive
    assert "First narrative" not in prompt and "Messages #" not in prompt  # never the old summary
    assert "Dana Moreau" in second.state.summary and "First narrative" not in second.state.summary
    assert second.state.covered_up_to > first.state.covered_up_to


def test_no_summary_more_often_than_every_5_messages_fake_model(archive):
    c = Compactor(chars, RecordingModel(), archive=archive)
    first = c.compact("s4", conversation(12), target_tokens=0)
    soon = c.compact("s4", first.history + conversation(2, start_id=25), target_tokens=0)  # 4 new messages
    assert "summary:too-soon" in soon.steps and soon.state.summary == first.state.summary
    later = c.compact("s4", soon.history + conversation(1, start_id=29), target_tokens=0)  # 6 new
    assert "summary" in later.steps


def test_a_summary_that_is_not_shorter_keeps_the_original_fake_model(bus, archive):
    fake = RecordingModel()
    tiny = [ContextMessage(role, text, i) for i in range(1, 15) for role, text in [("user" if i % 2 else "assistant", "ok")]]
    result = Compactor(chars, fake, archive=archive).compact("s5", tiny, target_tokens=0)
    assert "summary:not-shorter" in result.steps and result.history == tiny
    assert result.state.summary == "" and fake.prompts == []  # the model was not even asked
    assert not result.changed and bus == []


def test_cheap_steps_run_first_offload_then_mask_no_model(archive):
    history = conversation(9)
    history[1] = ContextMessage("assistant", "long answer " * 900, 2)  # 10800 chars: offloaded
    history[3] = ContextMessage("assistant", "bulky " * 400, 4)  # 2400 chars, old: masked
    history[-1] = ContextMessage("assistant", "recent bulky " * 200, history[-1].id)  # recent: intact
    c = Compactor(chars, archive=archive)
    first = c.compact("s6", history, target_tokens=c.tokens(history) - 1)
    assert first.steps == ("archive", "offload")  # the cheapest step was enough: stop there
    view = first.history
    assert "offloaded: 10800 characters" in view[1].content and len(view[1].content) < 800
    ref = view[1].content.rsplit("archive entry ", 1)[1].rstrip("]")
    assert archive.offload(ref) == history[1].content  # reversible
    assert view[3] == history[3]
    second = c.compact("s6", view, target_tokens=c.tokens(view) - 1)
    assert second.steps == ("archive", "mask")
    view = second.history
    assert view[3].content.startswith("[message #4 (2400 characters) masked") and "session-s6/history" in view[3].content
    assert view[-1] == history[-1] and view[1] == first.history[1]
    # after a restart the same view is rebuilt from the stored messages
    assert [m.content for m in apply_state(archive, load_state(archive, "s6"), history)] == [m.content for m in view]


def test_prune_drops_injected_blocks_only_from_older_turns_no_model(archive):
    block = "<retrieved_memories>\n- a memory\n</retrieved_memories>\n\n"
    history = [ContextMessage(m.role, block + m.raw if m.role == "user" else m.content, m.id, m.raw) for m in conversation(9)]
    small_target = Compactor(chars, archive=archive).tokens(history) - 10
    result = Compactor(chars, archive=archive).compact("s7", history, target_tokens=small_target)
    assert "prune" in result.steps and "summary" not in result.steps
    starts = turn_starts(history)
    older, recent = result.history[: starts[-KEEP_TURNS]], result.history[starts[-KEEP_TURNS] :]
    assert all("retrieved_memories" not in m.content for m in older)
    assert all(m.content.startswith("<retrieved_memories>") for m in recent if m.role == "user")


def test_salvage_keeps_only_still_valid_previous_facts():
    history = [
        ContextMessage("user", "I need to renew my passport soon.", 1, raw=None),
        ContextMessage("user", "Call Anna about the cabin.", 3, raw=None),
        ContextMessage("user", "[deleted]", 5, raw=None),  # redacted by the person
        ContextMessage("user", "The passport renewal is done.", 9, raw=None),
    ]
    previous = [
        Fact("open_item", "I need to renew my passport soon.", 1),  # closed by message 9
        Fact("name", "Anna", 3),  # still there
        Fact("path", "/home/dana/secret.txt", 5),  # its message was redacted
        Fact("number", "42", 7),  # its message was deleted
    ]
    assert salvage(previous, history) == [Fact("name", "Anna", 3)]


def test_extract_finds_identifiers_and_the_persons_decisions():
    history = conversation(12)
    found = {(f.kind, f.value) for f in extract(history)}
    assert {("name", "Dana Moreau"), ("path", "/home/dana/documents/passport_scan.pdf"), ("date", "2024-05-03"),
            ("number", "850 euros"), ("date", "June 14th")} <= found  # fmt: skip
    assert not any(v == "Thanks" for _, v in found)  # assistant boilerplate is not a name


def test_state_lives_in_the_encrypted_archive_not_in_a_file_fake_model(archive, keepsake_home):
    Compactor(chars, RecordingModel(), archive=archive).compact("s8", conversation(12), target_tokens=0)
    data = archive.state("s8")
    assert data["summary"] and data["covered_up_to"] and data["archive"] == "session-s8/history"
    assert load_state(archive, "s8").to_json() == data
    assert len(read_history(archive, "s8")) == 24
    plaintext = [p for p in keepsake_home.rglob("*") if p.is_file() and b"Dana Moreau" in p.read_bytes()]
    assert plaintext == []  # the summary and the history are in no file


def test_a_long_conversation_triggers_compaction_and_the_event(model, bus, archive):
    ctx = SessionContext("long", model, archive=archive, window=2048)
    stats_seen, compacted_at = [], []
    for t in range(30):
        text = TALK[t % len(TALK)]
        lines = "\n".join(f"- [2024-05-{(t + k) % 28 + 1:02d}, #{t * 4 + k}] Dana mentioned item {k} of turn {t}." for k in range(4))
        block = f'<retrieved_memories trust="reference-only">\n{lines}\n</retrieved_memories>'
        before = len(bus)
        assembled = ctx.prepare(text, memories_block=block, max_output_tokens=16)
        reply, stats = model.complete(assembled.messages, temperature=0.0, max_tokens=16)
        ctx.record(assembled, text, reply)
        stats_seen.append(stats)
        if len(bus) > before:
            compacted_at.append(t)
        elif t > 0:  # between compactions the prefix is reused: only the new tokens are evaluated
            assert stats.prompt_tokens_evaluated <= stats.prompt_tokens - stats_seen[-2].prompt_tokens + 2
        if any(e.summarized for e in bus) and t >= compacted_at[-1] + 2:
            break
    assert all(b - a >= 2 for a, b in zip(compacted_at, compacted_at[1:]))  # never turn after turn
    summaries = [e for e in bus if e.summarized]
    assert summaries and summaries[0].session_id == "long" and summaries[0].archive == "session-long/history"
    assert summaries[0].tokens_after < summaries[0].tokens_before
    assert ctx.state.summary and ctx.state.summary in assembled.messages[0].content
    assert len(turn_starts(ctx.history)) <= KEEP_TURNS + 3  # summary + recent turns: flat
    assert max(s.prompt_tokens for s in stats_seen) < 2048 - 256
    assert archive.state("long") is not None and len(read_history(archive, "long")) > 2 * KEEP_TURNS


def test_the_summary_stays_within_its_budget_dropping_the_oldest_facts_no_model(archive):
    history = conversation(24)
    result = Compactor(chars, archive=archive, summary_tokens=120).compact("s9", history, target_tokens=0)
    summary = result.state.summary
    assert chars(summary) <= 120 and "archive (session-s9/history)" in summary
    # turns 12-17 repeat TALK[0:6]; TALK[6:12] (Biscuit, Dr. Patel...) were last said in turns 6-11
    assert "Biscuit" not in summary and "Dr. Patel" not in summary  # the oldest facts went first
    assert "Dana Moreau" in summary and "Porto" in summary  # mentioned again recently


def test_refresh_rebuilds_the_summary_after_a_delete_redacted_the_archive_no_model(archive):
    c = Compactor(chars, archive=archive)
    c.compact("s10", conversation(12), target_tokens=0)
    assert "Marc Dubois" in load_state(archive, "s10").summary
    gone = "My colleague Marc Dubois covered my shift on 2024-05-03."
    archive._store.write(lambda c: c.execute("UPDATE context_history SET content = '', raw = '' WHERE content = ?", (gone,)))
    state = c.refresh("s10")
    assert "Marc Dubois" not in state.summary and "2024-05-03" not in state.summary
    assert "Dana Moreau" in state.summary and state.covered_up_to == load_state(archive, "s10").covered_up_to


def test_maintain_compacts_after_a_reply_off_the_hot_path_fake_model(bus, archive):
    class Model(RecordingModel):
        def count_tokens(self, text):
            return chars(text)

    ctx = SessionContext("m1", Model(), archive=archive, window=2048, summarize=False)
    assert ctx.maintain() is None  # nothing due
    ctx.history = conversation(40, talk=[t + " " + "padding words " * 12 for t in TALK])
    result = ctx.maintain(warm=False)
    assert result is not None and "summary" in result.steps and bus[-1].summarized
    assert not ctx.prepare("next").needs_compaction  # the next turn starts compacted
