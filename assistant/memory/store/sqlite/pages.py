"""Rows straight from the pages of a damaged database file, for ``keepsake repair`` when SQLite
itself cannot read it (a file cut in half: the schema's or a table's upper b-tree pages are gone,
so every query fails with "malformed" although half the rows are still on disk).

Each page is read on its own. With SQLCipher (v4 defaults: AES-256-CBC, 16-byte IV + 64-byte
HMAC-SHA512 reserved at the end of each page, raw 256-bit key) a page counts only when its HMAC
verifies: ``HMAC-SHA512(hmac_key, page[0 or 16 : size-64] + le32(pgno))`` with ``hmac_key =
PBKDF2-HMAC-SHA512(key, salt XOR 0x3a, 2, 32)`` and ``salt`` the file's first 16 bytes; then it
is decrypted (page 1's first 16 bytes are the salt; its plaintext starts "SQLite format 3").
A missing, torn or forged page is skipped: nothing is guessed from bytes that do not verify.

Then the SQLite file format: table b-tree leaf pages (type 13) hold cells ``varint payload
length, varint rowid, record`` (payload beyond ``U - 35`` bytes continues on an overflow chain,
``U`` = page size - reserved bytes); a record is a header of serial types and the values.
Pages on the freelist are left out (old content of freed pages). Which table a leaf belongs to
is known when its root is known (:func:`tree_pages` from a readable ``sqlite_master`` row), else
it is told by the row's shape (:func:`matches`): its column count and the storage class of every
value against the declared type and NOT NULL of each column; a row that fits no table or
more than one is left out and counted.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

HEADER = b"SQLite format 3\x00"
SALT = 16
IV = 16
MAC = 64


@dataclass
class PageFile:
    """The verified, decrypted pages of one file (page number -> bytes of ``usable`` length)."""

    page_size: int
    usable: int
    pages: dict[int, bytes] = field(default_factory=dict)
    total: int = 0  # pages the file has room for
    bad: int = 0  # present but failing verification / not decryptable


def _varint(b: bytes, i: int) -> tuple[int, int]:
    v = 0
    for k in range(8):
        c = b[i + k]
        v = (v << 7) | (c & 0x7F)
        if not c & 0x80:
            return v, i + k + 1
    return (v << 8) | b[i + 8], i + 9


def read_pages(path: Path, key_hex: str | None) -> PageFile | None:
    """Every page of ``path`` that verifies (see the module doc); None when page 1 does not."""
    data = Path(path).read_bytes()
    if key_hex is None:
        if not data.startswith(HEADER) or len(data) < 100:
            return None
        size = struct.unpack(">H", data[16:18])[0] or 65536
        usable = size - data[20]
        pf = PageFile(size, usable, total=len(data) // size)
        for n in range(1, pf.total + 1):
            pf.pages[n] = data[(n - 1) * size : (n - 1) * size + usable]
        return pf
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # deferred: only repair needs it

    key = bytes.fromhex(key_hex)
    salt = data[:SALT]
    hkey = hashlib.pbkdf2_hmac("sha512", key, bytes(b ^ 0x3A for b in salt), 2, 32)

    def decrypt(n: int, page: bytes, size: int) -> bytes | None:
        start = SALT if n == 1 else 0
        mac = hmac.new(hkey, page[start : size - MAC] + struct.pack("<I", n), hashlib.sha512).digest()
        if not hmac.compare_digest(mac, page[size - MAC : size]):
            return None
        d = Cipher(algorithms.AES(key), modes.CBC(page[size - MAC - IV : size - MAC])).decryptor()
        plain = d.update(page[start : size - MAC - IV]) + d.finalize()
        return (HEADER + plain) if n == 1 else plain

    first = None
    for size in (4096, 1024, 2048, 8192, 16384, 32768, 65536):  # SQLCipher 4's default first
        if len(data) >= size:
            first = decrypt(1, data[:size], size)
            if first is not None:
                break
    if first is None:
        return None
    reserve = first[20]
    pf = PageFile(size, size - reserve, total=len(data) // size)
    pf.pages[1] = first[: pf.usable]
    for n in range(2, pf.total + 1):
        plain = decrypt(n, data[(n - 1) * size : n * size], size)
        if plain is None:
            pf.bad += 1
        else:
            pf.pages[n] = plain[: pf.usable]
    return pf


def _header(n: int) -> int:
    return 100 if n == 1 else 0


def freelist(pf: PageFile) -> set[int]:
    """Pages on the freelist (trunk and leaf pages that can still be read)."""
    out: set[int] = set()
    trunk = struct.unpack(">I", pf.pages[1][32:36])[0]
    while trunk and trunk in pf.pages and trunk not in out:
        out.add(trunk)
        page = pf.pages[trunk]
        count = struct.unpack(">I", page[4:8])[0]
        for k in range(min(count, (pf.usable - 8) // 4)):
            out.add(struct.unpack(">I", page[8 + 4 * k : 12 + 4 * k])[0])
        trunk = struct.unpack(">I", page[:4])[0]
    return out


def _payload(pf: PageFile, page: bytes, i: int, size: int, index: bool = False) -> bytes | None:
    """The cell payload at ``page[i:]`` (following the overflow chain); None when a page of
    the chain is missing."""
    u = pf.usable
    x, m = (((u - 12) * 64 // 255) - 23 if index else u - 35), ((u - 12) * 32 // 255) - 23
    if size <= x:
        return page[i : i + size]
    k = m + (size - m) % (u - 4)
    local = k if k <= x else m
    out = bytearray(page[i : i + local])
    nxt = struct.unpack(">I", page[i + local : i + local + 4])[0]
    seen = set()
    while len(out) < size:
        if nxt not in pf.pages or nxt in seen:
            return None
        seen.add(nxt)
        ov = pf.pages[nxt]
        out += ov[4 : 4 + min(u - 4, size - len(out))]
        nxt = struct.unpack(">I", ov[:4])[0]
    return bytes(out)


def record(payload: bytes) -> tuple[Any, ...]:
    """Decode a record (SQLite file format section 2.1); raises on a malformed one."""
    hsize, i = _varint(payload, 0)
    types = []
    while i < hsize:
        t, i = _varint(payload, i)
        types.append(t)
    j, out = hsize, []
    for t in types:
        if t == 0:
            out.append(None)
        elif t in (1, 2, 3, 4, 5, 6):
            n = (1, 2, 3, 4, 6, 8)[t - 1]
            out.append(int.from_bytes(payload[j : j + n], "big", signed=True))
            j += n
        elif t == 7:
            out.append(struct.unpack(">d", payload[j : j + 8])[0])
            j += 8
        elif t in (8, 9):
            out.append(t - 8)
        elif t >= 12:
            n = (t - 12) // 2
            if j + n > len(payload):
                raise ValueError("record runs past its payload")
            out.append(payload[j : j + n] if t % 2 == 0 else payload[j : j + n].decode("utf-8"))
            j += n
        else:
            raise ValueError(f"reserved serial type {t}")
    return tuple(out)


def leaf_rows(pf: PageFile, n: int) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """(rowid, values) of every readable cell of table leaf page ``n``."""
    page, h = pf.pages[n], _header(n)
    cells = struct.unpack(">H", page[h + 3 : h + 5])[0]
    for k in range(cells):
        try:
            ptr = struct.unpack(">H", page[h + 8 + 2 * k : h + 10 + 2 * k])[0]
            size, i = _varint(page, ptr)
            rowid, i = _varint(page, i)
            if rowid >= 1 << 63:
                rowid -= 1 << 64
            payload = _payload(pf, page, i, size)
            if payload is not None:
                yield rowid, record(payload)
        except (IndexError, ValueError, UnicodeDecodeError, struct.error):
            continue


def index_rows(pf: PageFile, n: int) -> Iterator[tuple[Any, ...]]:
    """The records of index leaf page ``n`` (a WITHOUT ROWID table's rows)."""
    page, h = pf.pages[n], _header(n)
    cells = struct.unpack(">H", page[h + 3 : h + 5])[0]
    for k in range(cells):
        try:
            ptr = struct.unpack(">H", page[h + 8 + 2 * k : h + 10 + 2 * k])[0]
            size, i = _varint(page, ptr)
            payload = _payload(pf, page, i, size, index=True)
            if payload is not None:
                yield record(payload)
        except (IndexError, ValueError, UnicodeDecodeError, struct.error):
            continue


def index_tree_rows(pf: PageFile, root: int) -> Iterator[tuple[Any, ...]]:
    """Every readable record of the index b-tree at ``root``: a WITHOUT ROWID table keeps each
    row once, in a leaf or in an interior cell (after its 4-byte child pointer)."""
    todo, seen = [root], set()
    while todo:
        n = todo.pop()
        if n in seen or n not in pf.pages:
            continue
        seen.add(n)
        kind = page_type(pf, n)
        if kind == 10:
            yield from index_rows(pf, n)
        elif kind == 2:
            page, h = pf.pages[n], _header(n)
            cells = struct.unpack(">H", page[h + 3 : h + 5])[0]
            todo.append(struct.unpack(">I", page[h + 8 : h + 12])[0])
            for k in range(cells):
                try:
                    ptr = struct.unpack(">H", page[h + 12 + 2 * k : h + 14 + 2 * k])[0]
                    todo.append(struct.unpack(">I", page[ptr : ptr + 4])[0])
                    size, i = _varint(page, ptr + 4)
                    payload = _payload(pf, page, i, size, index=True)
                    if payload is not None:
                        yield record(payload)
                except (IndexError, ValueError, UnicodeDecodeError, struct.error):
                    continue


def page_type(pf: PageFile, n: int) -> int:
    return pf.pages[n][_header(n)]


def tree_pages(pf: PageFile, root: int) -> set[int]:
    """The leaf pages reachable from ``root`` through pages that can be read (table and index
    b-trees alike)."""
    leaves, todo, seen = set(), [root], set()
    while todo:
        n = todo.pop()
        if n in seen or n not in pf.pages:
            continue
        seen.add(n)
        kind = page_type(pf, n)
        if kind in (13, 10):
            leaves.add(n)
        elif kind in (5, 2):
            page, h = pf.pages[n], _header(n)
            cells = struct.unpack(">H", page[h + 3 : h + 5])[0]
            todo.append(struct.unpack(">I", page[h + 8 : h + 12])[0])
            for k in range(cells):
                ptr = struct.unpack(">H", page[h + 12 + 2 * k : h + 14 + 2 * k])[0]
                todo.append(struct.unpack(">I", page[ptr : ptr + 4])[0])
    return leaves


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # declared: TEXT | INTEGER | REAL | BLOB | ""
    notnull: bool
    has_default: bool
    alias: bool  # INTEGER PRIMARY KEY: the rowid (NULL in the record)


def matches(columns: list[Column], values: tuple[Any, ...]) -> bool:
    """Whether a record fits a table: as many values as its columns (fewer when the missing
    trailing columns were added later and may be NULL or have a default), and each value's
    storage class the one its column's declared type stores."""
    if len(values) > len(columns) or not values:
        return False
    if any(c.notnull and not c.has_default for c in columns[len(values) :]):
        return False
    for c, v in zip(columns, values):
        if v is None:
            if c.notnull and not c.alias:
                return False
        elif c.alias:
            return False
        elif c.type == "TEXT" and not isinstance(v, str):
            return False
        elif c.type == "INTEGER" and not isinstance(v, int):
            return False
        elif c.type == "REAL" and not isinstance(v, (int, float)):
            return False
        elif c.type == "BLOB" and not isinstance(v, bytes):
            return False
    return True
