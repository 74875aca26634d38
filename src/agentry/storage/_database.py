"""`StoreDatabase`: one store's engine and versioned tables, prepared on first use."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from functools import partial

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry.storage._errors import SchemaVersionError, StorageConfigError, StorageError
from agentry.storage._pool import create_engine
from agentry.storage._schema import Schema, create_tables, ensure_schema
from agentry.storage._settings import PoolSettings
from agentry.storage._urls import DATABASE_URL_ENV, default_database_url

__all__ = ["StoreDatabase", "table_schema"]


def table_schema(table: sa.Table) -> Schema:
    """The schema of a store that keeps one table, at version 1: the table is created, or
    adopted when a table of its name has its columns."""
    return Schema(table.name, (partial(create_tables, metadata=table.metadata),))


class StoreDatabase:
    """The database of one store: its engine (made from a URL, or shared) and its table,
    brought to the store's version the first time the store needs it.

    Args:
        store: The store's name, for messages.
        table: The store's table.
        url: A database URL or SQLite file path; without it and without `engine`,
            `$AGENTRY_DATABASE_URL`.
        engine: An existing engine to share (not disposed by `close`).
        pool: The pool of the engine made from the URL.
        schema: The table's versions (default: `table_schema(table)`).
        open_error: The store's own error for a database it cannot open (default: the
            `StorageError` as it is); a newer schema raises `SchemaVersionError` whatever
            the store.

    Raises:
        StorageConfigError: Both `url` and `engine` were given, or neither and
            `$AGENTRY_DATABASE_URL` is unset; or `pool` comes with `engine`.
    """

    def __init__(
        self,
        store: str,
        table: sa.Table,
        *,
        url: str | os.PathLike[str] | None = None,
        engine: AsyncEngine | None = None,
        pool: PoolSettings | None = None,
        schema: Schema | None = None,
        open_error: Callable[[StorageError], Exception] | None = None,
    ) -> None:
        if url is not None and engine is not None:
            raise StorageConfigError(f"{store} takes url= or engine=, not both")
        if engine is not None and pool is not None:
            raise StorageConfigError(
                f"{store} got pool= with engine=: set the pool where the engine is made"
            )
        if url is None and engine is None:
            url = default_database_url()
            if url is None:
                raise StorageConfigError(
                    f"{store} needs a database: pass a URL (postgresql://USER@HOST/DB, "
                    f"sqlite:///FILE) or engine=, or set ${DATABASE_URL_ENV}"
                )
        self.table = table
        self.schema = schema or table_schema(table)
        self._open_error = open_error
        self._url = url
        self._pool = pool
        self._engine = engine
        self._owns_engine = engine is None
        self._ready = False
        self._lock = asyncio.Lock()

    async def engine(self) -> AsyncEngine:
        """The engine, its tables at the store's version.

        Raises:
            SchemaVersionError: The database holds a newer version, or a foreign table.
            Exception: `open_error`, when the database cannot be reached or prepared.
        """
        if self._ready and self._engine is not None:
            return self._engine
        async with self._lock:
            if self._engine is None:
                assert self._url is not None
                self._engine = create_engine(self._url, self._pool)
            if not self._ready:
                try:
                    await ensure_schema(self._engine, self.schema)
                except SchemaVersionError:
                    raise
                except StorageError as error:
                    if self._open_error is None:
                        raise
                    raise self._open_error(error) from error
                self._ready = True
        return self._engine

    async def close(self) -> None:
        """Release the connections of an engine made here (a shared one is left open)."""
        if self._engine is not None and self._owns_engine:
            await self._engine.dispose()
