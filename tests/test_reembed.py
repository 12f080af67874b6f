"""Switching the embedder (assistant/reembed.py, memory/store/reindex.py): every memory is
re-embedded into a new index beside the old one, switched in one transaction; cancel, an error
or a kill mid-way leaves the old index and embedder in use, and the partial index is dropped by
the next open. Real MiniLM, real SQLCipher + sqlite-vec.

"Another embedder" is the real MiniLM GGUF with 32 zero bytes appended: a different file
identity (its size differs) that llama.cpp loads as the same model, so searches work before and
after. The dimension-mismatch logic uses a fake 8-d embedder (named in the test)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

import pytest

from assistant import reembed
from assistant.cli import main
from assistant.engine import embedder_id
from assistant.memory.errors import EmbedderMismatchError
from assistant.memory.store import reindex, vector_index

FACTS = [
    "My sister Anna lives in Lisbon.",
    "I am allergic to peanuts.",
    "My bike is a green Gazelle from 2015.",
    "The dentist appointment is on the 14th of March.",
    "I work as a nurse at the Sint Lucas hospital.",
] + [f"Note {i}: the plant on shelf {i} needs water every {i + 2} days." for i in range(19)]  # 24 memories


@pytest.fixture
def other_minilm(converted_embedder_path, keepsake_home):
    """The real MiniLM under another file identity (32 trailing bytes; same vectors)."""
    path = keepsake_home / "data" / "models" / "minilm-other.gguf"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(converted_embedder_path, path)
    with open(path, "ab") as fh:
        fh.write(b"\0" * 32)
    return path


@pytest.fixture
def filled(services):
    store = services.open_store()
    ids = [store.add(t) for t in FACTS]
    store.close()
    return ids


def vectors(services) -> dict[int, bytes]:
    store = services.open_store(with_embedder=False)
    try:
        return dict(store.read(lambda c: c.execute("SELECT rowid, embedding FROM memory_vec").fetchall()))
    finally:
        store.close()


def top_text(services, query: str) -> str:
    store = services.open_store()
    try:
        return services.retriever(store).search(query, k=1)[0].memory.text
    finally:
        store.close()


def meta(services) -> vector_index.IndexIdentity:
    store = services.open_store(with_embedder=False)
    try:
        assert not store.read(vector_index.has_partial)
        return store.read(vector_index.read_identity)
    finally:
        store.close()


def test_switch_re_embeds_every_memory_then_uses_the_new_embedder(services, filled, other_minilm):
    before = meta(services)
    assert before.fingerprint == embedder_id.identify(services.embedder_path()).fingerprint  # recorded on first open
    seen = []
    plan = reembed.plan_switch(services, str(other_minilm))
    result = reembed.switch_embedder(services, plan, progress=seen.append, batch=16)
    # 24 memories in batches of 16: 0, 16, 24, then the final count
    assert [p.done for p in seen] == [0, 16, 24, 24] and {p.total for p in seen} == {24}
    assert result.reembedded and result.memories == 24 and result.embedded == 24 and result.dim == 384
    after = meta(services)
    assert after.fingerprint == embedder_id.identify(other_minilm).fingerprint != before.fingerprint
    assert after.generation == before.generation + 1 and not after.pending
    assert services.settings.embed_model == str(other_minilm.resolve())
    assert sorted(vectors(services)) == sorted(filled)
    assert top_text(services, "Where does my sister live?") == FACTS[0]
    # the same embedder again: nothing to re-embed
    again = reembed.switch_embedder(services, plan)
    assert not again.reembedded and again.embedded == 0


def test_cancel_after_the_first_batch_keeps_the_old_index(services, filled, other_minilm):
    old, before = vectors(services), meta(services)
    cancel = threading.Event()

    def progress(p):
        if p.done >= 8:
            cancel.set()  # after the first batch of 8

    with pytest.raises(reindex.ReindexCancelled):
        reembed.switch_embedder(services, reembed.plan_switch(services, str(other_minilm)), progress=progress,
                                cancel=cancel, batch=8)  # fmt: skip
    assert vectors(services) == old and meta(services) == before  # no partial table either
    assert services.settings.embed_model == "default"
    assert top_text(services, "What am I allergic to?") == FACTS[1]


def test_an_error_mid_way_keeps_the_old_index(services, filled, other_minilm):
    old = vectors(services)

    def progress(p):
        if p.done >= 8:
            raise RuntimeError("disk unplugged")

    with pytest.raises(RuntimeError):
        reembed.switch_embedder(services, reembed.plan_switch(services, str(other_minilm)), progress=progress, batch=8)
    assert vectors(services) == old and services.settings.embed_model == "default"


KILLED = r"""
import os, signal, sys
from assistant import reembed
from assistant.profile import Profile
from assistant.services import Services
import keyring
sys.path.insert(0, "tests")
from conftest import MemoryKeyring
keyring.set_keyring(MemoryKeyring())
keyring.get_keyring().secrets.update(__SECRETS__)
services = Services(Profile.load(os.environ["KEEPSAKE_HOME"]))
def progress(p):
    if p.done >= 8:
        os.kill(os.getpid(), signal.SIGKILL)  # killed mid-way, holding the rebuild lock
reembed.switch_embedder(services, reembed.plan_switch(services, sys.argv[1]), progress=progress, batch=8)
"""


def test_a_kill_mid_way_is_cleaned_up_by_the_next_open(services, filled, other_minilm, keepsake_home):
    import keyring

    old = vectors(services)
    code = KILLED.replace("__SECRETS__", repr(keyring.get_keyring().secrets))
    proc = subprocess.run([sys.executable, "-c", code, str(other_minilm)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "KEEPSAKE_HOME": str(keepsake_home)})  # fmt: skip
    assert proc.returncode == -9, proc.stderr
    from assistant.memory.store.facade import MemoryStore

    raw = MemoryStore(keepsake_home / "data" / "keepsake.db", key=services.profile.key.key)
    assert raw.read(vector_index.has_partial)  # the killed run's 8 vectors are still there...
    assert raw.read(lambda c: c.execute(f"SELECT count(*) FROM {vector_index.NEXT_SRC}").fetchone()[0]) == 8
    raw.close()
    assert vectors(services) == old  # ...until the next open drops them (meta() checks), old index intact
    assert meta(services).fingerprint == embedder_id.identify(services.embedder_path()).fingerprint
    assert services.settings.embed_model == "default"
    assert top_text(services, "What bike do I have?") == FACTS[2]


def test_a_stop_between_the_switch_and_the_settings_is_finished_on_open(services, filled, other_minilm):
    ident = embedder_id.identify(other_minilm)
    store = services.open_store(with_embedder=False)
    target = reindex.NewIndex(ident.fingerprint, ident.name, str(other_minilm), ident.dim)
    reindex.rebuild(store, services.embedder(other_minilm).embed, target)  # committed; settings never saved
    store.close()
    assert services.settings.embed_model == "default"
    store = services.open_store()  # finds the pending switch and completes it
    assert services.settings.embed_model == str(other_minilm)
    assert not store.read(vector_index.read_identity).pending
    store.close()
    assert top_text(services, "Where does my sister live?") == FACTS[0]


def test_an_index_made_by_another_embedder_is_refused_on_open_fake_embedder(services, filled):
    def fake_embed(texts):  # a fake 8-d embedder: the logic does not depend on the model
        return [[1.0] + [0.0] * 7 for _ in texts]

    plan = reembed.SwitchPlan("/nowhere/fake-8d.gguf", services.embedder_path(),
                              embedder_id.EmbedderIdentity("fake-8d", "f" * 32, 8), None)  # fmt: skip
    reembed.switch_embedder(services, plan, embed=fake_embed)
    assert meta(services).dim == 8
    services.save_settings(services.settings.__class__(**{**services.settings.__dict__, "embed_model": "default"}))
    with pytest.raises(EmbedderMismatchError) as err:
        services.open_store()
    message = str(err.value)
    assert "made by fake-8d (8 dimensions)" in message and "all-MiniLM-L6-v2 (384 dimensions)" in message
    assert "keepsake models use minilm --embedder" in message  # re-embed with the configured one...
    assert "keepsake models use /nowhere/fake-8d.gguf --embedder" in message  # ...or go back
    store = services.open_store(with_embedder=False)  # listing still works
    assert len(store.read(lambda c: c.execute("SELECT id FROM memories").fetchall())) == 24
    with pytest.raises(EmbedderMismatchError):  # a search with the configured embedder is refused too
        services.retriever(store)
    store.close()


def test_cli_use_embedder_json_and_a_missing_download(services, filled, other_minilm, capsys):
    assert main(["models", "use", str(other_minilm), "--embedder", "--quiet", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["memories"] == 24 and out["reembedded"] is True and out["embed_model"] == str(other_minilm.resolve())
    assert main(["models", "use", "embeddinggemma-300m"]) != 0
    assert "keepsake models download embeddinggemma-300m" in capsys.readouterr().err


CTRL_C = r"""
import os, signal, sys, time
import keyring
sys.path.insert(0, "tests")
from conftest import MemoryKeyring
keyring.set_keyring(MemoryKeyring())
keyring.get_keyring().secrets.update(__SECRETS__)
from assistant.cli import embedder_use, main
shown = embedder_use._Progress.__call__
def progress(self, p):
    shown(self, p)
    if p.done >= 16:  # the person presses Ctrl-C after the first batch (32 a batch: all 24, before the switch)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)  # the main thread takes the signal and sets cancel before the next batch
embedder_use._Progress.__call__ = progress
sys.exit(main(["models", "use", sys.argv[1], "--embedder", "--json"]))
"""


def test_cli_ctrl_c_cancels_and_keeps_the_old_index(services, filled, other_minilm, keepsake_home):
    import keyring
    import signal

    old = vectors(services)
    code = CTRL_C.replace("__SECRETS__", repr(keyring.get_keyring().secrets))
    proc = subprocess.run([sys.executable, "-c", code, str(other_minilm)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "KEEPSAKE_HOME": str(keepsake_home)},
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    assert proc.returncode == 130, proc.stderr
    assert "cancelled" in proc.stderr and "old index is kept" in proc.stderr and proc.stdout == ""
    assert vectors(services) == old and meta(services).fingerprint == embedder_id.identify(services.embedder_path()).fingerprint
    from assistant.profile import Profile

    assert Profile.load(keepsake_home).settings.embed_model == "default"


def test_a_store_opened_before_the_switch_never_mixes_and_its_writes_are_embedded_later(services, filled, other_minilm):
    from assistant.memory.errors import StoreError
    from assistant.memory.retrieval.retriever import Retriever

    stale = services.open_store()  # another process's view: MiniLM, the index before the switch
    reembed.switch_embedder(services, reembed.plan_switch(services, str(other_minilm)))
    mid = stale.add("My neighbour Pieter repairs bicycles on Saturdays.")
    assert mid not in vectors(services)  # no vector of the old model in the new index
    with pytest.raises(StoreError, match="rebuilt with another embedder"):
        Retriever(stale, services.embedder().embed).search("Who repairs bicycles?", k=1)
    stale.close()
    services.open_store().close()  # the next open with the new embedder embeds what was left
    assert mid in vectors(services)
    assert top_text(services, "Who repairs bicycles?") == "My neighbour Pieter repairs bicycles on Saturdays."
