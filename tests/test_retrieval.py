"""Retrieval mechanics (assistant.memory.retrieval.retriever, store.vecscan.cache, textmatch) on a real store.

Vectors come from a FAKE bag-of-words embedder or are set explicitly (``vector_at`` gives an
exact cosine to the query); quality with the real MiniLM is in test_retrieval_quality.py.
"""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from retrieval_fakes import FakeBowEmbedder, vector_at
from store_fakes import FakeClock, dt

from assistant.services import Services
from assistant.cli import main
from assistant.memory.retrieval import textmatch as tm
from assistant.memory.store.sqlite import fts
from assistant.memory.records import Kind, Source
from assistant.memory.retrieval.retriever import DEFAULT_THRESHOLD, RESCUE_MIN, Retriever
from assistant.memory.store.vecscan.cache import cache_for
from assistant.memory.retrieval.scoring import fuse
from assistant.memory.store.facade import MemoryStore


@pytest.fixture
def emb():
    return FakeBowEmbedder()


@pytest.fixture
def clock():
    return FakeClock(dt(2024, 6, 1, 12))


@pytest.fixture
def store(tmp_path, emb, clock):
    s = MemoryStore(tmp_path / "m.db", embed=emb.embed, clock=clock)
    yield s
    s.close()


def qvec(emb, text):
    return np.asarray(emb.embed([text])[0])


def ids(hits):
    return [h.memory.id for h in hits]


# -- candidates, threshold, fusion ------------------------------------------------------------


def test_keywords_never_rescue_a_semantically_unrelated_memory(store, emb):
    q = "pizza margherita recipe"
    near = store.add("A note about dinner", embedding=vector_at(qvec(emb, q), 0.80, 1))
    lexical = store.add("pizza margherita recipe pizza", embedding=vector_at(qvec(emb, q), 0.05, 2))
    r = Retriever(store, emb, threshold=0.3)
    assert ids(r.search(q)) == [near]
    every = {h.memory.id: h for h in r.search(q, include_rejected=True)}
    assert not every[lexical].passed_threshold
    assert every[lexical].signal("bm25").normalized > every[near].signal("bm25").normalized  # computed, did not rescue
    assert every[lexical].signal("semantic").raw == pytest.approx(0.05, abs=1e-5)


def test_candidates_come_only_from_the_semantic_top_n(store, emb):
    q = "violin lessons"
    qv = qvec(emb, q)
    ranked = [store.add(f"memory number {i}", embedding=vector_at(qv, 0.9 - 0.05 * i, i)) for i in range(10)]
    keyword_only = store.add("violin lessons violin lessons", embedding=vector_at(qv, 0.31, 99))
    r = Retriever(store, emb, threshold=0.3, min_candidates=5)  # n = max(4*1, 5) = 5
    got = r.search(q, k=1, include_rejected=True)
    assert ids(got) == [ranked[0]]
    wide = ids(r.search(q, k=3, include_rejected=True))  # n = max(12, 5): 11 candidates all fit
    assert keyword_only not in wide  # ranks 9th of 11 semantically; BM25 cannot lift it into the top 3


def test_threshold_is_applied_to_the_semantic_score_before_fusion(store, emb):
    q = "Lisbon apartment rent"
    qv = qvec(emb, q)
    # below RESCUE_MIN (0.2) nothing passes, whatever its words; "Lisbon" is in two memories of
    # three, so it is not a rare word either
    below = store.add("Lisbon apartment rent is 900 euros", entities=["Lisbon"], embedding=vector_at(qv, RESCUE_MIN - 0.01, 1))
    above = store.add("Something unrelated in words", embedding=vector_at(qv, DEFAULT_THRESHOLD + 0.01, 2))
    hits = Retriever(store, emb).search(q)
    assert ids(hits) == [above]
    rej = {h.memory.id: h for h in Retriever(store, emb).search(q, include_rejected=True)}
    assert rej[below].score > rej[above].score  # it would win after fusion, and still is out
    assert not rej[below].passed_threshold and "threshold" in rej[below].why_not


def test_a_rare_word_of_the_question_passes_a_statement_just_below_the_threshold(store, emb):
    q = "what am I saving for"
    qv = qvec(emb, q)
    for i in range(6):  # common words: in every memory
        store.add(f"I like the city {i}", embedding=vector_at(qv, 0.05, 10 + i))
    saving = store.add("I am saving for a deposit", embedding=vector_at(qv, RESCUE_MIN + 0.02, 1))
    unrelated = store.add("I like the sea", embedding=vector_at(qv, RESCUE_MIN + 0.03, 2))
    hits = Retriever(store, emb).search(q)
    assert ids(hits) == [saving]  # "saving" is in 1 memory of 8 (at most max(3, 2%) may have it)
    assert hits[0].signal("keyword") is not None
    rej = {h.memory.id: h for h in Retriever(store, emb).search(q, include_rejected=True)}
    assert not rej[unrelated].passed_threshold


def test_score_is_the_fusion_of_the_signals_present(store, emb):
    store.add("Maya adopted a grey cat named Pixel", entities=["Pixel"])
    store.add("Maya drinks black coffee")
    hits = Retriever(store, emb, threshold=0.0).search("what is Pixel the cat eating", k=5)
    assert hits
    for h in hits:
        names = [s.name for s in h.signals]
        assert names == ["semantic", "bm25", "entity"]  # entity present: the query names Pixel
        assert h.score == pytest.approx(fuse(h.signals).score)
    no_entity = Retriever(store, emb, threshold=0.0).search("black coffee", k=5)
    assert all([s.name for s in h.signals] == ["semantic", "bm25"] for h in no_entity)


def test_bm25_equals_fts5_bm25_for_the_candidates(store, emb):
    texts = ["Maya runs in Lisbon every morning", "Lisbon Lisbon trams and hills", "Coffee in Porto with Ada",
             "Maya and Ada run a half marathon", "The cello lesson is on Thursday"]  # fmt: skip
    for t in texts:
        store.add(t)
    r = Retriever(store, emb, threshold=-1.0)
    for q in ["Maya Lisbon", "run marathon with Ada", "cello", "trams hills Lisbon morning", "nothing matches"]:
        expr = fts.match_expression(q)
        scores = dict(store.conn.execute("SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ?", (expr,)).fetchall())
        for h in r.search(q, k=10):
            sig = h.signal("bm25")
            if h.memory.id in scores:
                assert sig.raw == pytest.approx(scores[h.memory.id], rel=1e-9, abs=1e-12)
            else:
                assert sig.normalized == 0.0


def test_entity_boost_damped_by_popularity(store, emb):
    q = "news about Benfica"
    qv = qvec(emb, q)
    rare = store.add("A match report", entities=["Benfica"], embedding=vector_at(qv, 0.6, 1))
    plain = store.add("Another match report", embedding=vector_at(qv, 0.6, 2))
    hits = {h.memory.id: h for h in Retriever(store, emb, threshold=0.3).search(q)}
    assert hits[rare].signal("entity").normalized == pytest.approx(1.0)
    assert hits[plain].signal("entity").normalized == 0.0
    assert hits[rare].score > hits[plain].score
    for i in range(40):  # make the entity popular: boost * 1/(1 + 0.001 * 40**2) = 1/2.6
        store.add(f"filler {i}", entities=["Benfica"], embedding=vector_at(qv, 0.1, 100 + i))
    hits = {h.memory.id: h for h in Retriever(store, emb, threshold=0.3).search(q)}
    assert hits[rare].signal("entity").normalized == pytest.approx(1 / (1 + 0.001 * 40**2), rel=1e-6)


def test_hit_json_is_the_memory_json_plus_score_and_signals(store, emb):
    mid = store.add("Maya plays the cello", source=Source(session_id=None, observed_at=dt(2023, 5, 1)))
    h = Retriever(store, emb).search("Maya plays the cello")[0]
    plain, explained = h.to_json(), h.to_json(explain=True)
    assert {k: v for k, v in plain.items() if k != "score"} == store.get(mid).to_json()
    assert plain["score"] == pytest.approx(h.score, abs=1e-6) and "signals" not in plain
    sig = explained["signals"][0]
    assert set(sig) == {"name", "raw", "normalized", "weight"} and sig["name"] == "semantic"
    assert explained["passed_threshold"] is True


# -- filters: time, status, deletion ----------------------------------------------------------


def test_invalidated_memory_only_comes_back_with_as_of_or_known_at(store, emb, clock):
    text = "Maya lives in Berlin"
    mid = store.add(text, valid_at=dt(2020, 1, 1))
    r = Retriever(store, emb)
    assert ids(r.search(text)) == [mid]
    clock.set(dt(2024, 7, 1))
    store.invalidate(mid, dt(2024, 6, 15))
    assert r.search(text) == []
    assert ids(r.search(text, as_of=dt(2022, 1, 1))) == [mid]
    assert ids(r.search(text, known_at=dt(2024, 6, 10))) == [mid]
    assert r.search(text, as_of=dt(2019, 1, 1)) == []  # not yet true then


def test_ttl_passed_memory_only_comes_back_with_known_at(store, emb, clock):
    text = "The door code is 4471"
    mid = store.add(text, ttl=timedelta(days=1))
    r = Retriever(store, emb)
    assert ids(r.search(text)) == [mid]
    clock.advance(days=2)
    assert r.search(text) == []  # same process, warm cache: the TTL boundary is crossed by the clock
    assert ids(r.search(text, known_at=dt(2024, 6, 1, 18))) == [mid]


def test_archived_only_with_include_archived(store, emb):
    mid = store.add("Maya collects stamps")
    store.archive(mid)
    r = Retriever(store, emb)
    assert r.search("Maya collects stamps") == []
    assert ids(r.search("Maya collects stamps", include_archived=True)) == [mid]


def test_known_at_returns_the_version_believed_then(store, emb, clock):
    mid = store.add("Maya works at Tidewater")
    clock.advance(days=30)
    store.edit(mid, "Maya works at Northwind Labs")
    r = Retriever(store, emb, threshold=0.2)
    now_hit = r.search("Maya works at Northwind Labs")[0]
    assert now_hit.memory.text == "Maya works at Northwind Labs"
    then = r.search("Maya works at Tidewater", known_at=dt(2024, 6, 10))
    assert [h.memory.text for h in then] == ["Maya works at Tidewater"]
    assert then[0].signal("semantic").raw == pytest.approx(1.0, abs=1e-5)  # scored on its own text


def test_deleted_memory_never_comes_back_even_from_a_warm_cache(store, emb, tmp_path):
    keep = store.add("Maya has a sister called Ada")
    gone = store.add("Maya has a secret diary")
    r = Retriever(store, emb, threshold=0.1)
    assert gone in ids(r.search("Maya has a secret diary"))
    cache = cache_for(store)
    assert gone in cache
    store.delete(gone)
    assert gone not in cache  # dropped by the on_delete hook, vector zeroed
    assert gone not in ids(r.search("Maya has a secret diary"))
    assert gone not in ids(r.search("Maya has a secret diary", include_archived=True, include_rejected=True, k=50))
    assert keep in ids(r.search("Maya has a sister called Ada"))


def test_deleted_by_another_connection_never_comes_back(store, emb, tmp_path):
    gone = store.add("Maya's bank PIN is 1234")
    r = Retriever(store, emb)
    assert ids(r.search("Maya's bank PIN is 1234")) == [gone]
    other = MemoryStore(store.path, embed=emb.embed)  # another process/app instance: no hook fires here
    other.delete(gone)
    other.close()
    assert r.search("Maya's bank PIN is 1234", include_rejected=True) == []
    assert gone not in cache_for(store)


def test_deleted_in_another_thread_never_comes_back(store, emb):
    gone = store.add("Maya hides a key under the mat")
    r = Retriever(store, emb)
    assert ids(r.search("Maya hides a key under the mat")) == [gone]
    t = threading.Thread(target=lambda: store.delete(gone))
    t.start()
    t.join()
    assert r.search("Maya hides a key under the mat", include_rejected=True) == []


def test_cache_follows_writes_incrementally(store, emb, tmp_path):
    r = Retriever(store, emb)
    a = store.add("Maya likes ramen")
    assert ids(r.search("Maya likes ramen")) == [a]
    cache = cache_for(store)
    loads = cache.loads
    b = store.add("Maya learns Japanese")
    assert ids(r.search("Maya learns Japanese"))[0] == b
    store.edit(a, "Maya likes udon")
    assert ids(r.search("Maya likes udon"))[0] == a
    assert r.search("Maya likes udon")[0].signal("semantic").raw == pytest.approx(1.0, abs=1e-5)  # new vector
    other = MemoryStore(store.path, embed=emb.embed)
    c = other.add("Maya visits Kyoto in April")
    other.close()
    assert ids(r.search("Maya visits Kyoto in April"))[0] == c
    assert cache.loads == loads  # incremental refreshes, no full reload
    store.record_use([a])  # writes that touch no memory text keep the cache as it is
    gen = cache.generation
    r.search("Maya likes udon")
    assert cache.generation == gen


def test_memory_without_vector_is_found_once_backfilled(tmp_path, emb):
    bare = MemoryStore(tmp_path / "m.db")  # no embedder: no vector written
    mid = bare.add("Maya speaks Yoruba")
    r = Retriever(bare, emb)
    assert r.search("Maya speaks Yoruba") == []
    bare.vectors.embed = emb.embed
    assert bare.backfill_vectors() == 1
    assert ids(r.search("Maya speaks Yoruba")) == [mid]
    bare.close()


def test_cache_candidates_match_sqlite_vec_knn(store, emb):
    rng = np.random.default_rng(5)
    vecs = rng.standard_normal((300, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    for i, v in enumerate(vecs):
        store.add(f"random memory {i}", embedding=v.tolist())
    q = rng.standard_normal(384).astype(np.float32)
    q /= np.linalg.norm(q)
    knn = [r[0] for r in store.conn.execute("SELECT rowid FROM memory_vec WHERE embedding MATCH ? AND k = 60", (q.tobytes(),))]
    from assistant.memory.store.vecscan.filter import VecFilter
    from assistant.memory.store.vecscan.read import to_us

    cache = cache_for(store)
    cache.sync(store)
    got, _ = cache.search(q, VecFilter(now_us=to_us(store.now())), 60)
    assert got == knn


# -- slots --------------------------------------------------------------------------------------


def test_slot_questions_are_answered_directly(store, emb, clock):
    old = store.add("Lives in Beijing", kind=Kind.PROFILE, slot="home_city", valid_at=dt(2020, 1, 1))
    store.add("Maya's favourite city to visit is Paris")
    new = store.add("Moved to Shanghai for good", kind=Kind.PROFILE, slot="home_city", valid_at=dt(2024, 3, 1))
    store.invalidate(old, dt(2024, 3, 1))
    name = store.add("The user is called Maya Okafor", kind=Kind.PROFILE, slot="name")
    r = Retriever(store, emb)
    hits = r.search("where do I live?")
    assert hits[0].memory.id == new and hits[0].score == 1.0 and hits[0].slot_answer and hits[0].passed_threshold
    assert old not in ids(hits)
    assert ids(r.search("where do I live?", as_of=dt(2022, 1, 1)))[0] == old
    assert r.search("What's my name?")[0].memory.id == name
    assert not any(h.slot_answer for h in r.search("where do I live?", kinds=[Kind.FACT]))
    mum = store.add("User's mom is Grace.", kind=Kind.PROFILE, slot="family.mom")
    assert r.search("Who is my mother?")[0].memory.id == mum
    assert tm.slot_names(["family.mother"]) == ("family.mother", "family.mom", "family.mum", "family.mama")


@pytest.mark.parametrize(
    "question, slots",
    [
        ("Where do I live?", ("home_city",)),
        ("which city am I living in these days", ("home_city",)),
        ("What's my name", ("name",)),
        ("who am I?", ("name",)),
        ("Who am I dating?", ("partner",)),
        ("What is my dog's name?", ()),
        ("Where do I work?", ("employer",)),
        ("what do I do for a living", ("occupation",)),
        ("When is my birthday?", ("birthday",)),
        ("Where did I grow up?", ("hometown",)),
        ("Which town am I originally from?", ("hometown",)),
        ("Do you remember what I'm called?", ("name",)),
        ("What is my dog called?", ()),
        ("Which town does my sister come from?", ()),
        ("What's my sister's job?", ()),
        ("Where does my mom live?", ()),
        ("我住在哪里？", ("home_city",)),
        ("Tell me a joke", ()),
        ("Who is my sister?", ("family.sister",)),
        ("what's my mum's name", ("family.mother",)),
        ("What is my grandmother's maiden name?", ()),
        ("What's my favourite restaurant?", ("favourite.restaurant",)),
        ("What is my favorite ice cream flavour?", ("favourite.ice_cream", "favourite.ice")),
        ("What am I allergic to?", ("allergy",)),
        ("Is there any food I must avoid because of an allergy?", ("allergy",)),
        ("Which foods should I avoid for my diet?", ()),
        ("Am I vegetarian?", ("diet",)),
        ("Do I have any pets?", ("pet",)),
        ("What's my girlfriend's name?", ("partner",)),
        ("what city am i based in again lol", ("home_city",)),
        ("What is my husband called?", ("partner",)),
        ("What's my wife's job?", ()),
    ],
)
def test_slot_question_table(question, slots):
    assert tm.slot_question(question) == slots


# -- any string is a valid query -----------------------------------------------------------------

NASTY = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.sampled_from(list('"\'()*:^-+NEAR AND OR NOT {}[]\\\x00\x01\x1b\x7f\u200b\u202e😀👩‍👩‍👧\ud800')), max_size=200),
    st.lists(st.sampled_from(['"', "NEAR(", "a b", ")", "*", "OR", "NOT", "^", "col:", "😀", "\x00", "\ud83d", "\u0301"]),
             max_size=40).map("".join),
    st.integers(min_value=5000, max_value=12000).map(lambda n: ("x\"( NEAR * 😀 " * (n // 14 + 1))[:n]),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=NASTY)
def test_fuzzed_queries_never_raise(store, emb, query):
    if store.count() == 0:
        store.add("Maya said \"NEAR\" (twice) * with 😀 in Lisbon", entities=["Lisbon"])
        store.add("Where do I live? In Lisbon", kind=Kind.PROFILE, slot="home_city")
    r = Retriever(store, emb, threshold=0.0)
    hits = r.search(query, k=3, include_rejected=True)
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    expr = fts.match_expression(query)
    if expr is not None:  # the sanitized MATCH expression is always valid FTS5 syntax
        store.conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expr,)).fetchone()
    cleaned = fts.clean_query(query)
    assert len(cleaned) <= fts.MAX_QUERY_CHARS
    assert not any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in cleaned)


def test_empty_and_whitespace_queries_return_nothing(store, emb):
    store.add("Maya plays the cello")
    r = Retriever(store, emb)
    assert r.search("") == [] and r.search(" \n\t\x00 ") == [] and r.search("cello", k=0) == []


# -- CLI ----------------------------------------------------------------------------------------


def test_cli_memory_search_json_and_explain(monkeypatch, capsys, emb):
    monkeypatch.setattr(Services, "embedder", lambda self: emb)
    assert main(["memory", "add", "Maya plays the cello on Thursdays", "--valid-at", "2023-05-15", "--json"]) == 0
    assert main(["memory", "add", "Maya used to play the violin", "--valid-at", "2010-01-01", "--invalid-at", "2015-01-01", "--json"]) == 0
    capsys.readouterr()
    assert main(["memory", "search", "Maya plays the cello on Thursdays", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["text"] for m in out][:1] == ["Maya plays the cello on Thursdays"]
    assert "score" in out[0] and "signals" not in out[0] and out[0]["valid_at"].startswith("2023-05-15")
    assert main(["memory", "search", "Maya plays the cello on Thursdays", "--explain", "--json", "--k", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 1 and {s["name"] for s in out[0]["signals"]} >= {"semantic", "bm25"}
    assert all(set(s) == {"name", "raw", "normalized", "weight"} for s in out[0]["signals"])
    assert main(["memory", "search", "Maya plays the violin", "--json"]) == 0
    assert "violin" not in capsys.readouterr().out  # no longer true: not an answer about now
    assert main(["memory", "search", "Maya plays the violin", "--as-of", "2012-06-01", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["text"] == "Maya used to play the violin"
    assert main(["memory", "search", "Did Maya play the violin?", "--json"]) == 0  # a question about the past
    past = json.loads(capsys.readouterr().out)
    assert past[0]["text"] == "Maya used to play the violin" and past[0]["invalid_at"].startswith("2015-01-01")
    assert main(["memory", "search", "Maya plays the cello", "--explain"]) == 0
    assert "semantic: raw" in capsys.readouterr().out


def test_fast_chunk_read_equals_the_public_vec0_read(store, emb):
    from assistant.memory.store.vecscan import cache as vc

    ids_ = [store.add(f"memory {i} about Lisbon and cello {i % 7}") for i in range(40)]
    store.delete(ids_[3:9])
    store.edit(ids_[10], "a new text for memory ten")
    fast = vc.read_vector_chunks(store.conn, store.dim)
    assert fast is not None  # sqlite-vec 0.1.x layout recognised
    got = {int(m): v.copy() for mids, vecs in fast for m, v in zip(mids, vecs)}
    public = {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in store.conn.execute("SELECT rowid, embedding FROM memory_vec")}
    assert set(got) == set(public) == set(ids_) - set(ids_[3:9])
    assert all(np.array_equal(got[m], public[m]) for m in public)


def test_bulk_filter_columns_read_equals_the_rows(store, emb, clock):
    # The cache's columns come from one group_concat row per chunk computed by SQLite
    # (store.vecscan.read.read_meta); they must equal the rows parsed one by one, NULLs and all.
    from assistant.memory.records import Scope, Status
    from assistant.memory.store.vecscan import cache as vc
    from assistant.memory.store.vecscan.filter import KIND_CODE, MAX_US, MIN_US, STATUS_CODE

    kinds = ["fact", "profile", "episode", "experience"]
    mids = [store.add(f"memory {i} about the cello", kind=kinds[i % 4], scope=Scope("work") if i % 5 == 0 else None,
                      valid_at=dt(2020, 1 + i % 12, 1 + i % 28, i % 24) if i % 3 else None,
                      ttl=timedelta(days=i) if i % 7 == 0 else None, status=Status.ARCHIVED if i % 11 == 0 else Status.ACTIVE)
            for i in range(1, 60)]  # fmt: skip
    store.invalidate(mids[4], dt(2023, 2, 3, 4, 5))
    store.edit(mids[6], "a new text for memory seven")
    store.delete(mids[8:10])
    cache = vc.VectorCache()
    store.read(lambda c: cache._load(c, store.dim, chunk=7))  # 57 rows: 8 full chunks and one of 1
    whole = vc.cache_for(store)
    whole.sync(store)  # one chunk
    rows = [tuple(r) for r in store.conn.execute(vc._META_SQL + " ORDER BY id")]
    cols = list(zip(*rows))
    n = cache.size
    assert n == len(rows) == 57 and whole.ids[: whole.size].tolist() == cache.ids[:n].tolist()
    assert whole.valid_at[: whole.size].tolist() == cache.valid_at[:n].tolist()
    assert cache.ids[:n].tolist() == list(cols[0]) and cache.version[:n].tolist() == list(cols[9])
    for i, name, null in [(1, "valid_at", MIN_US), (2, "invalid_at", MAX_US), (3, "expired_at", MAX_US), (4, "expires_at", MAX_US), (5, "created_at", MIN_US)]:
        assert getattr(cache, name)[:n].tolist() == vc.ts_us(cols[i], null).tolist(), name
    assert cache.status[:n].tolist() == [STATUS_CODE[s] for s in cols[6]] and cache.kind[:n].tolist() == [KIND_CODE[k] for k in cols[7]]
    assert [list(cache._scopes)[c] for c in cache.scope[:n]] == list(cols[8])
    assert (cache.invalid_at[:n] != MAX_US).sum() == 1 and (cache.expires_at[:n] != MAX_US).sum() >= 8
    assert cache.has_vec[:n].all()


def test_scope_limits_the_search(store, emb):
    from assistant.memory.records import Scope

    home = store.add("Maya plays the cello")
    work = store.add("Maya plays the cello", scope=Scope("work"))
    r_work = Retriever(store, emb, scope=Scope("work"))
    r_work.warm()
    assert ids(r_work.search("Maya plays the cello")) == [work]
    assert ids(Retriever(store, emb, scope=Scope("default")).search("Maya plays the cello")) == [home]
    assert Retriever(store, emb, scope=Scope("nobody")).search("Maya plays the cello") == []


def test_a_chunk_layout_surprise_falls_back_to_the_public_read(store, emb, monkeypatch):
    from assistant.memory.store.vecscan import cache as vc

    mids = [store.add(f"memory {i} about the cello") for i in range(5)]

    def broken(c, dim):
        def gen():
            yield np.array([mids[0]], dtype=np.int64), np.zeros((1, dim), dtype=np.float32) + 1.0
            raise vc.LayoutError("surprise")
        return gen()

    monkeypatch.setattr(vc, "read_vector_chunks", broken)
    r = Retriever(store, emb)
    assert ids(r.search("memory 0 about the cello"))[0] == mids[0]
    assert r.search("memory 0 about the cello")[0].signal("semantic").raw == pytest.approx(1.0, abs=1e-5)
