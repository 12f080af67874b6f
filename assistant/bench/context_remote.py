"""`keepsake bench context --engine-url URL`: prefix reuse through a model server.

The same scripted turns as the local benchmark, sent the way a chat session sends them
(:class:`~assistant.bench.context.CompactingSide`: memory block in the current user turn,
history appended as sent, compaction between turns) to an OpenAI-compatible server. A server
has one prompt cache, so the naive assembler (memory block in the system prompt) runs *after*
Keepsake's turns on the same server, not interleaved.

Per turn: prompt tokens, prompt tokens evaluated and where that count comes from
(``evaluated_source``): ``server`` when the server reports it (llama-server's
``timings.prompt_n``, or ``usage.prompt_tokens_details.cached_tokens``), ``predicted`` when it
does not (llama_cpp.server, Ollama: :mod:`assistant.engine.server.prefix_ledger`'s prediction). Since a
prediction is not a measurement, the reuse is also **measured** by time to first token:
    control = median over ``--controls`` runs of: a cache-busting request (another system
              prompt, 1 token), then the last turn's exact messages again (1 token) -> cold TTFT
    warm/cold = the last turn's TTFT in the conversation / the cold TTFT of the same prompt

A warm/cold ratio well under 1 shows the server reused the prefix (it evaluated only the new
tokens); about 1 shows it re-evaluated everything. Wall-clock TTFT includes the network.
"""

from __future__ import annotations

import statistics
import tempfile
import uuid

from assistant.bench import keepsake_home
from assistant.bench.context import CompactingSide, NaiveSide, _configured_window
from assistant.engine.server import api_key
from assistant.engine.chat import ChatMessage
from assistant.engine.server.model import OpenAIChatModel
from assistant.services import database_key_reader


def _remote_model(args, n_ctx: int):
    model = OpenAIChatModel(args.engine_url, model=getattr(args, "engine_model", None), api_key=api_key.load(args.engine_url, args.services.profile.paths, secret=database_key_reader(args.services.profile)),
                            n_ctx=n_ctx)  # fmt: skip
    model.connect()
    return model


def cold_ttft(model, messages: list[ChatMessage], runs: int) -> float:
    """Median TTFT of ``messages`` right after a request that shares no prefix with them."""
    times = []
    for _ in range(max(1, runs)):
        model.complete([ChatMessage("system", f"Cache buster {uuid.uuid4().hex}."), ChatMessage("user", "Hi")], max_tokens=1, temperature=0.0)
        _, stats = model.complete(messages, max_tokens=1, temperature=0.0)
        times.append(stats.ttft_ms)
    return round(statistics.median(times), 2)


def run(args) -> dict:
    window = getattr(args, "window", None) or _configured_window(args)
    model = _remote_model(args, window)
    window = min(window, model.context_size)
    with tempfile.TemporaryDirectory() as home, keepsake_home(home):
        ks = CompactingSide(model, window)
        keepsake = [ks.turn(t, args.max_tokens) for t in range(1, args.turns + 1)]
        cold = cold_ttft(model, ks.last_messages, getattr(args, "controls", 3))
        nv = NaiveSide(model)
        naive = [nv.turn(t, args.max_tokens) for t in range(1, args.turns + 1)]
    rows = []
    for i, (k, n) in enumerate(zip(keepsake, naive), start=1):
        new = k["prompt_tokens"] - (keepsake[i - 2]["prompt_tokens"] if i > 1 else 0)
        rows.append({"turn": i, "new_tokens": new, "keepsake_prompt_tokens": k["prompt_tokens"], "keepsake_evaluated": k["evaluated"],
                     "keepsake_ttft_ms": k["ttft_ms"], "naive_prompt_tokens": n["prompt_tokens"], "naive_evaluated": n["evaluated"],
                     "naive_ttft_ms": n["ttft_ms"], "evaluated_source": k["evaluated_source"],
                     "compacted": k.get("compacted", False)})  # fmt: skip
    last, second = rows[-1], rows[min(1, len(rows) - 1)]
    return {
        "engine": "openai",
        "url": model.url,
        "model": model.model_id,
        "token_counting": model.token_counting.to_json(),
        "window": window,
        "max_tokens": args.max_tokens,
        "compactions": sum(1 for k in keepsake if k.get("compacted")),
        "evaluated_source": last["evaluated_source"],
        "turns": rows,
        "control": {"last_turn_prompt_tokens": last["keepsake_prompt_tokens"], "last_turn_ttft_ms": last["keepsake_ttft_ms"],
                    "cold_ttft_ms": cold, "warm_over_cold": round(last["keepsake_ttft_ms"] / max(1e-9, cold), 3)},  # fmt: skip
        "targets": {
            "evaluated_over_new_at_last_turn": round(last["keepsake_evaluated"] / max(1, last["new_tokens"]), 3),
            "ttft_last_over_turn2": round(last["keepsake_ttft_ms"] / max(1e-9, second["keepsake_ttft_ms"]), 3),
            "naive_ttft_last_over_turn2": round(last["naive_ttft_ms"] / max(1e-9, second["naive_ttft_ms"]), 3),
        },
    }


def format_text(result: dict) -> str:
    src = result["evaluated_source"]
    lines = [f"model {result['model']} on {result['url']}, window {result['window']}, replies capped at {result['max_tokens']} tokens; "
             f"tokens counted with {result['token_counting']['detail']}; evaluated counts: "
             + ("reported by the server" if src == "server" else "PREDICTED (the server reports none; see the TTFT control)"),
             f"{'turn':>4} {'new':>5} | {'keepsake eval':>13} {'ttft ms':>8} | {'naive eval':>10} {'ttft ms':>8}"]  # fmt: skip
    for r in result["turns"]:
        lines.append(f"{r['turn']:>4} {r['new_tokens']:>5} | {r['keepsake_evaluated']:>13} {r['keepsake_ttft_ms']:>8.1f} | "
                     f"{r['naive_evaluated']:>10} {r['naive_ttft_ms']:>8.1f}" + ("  compacted after it" if r["compacted"] else ""))  # fmt: skip
    c, t = result["control"], result["targets"]
    lines += [
        f"measured reuse at the last turn ({c['last_turn_prompt_tokens']} prompt tokens): TTFT {c['last_turn_ttft_ms']} ms in the "
        f"conversation vs {c['cold_ttft_ms']} ms for the same prompt after a cache bust -> warm/cold {c['warm_over_cold']}",
        f"last turn evaluated / new tokens: {t['evaluated_over_new_at_last_turn']}; TTFT last / turn 2: {t['ttft_last_over_turn2']} "
        f"(naive: {t['naive_ttft_last_over_turn2']})",
    ]
    return "\n".join(lines)
