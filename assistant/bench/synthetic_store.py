"""A synthetic long-lived profile's store for the consolidation and fault benchmarks.

Build (not timed): a fresh encrypted store in a temporary ``KEEPSAKE_HOME`` with ``n`` memories
written through ``MemoryStore.add_many`` (sources, entities, vectors, audit rows; messages and
usage counters are bulk-inserted), mixed like a long-lived profile:

- ~50% distinct facts from ~30 templates and filler lists ("User's sister Mei lives in Lisbon."),
- ~8% paraphrase duplicates (punctuation, "The user"/"User", an added "really"/"every week",
  word order) and ~2% exact twins from a race (hash tier),
- ~6% near misses that must NOT merge (same template, another number or name),
- ~5% profile-slot records (home city, employer, favourites) changing over time,
- ~24% episodes (first-person messages), ~4% of them said again in another message,
- ~2% TTL already passed; creation dates spread over three years, ~30% used recently.

Vectors: the first ``--pool`` distinct texts (a spread over every template) are embedded for real
with MiniLM; every other memory takes the vector of a pool text of its own template and is
rotated away from it to a chosen cosine (0.985 for paraphrases and twins, 0.95 for near misses,
0.80-0.90 for other facts of the template), then normalized -- so the cosine blocks see the same
kinds of neighbourhoods real data gives. The JSON says so in ``"vectors"``.
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from assistant.engine import registry
from assistant.engine.embedder import LlamaEmbedder
from assistant.memory.records import Kind, NewMemory, Source, content_hash
from assistant.memory.times import ts_to_db

UTC = timezone.utc

_NAMES = ["Mei", "Lin", "Ana", "Tomás", "Priya", "Kofi", "Lena", "Omar", "Chloe", "Ravi", "Nadia", "Leo", "Grace", "Yuki",
          "Mateo", "Aisha", "Jonas", "Elif", "Zara", "Luca", "Arjun", "Ines", "Henrik", "Sam"]  # fmt: skip
_CITIES = ["Lisbon", "Porto", "Kyoto", "Berlin", "Edinburgh", "Lagos", "Oslo", "Toronto", "Nairobi", "Seoul", "Vienna",
           "Marseille", "Prague", "Dublin", "Lima", "Quito", "Osaka", "Boston", "Hanoi", "Tbilisi"]  # fmt: skip
_FOODS = ["oat milk", "ramen", "grilled sardines", "dark chocolate", "sourdough bread", "sushi", "green tea", "falafel",
          "pho", "jollof rice", "mushroom risotto", "black coffee", "peanuts", "shellfish", "kimchi"]  # fmt: skip
_HOBBIES = ["the cello", "bouldering", "street photography", "trail running", "chess", "pottery", "salsa dancing",
            "birdwatching", "knitting", "sailing", "woodworking", "open-water swimming"]  # fmt: skip
_COMPANIES = ["Tesco", "Siemens", "Nokia", "Spotify", "Shopify", "Mercado Libre", "Infosys", "Rakuten", "Zalando", "Atlassian"]
_RELS = ["sister", "brother", "cousin", "best friend", "manager", "neighbour", "colleague", "aunt"]
_THINGS = ["ThinkPad laptop", "Fujifilm camera", "Brompton bike", "Kindle", "Moka pot", "Garmin watch", "Vitamix blender"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# (fact template, episode template) -- {n} numbers, {y} years, other fields from the lists above
_TEMPLATES = [
    ("User likes {food}.", "I really like {food}"),
    ("User is allergic to {food}.", "I am allergic to {food}"),
    ("User's {rel} {name} lives in {city}.", "My {rel} {name} lives in {city}"),
    ("User's {rel} {name} works at {company}.", "My {rel} {name} works at {company}"),
    ("User visited {city} in {y}.", "I visited {city} in {y}"),
    ("User has {n} houseplants in the living room.", "I have {n} houseplants in the living room"),
    ("User ran a {n} km race in {city}.", "I ran a {n} km race in {city}"),
    ("User plays {hobby} on {day}s.", "I play {hobby} on {day}s"),
    ("User bought a {thing} in {y}.", "I bought a {thing} in {y}"),
    ("User's {rel} {name} was born in {y}.", "My {rel} {name} was born in {y}"),
    ("User wants to visit {city} with {name}.", "I want to visit {city} with {name}"),
    ("User takes {hobby} lessons with {name}.", "I take {hobby} lessons with {name}"),
    ("User drinks {food} every morning.", "I drink {food} every morning"),
    ("User's gym membership costs {n} euros a month.", "My gym membership costs {n} euros a month"),
    ("User has a dentist appointment on {day} at {n}.", "I have a dentist appointment on {day} at {n}"),
    ("User met {name} at a conference in {city}.", "I met {name} at a conference in {city}"),
    ("User's {thing} broke in {y}.", "My {thing} broke in {y}"),
    ("User learned {hobby} from {name}.", "I learned {hobby} from {name}"),
    ("User's flight to {city} leaves on {day}.", "My flight to {city} leaves on {day}"),
    ("User cooks {food} for {name} on {day}s.", "I cook {food} for {name} on {day}s"),
    ("User keeps the spare key with {name}.", "I keep the spare key with {name}"),
    ("User worked at {company} for {n} years.", "I worked at {company} for {n} years"),
    ("User's favourite dish in {city} is {food}.", "My favourite dish in {city} is {food}"),
    ("User sold a {thing} to {name}.", "I sold my {thing} to {name}"),
    ("User goes to {hobby} class every {day}.", "I go to {hobby} class every {day}"),
    ("User's landlord in {city} is {name}.", "My landlord in {city} is {name}"),
    ("User reads to {name} before bed.", "I read to {name} before bed"),
    ("User started {hobby} in {y}.", "I started {hobby} in {y}"),
    ("User avoids {food} since {y}.", "I avoid {food} since {y}"),
    ("User rents a flat near {city} station.", "I rent a flat near {city} station"),
]
_SLOTS = [("home_city", "User lives in {city}."), ("employer", "User works at {company}."),
          ("favourite.food", "User's favourite food is {food}.")]  # fmt: skip


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        food=rng.choice(_FOODS), rel=rng.choice(_RELS), name=rng.choice(_NAMES), city=rng.choice(_CITIES),
        company=rng.choice(_COMPANIES), y=rng.randint(1985, 2024), n=rng.randint(2, 60), hobby=rng.choice(_HOBBIES),
        day=rng.choice(_DAYS), thing=rng.choice(_THINGS),
    )  # fmt: skip


def _paraphrase(text: str, rng: random.Random) -> str:
    """A duplicate the rule tiers should catch (no word substituted, same names/numbers)."""
    body = text.rstrip(".")
    choice = rng.randrange(4)
    if choice == 0 and body.startswith("User "):
        return "The user " + body[5:]
    if choice == 1:
        return body + " really"
    if choice == 2:  # punctuation only: the "normalized" tier
        head, _, rest = body.partition(" ")
        return f"{head}, {rest}!" if rest else body + "!!"
    return body + ", as always"


def _near_miss(template: str, text: str, rng: random.Random) -> str:
    for _ in range(20):
        other = _fill(template, rng)
        if other != text:
            return other
    return text


def _rotate(v: np.ndarray, cos: float, rng: np.random.Generator) -> np.ndarray:
    """A unit vector at exactly cosine ``cos`` from unit ``v``."""
    u = rng.standard_normal(v.shape[0]).astype(np.float32)
    u -= u.dot(v) * v
    u /= np.linalg.norm(u)
    w = cos * v + np.sqrt(max(0.0, 1 - cos * cos)) * u
    return (w / np.linalg.norm(w)).astype(np.float32)


def _plan_rows(n: int, pool: int, rng: random.Random, now: datetime) -> tuple[list[dict[str, Any]], list[str]]:
    """The memories to write (text, kind, template id, vector recipe, dates) and the pool texts."""

    rows: list[dict[str, Any]] = []
    facts: list[int] = []
    per_template = max(1, pool // (len(_TEMPLATES) + len(_SLOTS)))
    pool_texts: dict[int, list[str]] = {}
    for t, (ft, _et) in enumerate(_TEMPLATES):
        pool_texts[t] = list(dict.fromkeys(_fill(ft, rng) for _ in range(per_template * 3)))[:per_template]
    for s, (_slot, st) in enumerate(_SLOTS):
        pool_texts[len(_TEMPLATES) + s] = list(dict.fromkeys(_fill(st, rng) for _ in range(per_template * 3)))[:per_template]

    def created() -> datetime:
        return now - timedelta(days=rng.uniform(1, 3 * 365))

    seen: set[str] = set()
    while len(rows) < n:
        start = len(rows)
        r = rng.random()
        t = rng.randrange(len(_TEMPLATES))
        if r < 0.50 or not facts:  # distinct fact
            text = pool_texts[t][0] if not facts and pool_texts[t] else _fill(_TEMPLATES[t][0], rng)
            rows.append({"text": text, "kind": "fact", "t": t, "cos": rng.uniform(0.80, 0.90), "of": None, "base": True})
        elif r < 0.58:  # paraphrase duplicate of an earlier fact
            i = rng.choice(facts)
            rows.append({"text": _paraphrase(rows[i]["text"], rng), "kind": "fact", "t": rows[i]["t"], "cos": 0.985, "of": i})
        elif r < 0.60:  # exact twin (a race on the hot path): same normalized text
            i = rng.choice(facts)
            rows.append({"text": rows[i]["text"].lower(), "kind": "fact", "t": rows[i]["t"], "cos": 0.999, "of": i, "twin": True})
        elif r < 0.66:  # near miss: same template, another number/name
            i = rng.choice(facts)
            rows.append({"text": _near_miss(_TEMPLATES[rows[i]["t"]][0], rows[i]["text"], rng), "kind": "fact",
                         "t": rows[i]["t"], "cos": 0.95, "of": i})  # fmt: skip
        elif r < 0.71:  # profile slot, changing over time
            s = rng.randrange(len(_SLOTS))
            slot, st = _SLOTS[s]
            rows.append({"text": _fill(st, rng), "kind": "profile", "slot": slot, "t": len(_TEMPLATES) + s,
                         "cos": rng.uniform(0.85, 0.95), "of": None, "valid_at": now - timedelta(days=rng.uniform(1, 6 * 365))})  # fmt: skip
        elif r < 0.95:  # episode (verbatim message)
            ep = _fill(_TEMPLATES[t][1], rng)
            rows.append({"text": ep, "kind": "episode", "t": t, "cos": rng.uniform(0.80, 0.90), "of": None})
            if rng.random() < 0.17:  # said again in another message, a little differently
                again = ep + rng.choice(["!", " again", " every week", ", honestly"])
                rows.append({"text": again, "kind": "episode", "t": t, "cos": 0.975, "of": len(rows) - 1, "pair": True})
        else:  # TTL already passed
            rows.append({"text": _fill(_TEMPLATES[t][0], rng), "kind": "fact", "t": t, "cos": rng.uniform(0.8, 0.9),
                         "of": None, "ttl": now - timedelta(days=rng.uniform(1, 30))})  # fmt: skip
        fresh = []
        for row in rows[start:]:
            h = content_hash(row["text"])
            if h in seen and not row.get("twin"):
                continue  # the hot path would have merged it on write
            seen.add(h)
            fresh.append(row)
        rows[start:] = fresh
        facts.extend(start + j for j, row in enumerate(fresh) if row.get("base"))
        for row in fresh:
            row["created"] = created()
            if row.get("of") is not None and rows[row["of"]]["kind"] == "episode":
                row["created"] = max(row["created"], rows[row["of"]]["created"] + timedelta(days=1))
            if rng.random() < 0.3:
                row["use_count"] = rng.randint(1, 6)
                row["last_used"] = now - timedelta(days=rng.uniform(0, 60))
    rows = rows[:n]
    flat_pool = [text for texts in pool_texts.values() for text in texts]
    return rows, flat_pool


def _vectors(rows: list[dict[str, Any]], pool_texts: list[str], pool_vecs: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    by_template: dict[int, list[int]] = {}
    pool_index = {text: i for i, text in enumerate(pool_texts)}
    n_t = len(_TEMPLATES)
    for i, text in enumerate(pool_texts):
        # which template produced this pool text: the fact templates come first, then the slots
        by_template.setdefault(_template_of(text), []).append(i)
    out = np.zeros((len(rows), pool_vecs.shape[1]), dtype=np.float32)
    for k, row in enumerate(rows):
        if row["text"] in pool_index:
            out[k] = pool_vecs[pool_index[row["text"]]]
        elif row.get("of") is not None and row["of"] < k:
            out[k] = _rotate(out[row["of"]], row["cos"], rng)
        else:
            choices = by_template.get(row["t"]) or list(range(len(pool_texts)))
            out[k] = _rotate(pool_vecs[choices[int(rng.integers(len(choices)))]], row["cos"], rng)
    _ = n_t
    return out


_TEMPLATE_CACHE: dict[str, int] = {}


def _template_of(text: str) -> int:
    if text in _TEMPLATE_CACHE:
        return _TEMPLATE_CACHE[text]

    for t, (ft, _e) in enumerate(_TEMPLATES + [(st, "") for _s, st in _SLOTS]):
        pattern = "^" + re.sub(r"\\\{\w+\\\}", ".+?", re.escape(ft)) + "$"
        if re.match(pattern, text):
            _TEMPLATE_CACHE[text] = t
            return t
    return 0


def build(home: Path, n: int, pool: int, seed: int, key: str) -> dict[str, Any]:
    """Write the store; returns facts about it (counts by kind, pool size, build time)."""
    from assistant.memory.store.facade import MemoryStore
    from assistant.memory.store.rows import IN_IDS  # deferred: the store (SQLCipher, numpy)

    t0 = time.perf_counter()
    rng = random.Random(seed)
    now = datetime.now(UTC)
    rows, pool_texts = _plan_rows(n, pool, rng, now)
    embedder = LlamaEmbedder(registry.resolve_embedder("default", home / "data" / "models"))
    t_embed = time.perf_counter()
    pool_vecs = np.asarray(embedder.embed(pool_texts), dtype=np.float32)
    embed_s = time.perf_counter() - t_embed
    embedder.close()
    vecs = _vectors(rows, pool_texts, pool_vecs, seed)
    store = MemoryStore(home / "data" / "keepsake.db", key=key, dim=vecs.shape[1])
    sessions = [store.create_session(f"bench {i}").id for i in range(40)]
    # messages: one per memory (episodes are the message itself), bulk-inserted in one transaction

    def messages(c: Any) -> list[int]:
        ids = []
        for k, row in enumerate(rows):
            obs = row.get("valid_at") or row["created"]
            cur = c.execute(
                "INSERT INTO messages(session_id, role, content, created_at, observed_at) VALUES (?,?,?,?,?)",
                (sessions[k % len(sessions)], "user", row["text"], ts_to_db(row["created"]), ts_to_db(obs)),
            )
            ids.append(int(cur.lastrowid))
        return ids

    msg_ids = store.write(messages)
    specs, twins = [], []
    for k, row in enumerate(rows):
        obs = row.get("valid_at") or row["created"]
        src = Source(session_id=sessions[k % len(sessions)], message_id=msg_ids[k], extractor="bench", observed_at=obs)
        spec = NewMemory(
            row["text"], kind=Kind(row["kind"]), sources=(src,), created_at=row["created"], slot=row.get("slot"),
            valid_at=row.get("valid_at"), ttl=row.get("ttl"), embedding=tuple(float(x) for x in vecs[k]),
            entities=tuple(w for w in row["text"].rstrip(".!").split() if w[:1].isupper() and w not in ("User", "User's", "I", "My", "The")),
        )  # fmt: skip
        (twins if row.get("twin") else specs).append((k, spec))
    ids = [0] * len(rows)
    for (k, _spec), res in zip(specs, store.add_many([sp for _k, sp in specs], actor="import")):
        ids[k] = res.id
    from assistant.memory.store.rows import ids_json  # deferred: the store (SQLCipher, numpy)

    # exact twins only exist when two writers race; make them by hiding the originals from the
    # write-time dedup for a moment
    originals = ids_json(ids[rows[k]["of"]] for k, _ in twins)
    store.write(lambda c: c.execute(f"UPDATE memories SET invalid_at = '2100-01-01T00:00:00.000000+00:00' WHERE id IN {IN_IDS}", (originals,)))
    for (k, _spec), res in zip(twins, store.add_many([sp for _k, sp in twins], actor="import")):
        ids[k] = res.id
    store.write(lambda c: c.execute(f"UPDATE memories SET invalid_at = NULL WHERE id IN {IN_IDS}", (originals,)))

    def finish(c: Any) -> None:
        for k, row in enumerate(rows):
            if row.get("use_count"):
                c.execute("UPDATE memories SET use_count = ?, last_used_at = ? WHERE id = ?",
                          (row["use_count"], ts_to_db(row["last_used"]), ids[k]))  # fmt: skip

    store.write(finish)
    kinds: dict[str, int] = {}
    for row in rows:
        kinds[row["kind"]] = kinds.get(row["kind"], 0) + 1
    count = store.count(include_all=True)
    store.close()
    return {"memories": count, "kinds": kinds, "pool": len(pool_texts), "embed_pool_s": round(embed_s, 2),
            "build_s": round(time.perf_counter() - t0, 2)}  # fmt: skip


def build_home(prefix: str, n: int, pool: int, seed: int, key: str, models: Path) -> tuple[Path, dict[str, str], dict[str, Any]]:
    """A temporary ``KEEPSAKE_HOME`` holding a built store (:func:`build`) and links to the
    converted MiniLM in ``models`` (the running profile's: no reconversion): (home, environment
    for child processes, build facts)."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    env = dict(os.environ, KEEPSAKE_HOME=str(home))
    real_home = os.environ.get("KEEPSAKE_HOME")
    try:
        # the converted MiniLM lives in the user's models dir: reuse it (no reconversion)
        (home / "data" / "models").mkdir(parents=True, exist_ok=True)
        for f in models.glob("*.gguf") if models.is_dir() else []:
            try:
                os.link(f, home / "data" / "models" / f.name)
            except OSError:
                pass
        os.environ["KEEPSAKE_HOME"] = str(home)
        info = build(home, n, pool, seed, key)
    finally:
        if real_home is None:
            os.environ.pop("KEEPSAKE_HOME", None)
        else:
            os.environ["KEEPSAKE_HOME"] = real_home
    return home, env, info
