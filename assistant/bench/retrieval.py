"""`keepsake bench retrieval`: hybrid memory search at 1k/10k/100k memories (``--quality``:
answer recall on a long conversation instead, :mod:`assistant.bench.retrieval_quality`).

For each size a fresh encrypted store is built in a temporary folder by one child process and
measured by another (so ``peak_rss_mb`` is the peak of a process that opens the store like the
app does: store, vector cache, embedder; taken before the baseline loads its own matrix):

- **text**: template sentences about people, places, preferences, events and plans, with dates
  (deterministic for a seed);
- **vectors**: the first ``--pool`` texts are embedded for real with the configured embedder
  (MiniLM by default), once per run; rows beyond the pool get template text of their own and
  a vector made by perturbing a random pool vector with Gaussian noise (sigma 0.025 per
  dimension, cosine ~0.9 to its source) and renormalizing — their text and vector do not
  describe each other, which does not change the timing;
- **rows**: valid store rows (memories, sources, entities, links, vectors; FTS5 filled by the
  store's triggers) written with ``executemany`` in one transaction; ~4% invalidated, ~2% past
  their TTL, ~3% archived, so the default filter has work to do (no audit rows are written).

Then ``--queries`` searches (question templates, embedded for real; the embedding is timed
separately as ``embed_query_ms``) run through :class:`Retriever` with the query vector given,
and the same query vectors run through a numpy brute-force cosine top-k over the same vectors
(``matrix @ q`` + ``argpartition``) in the same process: ``ratio_p50`` = hybrid p50 / numpy p50.
``cache_load_ms`` is the first search (it loads the vector cache). With ``--sqlite-vec`` the
same queries also go through sqlite-vec's ``vec0`` KNN (``sqlite_vec_p50_ms``) for context.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from assistant.cli.argtypes import seed, threads, whole, whole_list
from assistant.config import REPO_ROOT
from assistant.engine.embedder import LlamaEmbedder
from assistant.memory.records import content_hash
from assistant.memory.times import ts_to_db

NOISE_SIGMA = 0.025
_FIRST = ["Maya", "Tomás", "Ada", "Henrik", "Priya", "Kofi", "Lena", "Omar", "Chloe", "Ravi", "Nadia", "Leo", "Grace",
          "Sam", "Ines", "Ben", "Yuki", "Mateo", "Aisha", "Jonas", "Elif", "Noah", "Zara", "Luca", "Mei", "Arjun"]  # fmt: skip
_LAST = ["Okafor", "Ferreira", "Dahl", "Raman", "Silva", "Novak", "Haddad", "Martin", "Kowalski", "Tanaka", "Ibrahim",
         "Rossi", "Chen", "Müller", "Costa", "Nguyen", "Larsen", "Moreau", "Patel", "Schmidt"]  # fmt: skip
_PLACES = ["Lisbon", "Porto", "Kyoto", "Berlin", "Edinburgh", "Lagos", "Abuja", "Manchester", "Sintra", "Madrid", "Oslo",
           "Toronto", "Nairobi", "Seoul", "Vienna", "Marseille", "Amsterdam", "Prague", "Dublin", "Istanbul", "Lima"]  # fmt: skip
_FOODS = ["Ethiopian food", "ramen", "grilled sardines", "dark chocolate", "spicy curries", "sourdough bread", "sushi",
          "black coffee", "green tea", "pastel de nata", "mushroom risotto", "jollof rice", "falafel", "pho"]  # fmt: skip
_HOBBIES = ["the cello", "bouldering", "street photography", "trail running", "chess", "gardening", "pottery", "salsa dancing",
            "birdwatching", "knitting", "sailing", "board games", "woodworking", "open-water swimming"]  # fmt: skip
_RELS = ["sister", "brother", "mother", "father", "best friend", "manager", "colleague", "neighbour", "cousin", "partner"]
_THINGS = ["a ThinkPad laptop", "a Fujifilm camera", "an electric bike", "a standing desk", "a cast-iron pan",
           "noise-cancelling headphones", "a sourdough starter", "a Kindle", "a road bike", "a drone"]  # fmt: skip
_EVENTS = ["a dentist appointment", "a job interview", "a concert", "a wedding", "a half marathon", "a team offsite",
           "a flight", "a birthday dinner", "a visa appointment", "a parents' evening", "a pottery class"]  # fmt: skip
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
_TEMPLATES = [
    "{p} moved to {place} in {month} {year} for a new job.",
    "The user's {rel} {p} lives in {place} and works as a nurse.",
    "The user loves {food} and orders it at least once a week.",
    "The user dislikes {food} since a bad experience in {place} in {year}.",
    "The user started learning {hobby} in {month} {year}.",
    "The user has {event} in {place} on {day} {month} {year}.",
    "The user bought {thing} in {month} {year} and uses it every day.",
    "{p} recommended a restaurant in {place} that serves {food}.",
    "The user's {rel} {p} turned {age} on {day} {month} {year}.",
    "The user plans a trip to {place} in {month} {year} with {p}.",
    "The user went to {place} for {event} on {day} {month} {year}.",
    "The user prefers {hobby} over {hobby2} on weekends.",
    "{p} and the user met in {place} in {year} through {hobby}.",
    "The user sold {thing} to {p} in {month} {year}.",
    "The user's favourite place to eat {food} is a small café in {place}.",
]
_QUESTIONS = [
    "Where does my {rel} live?", "When is my {event}?", "What food do I love?", "What do I do on weekends?",
    "When did I start {hobby}?", "Who recommended the restaurant in {place}?", "Where am I travelling next?",
    "What did I buy in {month}?", "How old is {p} now?", "Have I been to {place}?", "What do I dislike eating?",
    "Who did I meet in {place}?", "What gadget do I use every day?", "When did {p} move?", "Where do I like to eat {food}?",
]  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", type=whole_list(1, 10_000_000, "--sizes"), default="1000,10000,100000", help="comma-separated store sizes (default 1000,10000,100000)")
    p.add_argument("--queries", type=whole(1, 1_000_000, "--queries"), default=200, help="timed searches per size (default 200)")
    p.add_argument("--pool", type=whole(1, 1_000_000, "--pool"), default=5000, help="texts embedded for real (default 5000)")
    p.add_argument("--k", type=whole(1, 4096, "--k"), default=5, help="memories per search (default 5)")
    p.add_argument("--seed", type=seed, default=7)
    p.add_argument("--embed-threads", type=threads, default=1, help="llama.cpp threads for the embedder (default 1)")
    p.add_argument("--sqlite-vec", action="store_true", help="also time sqlite-vec's vec0 KNN on the same queries")
    p.add_argument("--quality", action="store_true",
                   help="measure answer recall@5 on a long conversation instead (hybrid vs MiniLM cosine vs BM25 over the raw messages)")
    p.add_argument("--set", default=None, help="with --quality: the conversation set (default tests/data/long_conversation.json)")
    p.add_argument("--no-consolidate", action="store_true", help="with --quality: search without a consolidation run first")


def _fill(rng: np.random.Generator, template: str) -> str:
    pick = lambda seq: seq[int(rng.integers(len(seq)))]  # noqa: E731
    hobby = pick(_HOBBIES)
    return template.format(
        p=f"{pick(_FIRST)} {pick(_LAST)}", place=pick(_PLACES), food=pick(_FOODS), hobby=hobby,
        hobby2=pick([h for h in _HOBBIES if h != hobby]), rel=pick(_RELS), thing=pick(_THINGS), event=pick(_EVENTS),
        month=pick(_MONTHS), year=int(rng.integers(2012, 2026)), day=int(rng.integers(1, 29)), age=int(rng.integers(3, 80)),
    )  # fmt: skip


def make_texts(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [_fill(rng, _TEMPLATES[int(rng.integers(len(_TEMPLATES)))]) for _ in range(n)]


def make_queries(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed + 1)
    return [_fill(rng, _QUESTIONS[i % len(_QUESTIONS)]) for i in range(n)]


_ENTITY_RE = re.compile(r"\b(?:(?:%s) (?:%s)|%s)\b" % ("|".join(_FIRST), "|".join(_LAST), "|".join(_PLACES)))


def _entities(text: str) -> list[str]:
    return list(dict.fromkeys(_ENTITY_RE.findall(text)))


def _embedder(path: str | Path, threads: int) -> Any:
    return LlamaEmbedder(Path(path), n_threads=threads)


def _peak_rss_mb() -> float:
    """This process's peak resident set (Linux: VmHWM; ru_maxrss there would include the
    parent's peak, which survives fork + exec)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    try:
        import resource  # POSIX only (the except below is Windows)

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)
    except ImportError:  # Windows
        import psutil

        return round(psutil.Process().memory_info().peak_wset / 2**20, 1)


def _load_avg() -> float | None:
    """1-minute load average (other work on the machine skews every timing)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 3)


# -- building a store ---------------------------------------------------------------------------


def build_store(path: Path, texts: list[str], vectors: np.ndarray, seed: int, key: str | None = None) -> Any:
    """A store with these texts and vectors, written in bulk as valid store rows."""
    from assistant.memory.store.facade import MemoryStore  # deferred: the store (SQLCipher, numpy)

    store = MemoryStore(path, key=key or secrets.token_hex(32), dim=vectors.shape[1])
    rng = np.random.default_rng(seed + 2)
    now = datetime.now(UTC)
    roll = rng.random(len(texts))

    def run(c: Any) -> None:
        mem_rows, src_rows, vec_rows, ent_links = [], [], [], []
        for i, text in enumerate(texts):
            mid = i + 1
            created = now - timedelta(days=int(rng.integers(1, 2000)))
            valid = created - timedelta(days=int(rng.integers(0, 30)))
            invalid = expired = expires = None
            status = "active"
            if roll[i] < 0.04:
                invalid = expired = ts_to_db(now - timedelta(days=int(rng.integers(1, 300))))
            elif roll[i] < 0.06:
                expires = ts_to_db(now - timedelta(days=1))
            elif roll[i] < 0.09:
                status = "archived"
            kind = "episode" if roll[i] > 0.8 else "fact"
            mem_rows.append((mid, text, kind, "default", ts_to_db(valid), invalid, ts_to_db(created), expired, "user_stated",
                             1.0, content_hash(text), status, 1, expires, 0, None, ts_to_db(created), "capture"))  # fmt: skip
            src_rows.append((mid, "user", "bench", "1", ts_to_db(created), ts_to_db(created)))
            vec_rows.append((mid, vectors[i].astype(np.float32).tobytes()))
            ent_links.extend((mid, name) for name in _entities(text))
        c.executemany(
            "INSERT INTO memories(id, text, kind, scope, valid_at, invalid_at, created_at, expired_at, trust, confidence, "
            "content_hash, status, version, expires_at, pinned, slot, updated_at, actor) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            mem_rows,
        )
        c.executemany("INSERT INTO memory_sources(memory_id, speaker, extractor, extractor_version, observed_at, added_at) "
                      "VALUES (?,?,?,?,?,?)", src_rows)  # fmt: skip
        names = sorted({name for _, name in ent_links})
        c.executemany("INSERT INTO entities(name, normalized) VALUES (?, ?)", [(n, n.lower()) for n in names])
        eid = {r[1]: r[0] for r in c.execute("SELECT id, name FROM entities")}
        c.executemany("INSERT OR IGNORE INTO memory_entities(memory_id, entity_id) VALUES (?, ?)",
                      [(mid, eid[name]) for mid, name in ent_links])  # fmt: skip
        c.executemany("INSERT INTO memory_vec(rowid, embedding) VALUES (?, ?)", vec_rows)

    store.write(run)
    return store


def size_vectors(pool: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` unit float32 vectors: the pool's, then perturbed copies of random pool vectors."""
    if n <= len(pool):
        return pool[:n].copy()
    rng = np.random.default_rng(seed + 3)
    out = np.empty((n, pool.shape[1]), dtype=np.float32)
    out[: len(pool)] = pool
    for a in range(len(pool), n, 8192):
        b = min(n, a + 8192)
        v = pool[rng.integers(0, len(pool), b - a)] + rng.normal(0, NOISE_SIGMA, (b - a, pool.shape[1])).astype(np.float32)
        out[a:b] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


# -- one size (child processes: build, then measure) ---------------------------------------------


def build_size(cfg: dict[str, Any]) -> dict[str, Any]:
    """Child 1: write the store and the vectors (for the numpy baseline) to the temp folder."""
    n, seed = cfg["n"], cfg["seed"]
    vectors = size_vectors(np.load(cfg["pool_path"]), n, seed)
    np.save(cfg["vectors_path"], vectors)
    t0 = time.perf_counter()
    store = build_store(Path(cfg["db_path"]), make_texts(n, seed), vectors, seed, cfg["key"])
    store.close()
    return {"build_s": round(time.perf_counter() - t0, 1), "build_peak_rss_mb": _peak_rss_mb()}


def measure_size(cfg: dict[str, Any]) -> dict[str, Any]:
    """Child 2: open the store like the app does and time searches; peak RSS is taken before
    the baseline's own copy of the matrix is loaded."""
    from assistant.memory.retrieval.retriever import Retriever  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.facade import MemoryStore

    n, seed, k = cfg["n"], cfg["seed"], cfg["k"]
    store = MemoryStore(Path(cfg["db_path"]), key=cfg["key"])
    embedder = _embedder(cfg["embed_path"], cfg["embed_threads"])
    qtexts = make_queries(cfg["distinct_queries"], seed)
    embedder.embed(["warm up"])
    embed_ms, qvecs = [], []
    for q in qtexts:
        t = time.perf_counter()
        qvecs.append(np.asarray(embedder.embed([q])[0], dtype=np.float32))
        embed_ms.append((time.perf_counter() - t) * 1000)

    retriever = Retriever(store, embedder)
    t = time.perf_counter()
    retriever.search(qtexts[0], k=k, vector=qvecs[0])
    cache_load_ms = (time.perf_counter() - t) * 1000
    order = np.random.default_rng(seed + 4).integers(0, len(qtexts), cfg["queries"])
    hybrid_ms, returned = [], []
    for i in order:
        t = time.perf_counter()
        hits = retriever.search(qtexts[i], k=k, vector=qvecs[i])
        hybrid_ms.append((time.perf_counter() - t) * 1000)
        returned.append(len(hits))
    peak_rss = _peak_rss_mb()

    matrix = np.ascontiguousarray(np.load(cfg["vectors_path"]), dtype=np.float32)
    timings: dict[str, list[float]] = {"matmul": [], "einsum": []}
    for i in order:
        for name, product in (("matmul", lambda q: matrix @ q), ("einsum", lambda q: np.einsum("ij,j->i", matrix, q))):
            t = time.perf_counter()
            scores = product(qvecs[i])
            top = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
            top = top[np.argsort(-scores[top])]
            timings[name].append((time.perf_counter() - t) * 1000)
    p50 = float(np.percentile(hybrid_ms, 50))
    numpy_p50 = float(np.percentile(timings["matmul"], 50))
    best_numpy = min(numpy_p50, float(np.percentile(timings["einsum"], 50)))
    out = {
        "n": n,
        "p50_ms": _pct(hybrid_ms, 50),
        "p95_ms": _pct(hybrid_ms, 95),
        "embed_query_ms": _pct(embed_ms, 50),
        "numpy_p50_ms": round(numpy_p50, 3),
        "ratio_p50": round(p50 / numpy_p50, 3),
        "peak_rss_mb": peak_rss,
        "numpy_einsum_p50_ms": _pct(timings["einsum"], 50),
        "ratio_p50_vs_best_numpy": round(p50 / best_numpy, 3),
        "cache_load_ms": round(cache_load_ms, 1),
        "cache_mb": round(retriever.cache.nbytes / 2**20, 1),
        "real_vectors": min(n, cfg["pool_n"]),
        "mean_hits": round(float(np.mean(returned)), 2),
    }
    if cfg.get("sqlite_vec"):
        vec_ms = []
        for i in order[: min(20, len(order))]:
            t = time.perf_counter()
            store.conn.execute("SELECT rowid, distance FROM memory_vec WHERE embedding MATCH ? AND k = ?",
                               (qvecs[i].tobytes(), max(4 * k, 60))).fetchall()  # fmt: skip
            vec_ms.append((time.perf_counter() - t) * 1000)
        out["sqlite_vec_p50_ms"] = _pct(vec_ms, 50)
    store.close()
    return out


def child_main() -> int:
    cfg = json.loads(sys.stdin.read())
    result = build_size(cfg) if cfg["phase"] == "build" else measure_size(cfg)
    print(json.dumps(result))
    return 0


# -- driver ---------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    if getattr(args, "quality", False):
        from assistant.bench import retrieval_quality  # a cycle: retrieval_quality uses this module's embedder

        return retrieval_quality.run(args)
    sizes = list(args.sizes)
    pool_n = max(1, min(args.pool, max(sizes)))
    load_before = _load_avg()
    embed_path = args.services.embedder_path()
    embedder = _embedder(embed_path, args.embed_threads)
    t = time.perf_counter()
    texts = make_texts(pool_n, args.seed)
    pool = np.asarray([v for i in range(0, pool_n, 64) for v in embedder.embed(texts[i : i + 64])], dtype=np.float32)
    pool_s = time.perf_counter() - t
    embedder.close()
    results = []
    with tempfile.TemporaryDirectory(prefix="keepsake-bench-") as tmp:
        pool_path = Path(tmp) / "pool.npy"
        np.save(pool_path, pool)
        for n in sizes:
            cfg = {"n": n, "seed": args.seed, "k": args.k, "queries": args.queries, "distinct_queries": 60,
                   "pool_path": str(pool_path), "pool_n": pool_n, "db_path": str(Path(tmp) / f"bench-{n}.db"),
                   "vectors_path": str(Path(tmp) / f"vectors-{n}.npy"), "key": secrets.token_hex(32),
                   "embed_threads": args.embed_threads, "embed_path": str(embed_path), "sqlite_vec": bool(getattr(args, "sqlite_vec", False))}  # fmt: skip
            built = _run_child({**cfg, "phase": "build"})
            results.append({**_run_child({**cfg, "phase": "measure"}), **built})
    return {
        "sizes": results,
        "k": args.k,
        "queries_per_size": args.queries,
        "method": (
            f"template texts (people, places, preferences, events, plans, with dates); the first {pool_n} embedded for "
            f"real with {embedder.name} ({pool_s:.0f} s); rows beyond that get their own template text and a vector "
            f"perturbed from a random real one (Gaussian sigma {NOISE_SIGMA}/dim, cosine ~0.9, renormalized); ~4% "
            "invalidated, ~2% TTL passed, ~3% archived; bulk-inserted valid store rows, FTS5 by the store's triggers. "
            "Hybrid = Retriever.search with the query vector given (semantic top max(4k,60) over the cached float32 "
            "matrix, SQL re-check, FTS5 bm25() on the candidates, entities, slots, hydration); numpy = matrix @ q (BLAS) + "
            "argpartition top-k over the same vectors, same process, same queries; numpy_einsum = the same with "
            "np.einsum (single-threaded, what the cache uses). One child process per size (peak RSS per size)."
        ),
        "targets": {"ratio_p50_at_100k_max": 2.0, "p50_ms_at_10k_max": 10.0},
        "machine": {"cpus": os.cpu_count(), "platform": sys.platform, "embed_threads": args.embed_threads,
                    "load_avg_1m_before_after": [load_before, _load_avg()]},
    }


def _run_child(cfg: dict[str, Any]) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    code = "import sys; from assistant.bench.retrieval import child_main; sys.exit(child_main())"
    proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(cfg), capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"bench child for n={cfg['n']} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def format_text(result: dict[str, Any]) -> str:
    if "hybrid_recall_at_5" in result:
        from assistant.bench.retrieval_quality import format_text as quality_text  # a cycle (see run)

        return quality_text(result)
    lines = [f"{'n':>8} {'p50 ms':>8} {'p95 ms':>8} {'numpy p50':>10} {'ratio':>6} {'embed q ms':>10} {'peak RSS MB':>11}"]
    for r in result["sizes"]:
        lines.append(f"{r['n']:>8} {r['p50_ms']:>8.2f} {r['p95_ms']:>8.2f} {r['numpy_p50_ms']:>10.2f} {r['ratio_p50']:>6.2f} "
                     f"{r['embed_query_ms']:>10.2f} {r['peak_rss_mb']:>11.1f}")  # fmt: skip
    lines.append(result["method"])
    return "\n".join(lines)
