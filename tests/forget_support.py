"""Helpers for the forget tests: unique markers, and looking for them everywhere.

- :func:`count_in_db` reads every table and shadow table of the decrypted database (FTS5
  ``*_data``/``*_idx``, vec0 chunks) and the FTS vocabularies.
- :func:`decrypted_pages` decrypts every page of the SQLCipher file itself - free pages
  included - and every frame of its ``-wal`` file, with the database key (SQLCipher 4 defaults:
  4096-byte pages, 80 reserved bytes = 16-byte IV + 64-byte HMAC, AES-256-CBC; page 1 starts
  with the 16-byte salt). A raw key (``x'..'``) is used as the AES key as is. Page 1 decrypts
  to SQLite's header fields (page size 4096 at offset 16), which the helper checks, so a wrong
  decryption cannot pass silently.
- :func:`count_in_files` reads every byte of every file under a folder.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Iterator

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from assistant.config import paths

PAGE = 4096
RESERVE = 80


def marker() -> str:
    """A unique token: letters and digits, so FTS5 indexes it as one term."""
    return "Zq" + uuid.uuid4().hex[:14].upper() + "Xj"


def name_marker() -> str:
    """A unique made-up name (letters only, capitalised): what the summary's code facts keep
    whole, as they would a person's name."""
    letters = "bcdfghjklmnpqrstvwxz"
    n = uuid.uuid4().int
    return "Zq" + "".join(letters[(n >> (5 * i)) % len(letters)] + "aeiou"[(n >> (5 * i + 3)) % 5] for i in range(6))


def needles(mark: str) -> list[bytes]:
    """What to look for in raw bytes: the marker (any case) and its middle (an FTS5 leaf
    stores a term after the prefix it shares with the previous term)."""
    low = mark.lower()
    return [low.encode(), low[3:-3].encode()]


def count_in_db(store, mark: str) -> dict[str, int]:
    """Occurrences of ``mark`` (case-insensitive) per table of the decrypted database, plus
    the FTS vocabularies."""
    c = store.conn
    needle = mark.lower()
    hits: dict[str, int] = {}
    tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    assert {"memory_fts_data", "memory_fts_idx", "message_fts_data", "memory_vec_vector_chunks00", "context_history"} <= set(tables)
    for t in tables:
        n = 0
        for row in c.execute(f'SELECT * FROM "{t}"'):
            for v in row:
                if isinstance(v, str):
                    n += v.lower().count(needle)
                elif isinstance(v, (bytes, bytearray, memoryview)):
                    n += bytes(v).lower().count(needle.encode())
        if n:
            hits[t] = n
    for fts in ("memory_fts", "message_fts"):
        c.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{fts}_vocab USING fts5vocab(main, '{fts}', 'row')")
        n = sum(1 for (term,) in c.execute(f"SELECT term FROM temp.{fts}_vocab") if needle in term)
        c.execute(f"DROP TABLE temp.{fts}_vocab")
        if n:
            hits[f"{fts} vocabulary"] = n
    return hits


def count_in_files(root: Path, mark: str, *, skip: tuple[Path, ...] = ()) -> dict[str, int]:
    """Files under ``root`` (every byte) holding the marker, except ``skip``."""
    skipped = {p.resolve() for p in skip}
    hits = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            if p.resolve() in skipped:
                continue
            data = p.read_bytes().lower()
            n = sum(data.count(x) for x in needles(mark))
            if n:
                hits[str(p)] = n
    return hits


def _decrypt(key: bytes, pgno: int, page: bytes) -> bytes:
    start = 16 if pgno == 1 else 0
    iv = page[PAGE - RESERVE : PAGE - RESERVE + 16]
    dec = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    return dec.update(page[start : PAGE - RESERVE]) + dec.finalize()


def decrypted_pages(db_path: Path, key_hex: str) -> Iterator[tuple[str, int, bytes]]:
    """("db"|"wal", page number, plaintext) for every page of the file (free pages included)
    and every frame of the WAL."""
    key = bytes.fromhex(key_hex)
    data = Path(db_path).read_bytes()
    assert len(data) % PAGE == 0, "not a 4096-byte-page SQLCipher file"
    for i in range(len(data) // PAGE):
        plain = _decrypt(key, i + 1, data[i * PAGE : (i + 1) * PAGE])
        if i == 0:
            assert plain[:2] == b"\x10\x00", "page 1 did not decrypt to a SQLite header (wrong key or layout)"
        yield "db", i + 1, plain
    wal = Path(str(db_path) + "-wal")
    if wal.exists():
        raw = wal.read_bytes()
        pos = 32
        while pos + 24 + PAGE <= len(raw):
            pgno = int.from_bytes(raw[pos : pos + 4], "big")
            yield "wal", pgno, _decrypt(key, pgno, raw[pos + 24 : pos + 24 + PAGE])
            pos += 24 + PAGE


def count_in_pages(db_path: Path, key_hex: str, mark: str) -> dict[str, int]:
    hits: dict[str, int] = {}
    for where, pgno, plain in decrypted_pages(db_path, key_hex):
        low = plain.lower()
        n = sum(low.count(x) for x in needles(mark))
        if n:
            hits[f"{where} page {pgno}"] = n
    return hits


def db_key(store) -> str:
    from assistant.memory.store.sqlite import keys

    key, _info = keys.load_key(store.path, paths().key_file)
    assert key, "no key for the store"
    return key
