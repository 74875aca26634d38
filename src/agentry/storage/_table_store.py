"""`SQLTableStore`: the base of a store that keeps one versioned table in a SQL database."""

from __future__ import annotations

import os
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry.storage._database import StoreDatabase
from agentry.storage._errors import StorageError
from agentry.storage._schema import Schema
from agentry.storage._settings import PoolSettings

__all__ = ["SQLTableStore"]


class SQLTableStore:
    """The base of a store that keeps one table in a SQL database (a SQLite file, or
    PostgreSQL by URL): the database is opened, and the table brought to the store's
    version, on first use or by `prepare()`; `close()` releases the connections.

    A subclass passes its table to `SQLTableStore.__init__` and reads and writes through
    the engine that `await self._engine()` returns.

    Args:
        table: The store's table.
        url: A database URL or SQLite file path; without it and without `engine`,
            `$AGENTRY_DATABASE_URL`.
        engine: An existing engine to share (not disposed by `close`).
        pool: The pool of the engine made from the URL.
        schema: The table's versions (default: version 1 creates the table).
        open_error: The store's own error for a database it cannot open (default: the
            `StorageError` as it is).

    Raises:
        StorageConfigError: Both `url` and `engine` were given, or neither and
            `$AGENTRY_DATABASE_URL` is unset; or `pool` comes with `engine`.

    Example:
        >>> class NoteStore(SQLTableStore):
        ...     def __init__(self, url: str) -> None:
        ...         table = sa.Table("notes", sa.MetaData(), sa.Column("text", sa.Text))
        ...         super().__init__(table, url=url)
    """

    def __init__(
        self,
        table: sa.Table,
        *,
        url: str | os.PathLike[str] | None = None,
        engine: AsyncEngine | None = None,
        pool: PoolSettings | None = None,
        schema: Schema | None = None,
        open_error: Callable[[StorageError], Exception] | None = None,
    ) -> None:
        self.table = table
        self._database = StoreDatabase(
            type(self).__name__,
            table,
            url=url,
            engine=engine,
            pool=pool,
            schema=schema,
            open_error=open_error,
        )

    async def prepare(self) -> None:
        """Open the database and bring the store's table to this agentry's version (done
        on first use too; `agentry db upgrade` calls it ahead of a deployment).

        Raises:
            SchemaVersionError: The database holds a newer version of the table.
            Exception: The store's `open_error` (or `StorageError`), when the database
                cannot be reached or prepared.
        """
        await self._database.engine()

    async def close(self) -> None:
        """Release the database connections (only those of an engine the store made)."""
        await self._database.close()

    async def _engine(self) -> AsyncEngine:
        """The engine, the table at the store's version."""
        return await self._database.engine()
