"""Reading the store for the vector cache: the vectors through sqlite-vec's ``vec0`` (row by row),
or straight from sqlite-vec 0.1's chunk tables (~10x faster, checked against the public read);
the rows' filter columns as int64/int8 arrays (:func:`read_meta`); timestamps as int64 microseconds."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterator, Sequence

import numpy as np

from assistant.memory.times import to_utc


def to_us(value: datetime) -> int:
    """Microseconds since the epoch (UTC) for an aware datetime."""
    dt = to_utc(value)
    return int(dt.timestamp()) * 1_000_000 + dt.microsecond


def ts_us(values: Sequence[str | None], null: int) -> np.ndarray:
    """Parse the store's fixed-width UTC timestamps (``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``)."""
    raw = np.array([v[:26] if v else "NaT" for v in values], dtype="datetime64[us]")
    out = raw.astype(np.int64)
    out[np.isnat(raw)] = null
    return out


def _us_sql(col: str, null: str) -> str:
    """SQL for a stored timestamp (``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``, UTC) as microseconds
    since the epoch: ``strftime('%s', first 19 characters) * 10^6 + the 6 digits after the dot``
    (the same value :func:`ts_us` parses); NULL or unreadable -> the parameter ``null``."""
    return f"coalesce(CAST(strftime('%s', substr({col}, 1, 19)) AS INTEGER) * 1000000 + CAST(substr({col}, 21, 6) AS INTEGER), :{null})"


def _code_sql(col: str, codes: dict[str, int], other: int) -> str:
    return f"CASE {col} " + " ".join(f"WHEN '{k}' THEN {int(v)}" for k, v in codes.items()) + f" ELSE {int(other)} END"


def _ints(text: str, n: int) -> np.ndarray:
    """The ``n`` comma-separated integers of ``text``, parsed in C (``str.split`` makes a Python
    string of each: 2 ms per 10,000 against 0.2 ms)."""
    out = np.fromstring(text, dtype=np.int64, sep=",")
    return out if len(out) == n else np.array(text.split(","), dtype=np.int64)


MIN_ID = -(2**63)
META_COLUMNS = ("id", "valid_at", "invalid_at", "expired_at", "expires_at", "created_at", "status", "kind", "version")


def read_meta(c: Any, chunk: int, status_codes: dict[str, int], kind_codes: dict[str, int],
              min_us: int, max_us: int) -> Iterator[tuple[dict[str, np.ndarray], list[str]]]:  # fmt: skip
    """Every memory row's filter columns, ``chunk`` rows at a time by ascending id: ({column:
    array} for :data:`META_COLUMNS`, the rows' scopes), aligned (every aggregate of a chunk is fed
    the same rows in the same order; the ``id`` column says which). Each chunk is ONE row of
    ``group_concat`` strings computed by SQLite (timestamps to microseconds, status and kind to
    their codes: unknown status 3, unknown kind -1), parsed by numpy: no Python object per row,
    and one SQLite step per chunk, which runs without the GIL (a per-row fetch hands the GIL
    back and forth 10,000 times while the caller's thread imports and embeds)."""
    exprs = {"id": "id", "valid_at": _us_sql("valid_at", "lo"), "invalid_at": _us_sql("invalid_at", "hi"),
             "expired_at": _us_sql("expired_at", "hi"), "expires_at": _us_sql("expires_at", "hi"),
             "created_at": _us_sql("created_at", "lo"), "status": _code_sql("status", status_codes, 3),
             "kind": _code_sql("kind", kind_codes, -1), "version": "version"}  # fmt: skip
    aggs = ", ".join(f"group_concat({exprs[name]}, ',')" for name in META_COLUMNS)
    sql = (f"SELECT count(*), max(id), json_group_array(scope), {aggs} FROM "
           "(SELECT * FROM memories WHERE id > :after ORDER BY id LIMIT :chunk)")  # fmt: skip
    types = {"status": np.int8, "kind": np.int8, "version": np.int32}
    after = MIN_ID
    while True:
        n, last, scopes, *cols = c.execute(sql, {"after": after, "chunk": chunk, "lo": min_us, "hi": max_us}).fetchone()
        if not n:
            return
        out = {name: _ints(text, n).astype(types.get(name, np.int64), copy=False) for name, text in zip(META_COLUMNS, cols)}
        yield out, json.loads(scopes)
        if n < chunk:
            return
        after = last


class LayoutError(Exception):
    """sqlite-vec's chunk tables are not laid out as expected."""


def read_vectors(c: Any, dim: int, chunk: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(memory ids, float32 vectors) in batches through ``vec0`` (row by row, ~10x slower than
    :func:`read_vector_chunks`)."""
    cur = c.execute("SELECT rowid, embedding FROM memory_vec")
    while batch := cur.fetchmany(chunk):
        pairs = [(mid, blob) for mid, blob in batch if blob is not None and len(blob) == 4 * dim]
        if pairs:
            mids = np.fromiter((m for m, _ in pairs), dtype=np.int64, count=len(pairs))
            yield mids, np.frombuffer(b"".join(b for _, b in pairs), dtype=np.float32).reshape(len(pairs), dim)


def read_vector_chunks(c: Any, dim: int) -> Iterator[tuple[np.ndarray, np.ndarray]] | None:
    """The same, straight from sqlite-vec 0.1's tables: ``<t>_chunks(chunk_id, size, validity
    bitmap, rowids int64[])`` and ``<t>_vector_chunks00(rowid=chunk_id, vectors)``, one chunk
    at a time. None when the layout is not recognised up front; while streaming, any size that
    does not fit or a vector that differs from the public read raises :class:`LayoutError`."""
    try:
        info = dict(c.execute("SELECT key, value FROM memory_vec_info").fetchall())
        if (info.get("CREATE_VERSION_MAJOR"), info.get("CREATE_VERSION_MINOR")) != (0, 1):
            return None
        chunks = []
        for chunk_id, size, validity, rowids in c.execute("SELECT chunk_id, size, validity, rowids FROM memory_vec_chunks"):
            if len(rowids) != 8 * size or len(validity) * 8 < size:
                return None
            valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
            chunks.append((chunk_id, size, valid, np.frombuffer(rowids, dtype=np.int64)[valid]))
        if sum(len(ids) for *_, ids in chunks) != c.execute("SELECT count(*) FROM memory_vec_rowids").fetchone()[0]:
            return None
    except Exception:  # noqa: BLE001 - another sqlite-vec layout
        return None

    def stream() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        checked = False
        for chunk_id, size, valid, ids in chunks:
            if not len(ids):
                continue
            row = c.execute("SELECT vectors FROM memory_vec_vector_chunks00 WHERE rowid = ?", (chunk_id,)).fetchone()
            if row is None or len(row[0]) != 4 * dim * size:
                raise LayoutError(f"vector chunk {chunk_id}")
            vecs = np.frombuffer(row[0], dtype=np.float32).reshape(size, dim)[valid]
            if not checked:
                got = c.execute("SELECT embedding FROM memory_vec WHERE rowid = ?", (int(ids[-1]),)).fetchone()
                if got is None or bytes(got[0]) != vecs[-1].tobytes():
                    raise LayoutError("vector mismatch")
                checked = True
            yield ids, vecs

    return stream()
