"""`OutsideTables`: what the worker-process tests' apps write to, in a database of its
own (on SQLAlchemy's synchronous engine), as an outside system would keep it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa

__all__ = ["OutsideTables"]


class OutsideTables:
    """Tables that the calls write to, as an outside system would keep them: each row
    names what was done (a call's idempotency key, say) and the process that did it.

    Args:
        url: The database (`postgresql://` goes through psycopg 3, like agentry's stores).
        tables: `CREATE TABLE` bodies (`"calls (key TEXT PRIMARY KEY, pid INTEGER)"`),
            created when missing.
    """

    def __init__(self, url: str, tables: Sequence[str]) -> None:
        self.engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
        with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":
                # Workers start together; CREATE TABLE IF NOT EXISTS races on PostgreSQL.
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(7316)"))
            for table in tables:
                connection.execute(sa.text(f"CREATE TABLE IF NOT EXISTS {table}"))

    def note(self, table: str, key: str) -> None:
        """A row `(key, this process's pid)` in `table` (unless the table's key has it)."""
        with self.engine.begin() as connection:
            connection.execute(
                sa.text(f"INSERT INTO {table} VALUES (:key, :pid) ON CONFLICT DO NOTHING"),
                {"key": key, "pid": os.getpid()},
            )

    def rows(self, query: str, values: Mapping[str, object] | None = None) -> list[tuple[Any, ...]]:
        """The rows `query` selects."""
        with self.engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sa.text(query), dict(values or {}))]

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()
