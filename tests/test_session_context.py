"""A chat session's short-term memory between turns, with the REAL SmolLM2 and a real store.

``ChatSession.maintain()`` (run by the app and the interactive CLI after each reply) compacts
the context when it reached the compaction threshold and evaluates the new prefix once, so the
person's next turn neither compacts nor re-evaluates the prefix. A 1024-token window makes the
threshold come quickly: 1024 - floor(1024 * 0.2) = 1024 - 204 = 820 tokens.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import pytest

from assistant.config import Settings, paths, save_settings
from assistant.profile import Profile
from assistant.services import Services
from assistant.session import ChatSession

WINDOW = 1024
TALK = [
    "On Monday I started the new job at the library on Rue Garibaldi, my manager is Ines.",
    "On Tuesday I cycled to work for the first time, it took 25 minutes and it rained.",
    "In the evening my sister Lea called, she is moving to Porto in June with her partner Sam.",
    "Wednesday was calmer, I reorganised the children's section and found three books on octopuses.",
    "On Thursday we had a team meeting about the summer reading program, I run the July workshops.",
    "Thursday evening I went to my pottery class and made a small lopsided bowl.",
    "Friday I slept badly because of the neighbours' party, still I finished the inventory.",
    "After work I met my friend Tom near the river, he is training for the Lyon half marathon.",
    "Saturday I bought strawberries at the market and read a novel by Elena Ferrante.",
    "Sunday I called my parents, my dad's knee is better after the surgery in March.",
]


@pytest.fixture
def chat(keepsake_home):
    save_settings(replace(Settings(), context_size=WINDOW), paths())
    services = Services(Profile.load(keepsake_home))  # the profile as saved above
    store = services.open_store(with_embedder=False)
    sid = store.create_session(title="context").id
    # no retriever, no capture: this test is about the context only
    session = ChatSession(store, services.chat_model(), sid, settings=services.settings)
    yield session
    session.close()
    store.close()
    services.close()


def test_maintain_is_a_no_op_before_the_first_turn(chat):
    assert chat.maintain() is None


def test_maintain_compacts_between_turns_and_the_next_turn_reuses_the_warm_prefix(chat):
    assert chat.model.context_size == WINDOW
    results = []
    for text in TALK * 3:
        turn = chat.send(text, max_tokens=24, temperature=0.0)
        assert turn.stats.prompt_tokens < WINDOW
        results.append((turn, chat.maintain(max_tokens=24)))
        if results[-1][1] is not None and results[-1][1].changed:
            break
    compacted = [i for i, (_t, r) in enumerate(results) if r is not None and r.changed]
    assert compacted, [t.stats.prompt_tokens for t, _r in results]  # ~45 tokens a turn pass 820 within 30 turns
    state = chat.context.state
    assert state.covered_up_to is not None and state.summary  # the ladder reached the summary
    before = results[compacted[0]][0].stats.prompt_tokens
    nxt = chat.send("What should I focus on next week?", max_tokens=24, temperature=0.0)
    # the prefix changed at the compaction, but maintain() evaluated it already: this turn only
    # evaluates its own new tokens (plus the few template tokens after the cached prefix)
    new_tokens = nxt.stats.prompt_tokens - chat.model.count_tokens(chat.context._assemble("").messages[0].content)
    assert nxt.stats.prompt_tokens < before  # compacted: shorter than before the compaction
    assert nxt.stats.prompt_tokens_evaluated < nxt.stats.prompt_tokens // 2, (nxt.stats, new_tokens)
    assert nxt.budget["budget"]["window"] == WINDOW


def test_services_close_frees_the_cached_models_and_the_process_exits_cleanly(services, converted_embedder_path):
    model = services.chat_model()
    model.load()
    assert model.loaded
    services.close()
    assert not model.loaded and services.chat_model() is not model  # freed, and reloads on use
    # The whole suite ended in a segfault at exit (llama.cpp's log callback called from Llama.__del__
    # during interpreter teardown) before the models were freed before exit; a small process did
    # not show it, so this only checks that a process closing its services exits cleanly.
    code = ("from assistant.profile import Profile\nfrom assistant.services import Services\n"
            "with Services(Profile.load()) as s:\n    m = s.chat_model(); m.load(); s.embedder().embed(['hello']); print('ok')")  # fmt: skip
    out = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], capture_output=True, text=True,
                         timeout=300, env=os.environ.copy())  # fmt: skip
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
