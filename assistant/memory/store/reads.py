"""Reading memories: one record, many, a bitemporal list (see :mod:`assistant.memory.store.filters`),
counts, and the version history."""

from __future__ import annotations

from typing import Any, Sequence, Unpack

from assistant.memory.store.core import Repository
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.errors import NotFound
from assistant.memory.store.filters import ORDER_SQL, FilterArgs, MemoryFilter, Order, select_sql
from assistant.memory.records import Memory, MemoryVersion
from assistant.memory.store.rows import IN_IDS, MEMORY_COLUMNS, MEMORY_SELECT, VERSION_COLUMNS, hydrate, ids_json, version_from_row


class MemoryReads(Repository):
    """Reading the ``memories`` table (current versions) and ``memory_versions``. ``store.reads``."""

    @staticmethod
    def require(c: Connection, memory_id: int) -> Any:
        row = c.execute(f"SELECT {MEMORY_SELECT} FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise NotFound(f"no memory with id {memory_id}")
        return row

    def get(self, memory_id: int) -> Memory:
        """The current version of a memory; :class:`NotFound` if there is none."""
        return self.read(lambda c: hydrate(c, [self.require(c, memory_id)])[0])

    def get_many(self, ids: Sequence[int]) -> list[Memory]:
        """Memories for ``ids`` in the given order (unknown ids are skipped)."""
        if not ids:
            return []

        def run(c: Connection) -> list[Memory]:
            rows = c.execute(f"SELECT {MEMORY_SELECT} FROM memories WHERE id IN {IN_IDS}", (ids_json(ids),)).fetchall()
            by_id = {m.id: m for m in hydrate(c, rows)}
            return [by_id[i] for i in ids if i in by_id]

        return self.read(run)

    def kept_from(self, message_id: int) -> list[Memory]:
        """Active fact/profile memories with ``message_id`` among their sources, oldest first
        (what capture kept from one message; the episode, its copy, is not among them)."""

        def run(c: Connection) -> list[Memory]:
            rows = c.execute(f"SELECT {MEMORY_SELECT} FROM memories WHERE kind IN ('fact', 'profile') AND status = 'active' "
                             "AND id IN (SELECT memory_id FROM memory_sources WHERE message_id = ?) ORDER BY id",
                             (int(message_id),)).fetchall()  # fmt: skip
            return hydrate(c, rows)

        return self.read(run)

    def list(
        self,
        where: MemoryFilter | None = None,
        /,
        *,
        order: Order = "newest",
        limit: int | None = None,
        offset: int = 0,
        **filters: Unpack[FilterArgs],
    ) -> list[Memory]:
        """Memories matching ``where`` or the filter keywords (:class:`FilterArgs`; see
        :mod:`assistant.memory.store.filters` for the time axes). ``limit``/``offset`` page lazily;
        :meth:`count` takes the same filters."""
        f = MemoryFilter.of(where, filters)
        sql, params = select_sql(f, self.now())
        sql += f" ORDER BY {ORDER_SQL[order]} LIMIT {int(limit) if limit is not None else -1} OFFSET {int(offset)}"
        return self.read(lambda c: hydrate(c, c.execute(sql, params).fetchall(), f.known_at))

    def count(self, where: MemoryFilter | None = None, /, **filters: Unpack[FilterArgs]) -> int:
        """How many memories :meth:`list` would return (same filters, no paging)."""
        sql, params = select_sql(MemoryFilter.of(where, filters), self.now())
        return int(self.conn.execute(f"SELECT count(*) FROM ({sql})", params).fetchone()[0])

    def history(self, memory_id: int) -> list[MemoryVersion]:
        """Every version of a memory, oldest first; the last one is current."""

        def run(c: Connection) -> list[MemoryVersion]:
            cur = self.require(c, memory_id)
            cols = ", ".join(VERSION_COLUMNS)
            rows = c.execute(f"SELECT {cols} FROM memory_versions WHERE memory_id = ? ORDER BY version", (memory_id,)).fetchall()
            out = [version_from_row(r) for r in rows]
            d = dict(zip(MEMORY_COLUMNS, cur))
            out.append(
                version_from_row(
                    (memory_id, d["version"], d["text"], d["content_hash"], d["kind"], d["valid_at"], d["invalid_at"],
                     d["expired_at"], d["status"], d["trust"], d["confidence"], d["expires_at"], d["pinned"], d["slot"],
                     d["updated_at"], None, d["update_type"], d["actor"], d["reason"])
                )
            )  # fmt: skip
            return out

        return self.read(run)
