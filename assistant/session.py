"""One chat turn end to end: store the message -> retrieve -> assemble -> generate (guarded) ->
settle the reply against the memory answer -> log -> capture.

The CLI and the UI both drive a :class:`ChatSession`; the UI calls :meth:`ChatSession.stream`
from a worker thread (the store gives every thread its own connection).
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Iterator

from assistant import answering, events
from assistant.config import Settings
from assistant.context.window import SessionContext
from assistant.engine.errors import EngineError
from assistant.engine.guard import ReplyGuard, guard_generation
from assistant.memory.retrieval import answer as memanswer
from assistant.memory.capture import commands
from assistant.memory.retrieval import inject
from assistant.memory.retrieval.general_shapes import ask_first
from assistant.memory.errors import NotFound
from assistant.memory.forget import topic
from assistant.memory.wording import found_phrase
from assistant.memory.retrieval.inject import DEFAULT_LAYOUT
from assistant.memory.records import Role
from assistant.session_history import answered_history
from assistant.turn import EmptyMessage, NothingToRetry, TurnResult, injected, title_from

#: A message longer than this is stored whole but only its head and tail reach the model.
MAX_INPUT_CHARS = 200_000
DEFAULT_TEMPERATURE = 0.2


class ChatSession:
    """A conversation bound to a stored session, a chat model and the memory services."""

    def __init__(self, store, model, session_id: int, *, settings: Settings,
                 retriever=None, capture=None, context=None) -> None:
        self.store = store
        self.model = model
        self.session_id = session_id
        self.settings = settings
        self.retriever = retriever
        self.capture = capture
        self._context = context
        self._lock = threading.Lock()
        self.layout = DEFAULT_LAYOUT  # how the memory answer is put next to the question (inject.LAYOUTS)
        self.last_turn: TurnResult | None = None
        self._stale = False
        self._generation: int | None = None  # the store's forget_generation when the context was built
        # After a delete, the history as sent may quote deleted text: rebuild it from the store.
        self._unsubscribe = events.subscribe("memory_deleted", lambda _report: self._drop_context())

    def _drop_context(self) -> None:
        self._stale = True  # applied at the start of the next turn, never mid-turn

    # -- construction ----------------------------------------------------------------------------
    @classmethod
    def open(cls, services, session_id: int | str | None = None, *, model: str | None = None, incognito: bool | None = None,
             store=None, chat_model=None, retriever=None, capture=None, settings: Settings | None = None) -> "ChatSession":
        """Open (or create) a session with ``services`` (:class:`assistant.services.Services`),
        the parts not given made by them; ``settings`` default to the services' profile's.
        ``incognito=True`` creates or marks the session incognito: nothing from it is captured."""
        settings = settings or services.settings
        store = store or services.open_store()
        chat_model = chat_model or services.chat_model(model=model, settings=settings)
        if session_id is None:
            sid = store.create_session(title="", incognito=bool(incognito or settings.incognito)).id
        else:
            sid = _parse_session_id(session_id)
            store.get_session(sid)  # NotFound -> clear error
        if incognito is not None and store.get_session(sid).incognito != incognito:
            store.set_session_incognito(sid, incognito)
        if retriever is None:
            retriever = services.retriever(store)
        if capture is None:
            capture = services.capture_queue(store, chat_model)
        return cls(store, chat_model, sid, settings=settings, retriever=retriever, capture=capture)

    @property
    def incognito(self) -> bool:
        return self.store.get_session(self.session_id).incognito

    def set_incognito(self, value: bool) -> None:
        self.store.set_session_incognito(self.session_id, value)

    @property
    def context(self):
        """The session's short-term memory (history as sent, compaction state), built lazily."""
        if self._context is None:
            self._generation = self.store.forget_generation()
            # A model server keeps its prompt cache across restarts: rebuild the turns as they were
            # sent (memory blocks included) so the next request shares its prefix.
            as_sent = getattr(self.model, "engine", "") == "openai"
            stored = answered_history(self.store, self.session_id, count_tokens=self.model.count_tokens if as_sent else None,
                                      clip=_clip_for_model)  # fmt: skip
            window = min(self.settings.context_size, int(getattr(self.model, "context_size", self.settings.context_size)))
            self._context = SessionContext(self.session_id, self.model, archive=self.store.context_archive,
                                           window=window, messages=stored)
        return self._context

    def _forgotten_since(self) -> bool:
        """Something was deleted since the context was built (this or another process): the
        history as sent may quote it, so the context is rebuilt from the (redacted) store."""
        return self._stale or (self._context is not None and self.store.forget_generation() != self._generation)

    # -- one turn --------------------------------------------------------------------------------
    def stream(self, text: str, *, cancel: threading.Event | None = None, max_tokens: int = 512,
               temperature: float = DEFAULT_TEMPERATURE) -> Iterator[str]:
        """Run one turn, yielding reply pieces; :attr:`last_turn` holds the full result after."""
        if not isinstance(text, str) or not text.strip():
            raise EmptyMessage("empty message")
        with self._lock:
            yield from self._turn(text, cancel, max_tokens, temperature)

    def send(self, text: str, **kw) -> TurnResult:
        for _ in self.stream(text, **kw):
            pass
        assert self.last_turn is not None
        return self.last_turn

    def unanswered(self):
        """The session's last message when it is the person's and got no reply (the model
        failed: server down, timeout...), else None."""
        last = self.store.messages(self.session_id)[-1:]
        return last[0] if last and last[0].role == Role.USER else None

    def retry(self, *, cancel: threading.Event | None = None, max_tokens: int = 512,
              temperature: float = DEFAULT_TEMPERATURE) -> Iterator[str]:
        """Run the turn again for the message that got no reply (it is stored already and is
        not stored twice), yielding reply pieces. Raises :class:`NothingToRetry` when the last
        message has its reply."""
        with self._lock:
            message = self.unanswered()
            if message is None:
                raise NothingToRetry("the last message already has a reply: nothing to retry")
            yield from self._turn(message.content, cancel, max_tokens, temperature, user_msg=message)

    def _turn(self, text, cancel, max_tokens, temperature, user_msg=None) -> Iterator[str]:
        if self._forgotten_since():
            self._context, self._stale = None, False
        _ = self.context  # built from the history as stored BEFORE this message: it is sent once, as this turn
        # The person's message is stored before anything can fail: a failed turn loses nothing.
        retried = user_msg is not None
        user_msg = user_msg or self.store.add_message(self.session_id, Role.USER, text)
        self._name_session(user_msg.content)
        turn = TurnResult(session_id=self.session_id, turn_id=uuid.uuid4().hex, user_message_id=user_msg.id,
                          engine=getattr(self.model, "engine", "llama.cpp"))
        self.last_turn = turn
        try:
            yield from self._reply(turn, text, user_msg, cancel, max_tokens, temperature, capture=not retried)
        except Exception:
            # The model failed (server down, timeout, ...): no reply is stored, so the message
            # stays unanswered and retry() runs this turn again. What the person said is
            # remembered all the same.
            if not retried and not turn.captured:
                self._capture(turn, user_msg)
            raise

    def _reply(self, turn: TurnResult, text, user_msg, cancel, max_tokens, temperature, *, capture: bool) -> Iterator[str]:
        """Retrieve, assemble, generate through the reply guard, settle the reply against the
        memory answer; store it (also when the consumer stopped it)."""
        model_text = _clip_for_model(text)
        memory_on = self.settings.memory_enabled
        ack = self._command(model_text, turn) if memory_on else None
        if ack is not None:  # remember/forget: carried out and confirmed by code, no model turn
            assembled = self.context.prepare(model_text, max_output_tokens=max_tokens)
            turn.budget, turn.reply = assembled.to_json(), ack
            try:
                yield ack
            finally:
                self._finish(turn, assembled, model_text, user_msg, [], capture=capture)
            return
        block_text, hits, answer = None, [], None
        if memory_on and self.retriever is not None:
            # what is asked: "Is there any medicine I can't take? The pharmacist asked me today ..." looks for the question
            found = self.retriever.search(ask_first(model_text), k=memanswer.POOL, include_rejected=True)  # below the threshold: answer forms may still match
            block = inject.format_block(found, count_tokens=self.model.count_tokens)
            block_text, hits = block.text, block.hits
            answer = memanswer.choose(model_text, found, getattr(self.retriever, "matcher", None))
        user_input = inject.with_lead(model_text, answer, self.layout)
        assembled = self.context.prepare(user_input, memories_block=block_text, max_output_tokens=max_tokens)
        turn.budget = {**assembled.to_json(), "token_counting": _counting(self.model)}
        guard = ReplyGuard(answering.guard_config(self.context.assembler.system_prompt))
        gen = guard_generation(self.model.generate(assembled.messages, max_tokens=max_tokens, temperature=temperature,
                                                   cancel=cancel), guard)  # fmt: skip
        turn.model = str(getattr(self.model, "model_id", "") or self.model.name)  # a server's model is known once connected
        try:
            yield from gen
        except EngineError as exc:
            if exc.kind == "timeout" and gen.text.strip():  # a stalled or endless reply: what arrived is kept
                self._settle(turn, gen, guard, model_text, answer, hits, correct=False)
                self._finish(turn, assembled, model_text, user_msg, hits, capture=capture)
                turn.notices.append(f"The reply was cut off: {exc}")
                raise
            turn.reply, turn.stats = gen.text, gen.stats  # the model failed: no reply is stored (the message stays unanswered)
            raise
        except Exception:  # the model failed: no reply is stored (the caller keeps the message unanswered)
            turn.reply, turn.stats = gen.text, gen.stats
            raise
        except BaseException:  # the consumer stopped (Ctrl-C, closed): keep what arrived
            self._settle(turn, gen, guard, model_text, answer, hits, correct=False)
            self._finish(turn, assembled, model_text, user_msg, hits, capture=capture)
            raise
        # a reply the person stopped is left as it is (only the memory answer is added)
        self._settle(turn, gen, guard, model_text, answer, hits, correct=gen.stats.finish_reason != "cancelled")
        self._finish(turn, assembled, model_text, user_msg, hits, capture=capture)

    def _settle(self, turn: TurnResult, gen, guard, model_text: str, answer, hits, *, correct: bool) -> None:
        """The reply the person gets: the guarded model text, checked against the memory answer."""
        turn.stats = gen.stats
        turn.guard = {"stop_reason": guard.stop_reason, "cuts": [{"reason": c.reason, "text": c.text} for c in guard.cuts]}
        settled = answering.settle(model_text, gen.text, answer, hits, correct=correct,
                                   memory_on=self.settings.memory_enabled and self.retriever is not None,
                                   earlier=answering.earlier_replies(self.context.history, model_text),
                                   matcher=getattr(self.retriever, "matcher", None))
        turn.reply, turn.memory_answer = settled.reply, settled.memory_answer
        turn.correction, turn.model_reply = settled.correction, settled.model_reply

    def _name_session(self, first_message: str) -> None:
        """An untitled conversation is named after its first message (in the app and the CLI)."""
        if not self.store.get_session(self.session_id).title:
            self.store.rename_session(self.session_id, title_from(first_message))

    def _capture(self, turn: TurnResult, user_msg) -> None:
        if self.capture is not None and self.settings.memory_enabled and not self.incognito:
            self.capture.submit(user_msg.id)
            turn.captured = True

    def _finish(self, turn: TurnResult, assembled, model_text: str, user_msg, hits, *, capture: bool = True) -> None:
        """Store the reply, record the turn in the context, log the injected memories and (unless
        this was a retry: the message was captured when it failed) capture the message."""
        reply_msg = self.store.add_message(self.session_id, Role.ASSISTANT, turn.reply or "")
        turn.assistant_message_id = reply_msg.id
        # what the person was shown (guarded, corrected) is what the next turn sees as history,
        # except a refusal: it would teach the model to refuse what memory answers (issue 28.5)
        seen = answering.for_history(turn.reply or "", turn.correction, turn.memory_answer)
        if seen is not None:
            self.context.record(assembled, model_text, seen, user_id=user_msg.id, reply_id=reply_msg.id)
        if hits or turn.memory_answer:
            inject.log_injection(self.store, turn.turn_id, self.session_id, user_msg.id, hits, memory_answer=turn.memory_answer)
            turn.injected_memories = [injected(h) for h in hits]
        if capture:
            self._capture(turn, user_msg)

    def maintain(self, *, max_tokens: int = 512):
        """Between turns (after a reply, while the person reads): compact the context now if it
        reached the compaction threshold, and evaluate the new prefix once, so the next turn
        neither compacts nor re-evaluates the prefix on the person's time. Returns the
        :class:`~assistant.context.compaction.CompactionResult`, or None when nothing was due.
        Waits for a running turn (same lock); a no-op before the first turn."""
        with self._lock:
            if self._context is None or self._forgotten_since():
                return None
            return self._context.maintain(max_output_tokens=max_tokens)

    def _command(self, text: str, turn: TurnResult) -> str | None:
        """Explicit "remember that ..." / "forget ..." commands, carried out and confirmed by
        code: ``turn.notices`` says what happened ("Saved to memory: ..."), the returned text is
        the reply (None: not a command). Forget never deletes here: it lists candidates for the
        person to confirm (UI dialog / CLI prompt)."""

        cmd = commands.parse_command(text)
        if cmd is None:
            return None
        if cmd.kind == "remember":
            if self.incognito:
                turn.notices.append("Not saved: this conversation is incognito, so nothing is remembered.")
                return "This conversation is incognito, so I won't remember that."
            message = self.store.get_message(turn.user_message_id)
            result = commands.remember(self.store, cmd, message=message)
            turn.remembered = [result.id]
            saved = self.store.get(result.id).text
            notice = f"Saved to memory: {saved}" if result.created else f"Already in memory: {saved}"
            turn.notices.append(notice)
            turn.notice_ids[notice] = [result.id]
            return "Okay, I'll remember that."
        found = topic.propose(self.store, self.retriever, cmd.text)
        turn.forget_candidates = [c.to_json() for c in found]
        turn.forget_query = cmd.text
        ticked = sum(1 for c in found if c.pre_ticked)
        if not ticked:
            turn.notices.append(f"No memory about \u201c{cmd.text}\u201d was found; nothing was forgotten."
                                + (f" ({len(found)} loosely related, not selected.)" if found else ""))  # fmt: skip
            return "I couldn't find a memory about that."
        turn.notices.append(f"Found {found_phrase(turn.forget_candidates)} about \u201c{cmd.text}\u201d. "
                            "Nothing is forgotten until you confirm.")  # fmt: skip
        return "Here is what I found; nothing is deleted until you confirm."

    def note_saved(self, turn: TurnResult, *, timeout: float = 120, hint: bool = True) -> list[dict[str, Any]]:
        """Wait for the capture of ``turn``'s message; ``turn.saved`` and a "Saved: ..." notice say what it kept."""
        from assistant.memory.capture.saved import note

        return note(self.store, self.capture, turn, timeout=timeout, hint=hint)

    def close(self, *, flush_capture: bool = True) -> None:
        """The session is done: it stops listening to the event bus (its history as sent is
        freed with it) and, with ``flush_capture``, waits for its messages' capture (a process
        about to exit). Idempotent."""
        self._unsubscribe()
        if flush_capture and self.capture is not None:
            self.capture.flush(timeout=120)


def _counting(model) -> dict[str, Any]:
    """How the model counts tokens (the budget bar says it): its tokenizer, the server's, or an estimate."""
    counting = getattr(model, "token_counting", None)
    return counting.to_json() if counting is not None else {"method": "model", "detail": "the model's tokenizer", "exact": True}


def _clip_for_model(text: str) -> str:
    """Huge pastes are stored whole; the model sees head and tail with a marker between."""
    if len(text) <= MAX_INPUT_CHARS:
        return text
    half = MAX_INPUT_CHARS // 2
    return f"{text[:half]}\n[... {len(text) - MAX_INPUT_CHARS} characters omitted ...]\n{text[-half:]}"


def _parse_session_id(value: int | str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise NotFound(f"no session with id {value!r}") from None
