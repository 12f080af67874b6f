"""`keepsake memory list` lists what the Memory tab lists (trial finding: the window showed one row
per fact while the CLI listed each message's kept copy beside it, so the two counts differed).
The embedder is a fake: which kinds are listed does not depend on the model."""

from __future__ import annotations

import json

import pytest
from store_fakes import FakeEmbedder, run_cli

from assistant.services import Services


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    monkeypatch.setattr(Services, "embedder", lambda self: FakeEmbedder())


def test_memory_list_with_a_fake_embedder_lists_facts_and_messages_only_when_asked(capsys):
    assert run_cli(capsys, "memory", "add", "User works as a pharmacist.")[0] == 0
    assert run_cli(capsys, "memory", "add", "--kind", "episode", "I work as a pharmacist at the Boots in Leeds.")[0] == 0
    code, out, _ = run_cli(capsys, "memory", "list", "--json")
    assert code == 0 and [m["text"] for m in json.loads(out)] == ["User works as a pharmacist."]
    code, out, _ = run_cli(capsys, "memory", "list", "--kind", "episode", "--json")
    assert [m["text"] for m in json.loads(out)] == ["I work as a pharmacist at the Boots in Leeds."]


def test_memory_list_with_a_fake_embedder_says_how_to_see_the_messages_a_reply_may_cite(capsys):
    # trial finding: a reply's memory line cited "memory #7", a kept message the default list hides
    assert run_cli(capsys, "memory", "add", "User works as a pharmacist.")[0] == 0
    code, out, _ = run_cli(capsys, "memory", "list")
    assert code == 0 and "own messages" not in out  # none kept: nothing to point at
    assert run_cli(capsys, "memory", "add", "--kind", "episode", "I work as a pharmacist at the Boots in Leeds.")[0] == 0
    code, out, _ = run_cli(capsys, "memory", "list")
    assert "+ 1 of your own messages" in out and "keepsake memory list --kind episode" in out
    code, out, _ = run_cli(capsys, "memory", "list", "--kind", "episode")
    assert "own messages" not in out and "Boots in Leeds" in out
