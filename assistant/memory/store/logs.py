"""The two logs of the store: ``audit_log`` (every change, :class:`AuditLog`, ``store.audit_log``)
and ``injection_log`` (which memories went into which turn, :class:`InjectionLog`)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Sequence

from assistant.memory.entries import AuditEntry, InjectionItem, InjectionRecord
from assistant.memory.records import Actor
from assistant.memory.times import ts_to_db
from assistant.memory.store.core import Repository
from assistant.memory.store.rows import audit_from_row, injection_from_row, write_audit
from assistant.memory.store.sqlite.db import Connection


def _select(table: str, **equal: Any) -> tuple[str, list[Any]]:
    """``SELECT * FROM table`` with ``col = ?`` for every keyword that is not None."""
    given = {col: val for col, val in equal.items() if val is not None}
    where = " WHERE " + " AND ".join(f"{col} = ?" for col in given) if given else ""
    return f"SELECT * FROM {table}{where}", list(given.values())


class AuditLog(Repository):
    def add(self, c: Connection, **kw: Any) -> int:
        """One audit row in the caller's transaction (``at`` defaults to now, ``actor`` to the user)."""
        kw.setdefault("at", self.now())
        kw.setdefault("actor", Actor.USER)
        return write_audit(c, **kw)

    def entries(
        self,
        memory_id: int | None = None,
        *,
        session_id: int | None = None,
        run_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[AuditEntry]:
        """Audit entries (oldest first), optionally for one memory, session or consolidation run."""
        sql, params = _select("audit_log", memory_id=memory_id, session_id=session_id, run_id=run_id)
        sql += f" ORDER BY id LIMIT {int(limit) if limit is not None else -1} OFFSET {int(offset)}"
        return [audit_from_row(r) for r in self.conn.execute(sql, params)]


class InjectionLog(Repository):
    def record(
        self,
        turn_id: str,
        items: Sequence[InjectionItem],
        *,
        session_id: int | None = None,
        message_id: int | None = None,
        at: datetime | None = None,
    ) -> list[int]:
        """Log which memories were injected into a turn, with scores and sources."""
        when = ts_to_db(at or self.now())

        def run(c: Connection) -> list[int]:
            out = []
            for i, it in enumerate(items):
                cur = c.execute(
                    "INSERT INTO injection_log(turn_id, at, session_id, message_id, memory_id, rank, score, "
                    "signals, source_message_ids) VALUES (?,?,?,?,?,?,?,?,?)",
                    (
                        str(turn_id),
                        when,
                        session_id,
                        message_id,
                        int(it.memory_id),
                        int(it.rank if it.rank else i),
                        float(it.score),
                        json.dumps({k: float(v) for k, v in it.signals.items()}),
                        json.dumps([int(x) for x in it.source_message_ids]),
                    ),
                )
                out.append(int(cur.lastrowid))
            return out

        return self.write(run)

    def entries(
        self,
        *,
        turn_id: str | None = None,
        session_id: int | None = None,
        memory_id: int | None = None,
        limit: int | None = None,
    ) -> list[InjectionRecord]:
        """Injection-log rows ("why did it say that"), oldest first."""
        sql, params = _select("injection_log", turn_id=turn_id, session_id=session_id, memory_id=memory_id)
        sql += f" ORDER BY id LIMIT {int(limit) if limit is not None else -1}"
        return [injection_from_row(r) for r in self.conn.execute(sql, params)]
