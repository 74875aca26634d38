"""`StoreDatabase`: one store's engine and versioned tables, prepared on first use."""

from __future__ import annotations

import asyncio
import os

from sqlalchemy.ext.asyncio import AsyncEngine

from agentry.storage._errors import StorageConfigError
from agentry.storage._pool import create_engine
from agentry.storage._schema import Schema, ensure_schema
from agentry.storage._settings import PoolSettings
from agentry.storage._urls import DATABASE_URL_ENV, default_database_url

__all__ = ["StoreDatabase"]


class StoreDatabase:
    """The database of one store: its engine (made from a URL, or shared) and its schema,
    brought to the store's version the first time the store needs it.

    Args:
        store: The store's name, for messages.
        schema: The store's versioned tables.
        url: A database URL or SQLite file path; without it and without `engine`,
            `$AGENTRY_DATABASE_URL`.
        engine: An existing engine to share (not disposed by `close`).
        pool: The pool of the engine made from the URL.

    Raises:
        StorageConfigError: Both `url` and `engine` were given, or neither and
            `$AGENTRY_DATABASE_URL` is unset; or `pool` comes with `engine`.
    """

    def __init__(
        self,
        store: str,
        schema: Schema,
        *,
        url: str | os.PathLike[str] | None = None,
        engine: AsyncEngine | None = None,
        pool: PoolSettings | None = None,
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
        self.schema = schema
        self._url = url
        self._pool = pool
        self._engine = engine
        self._owns_engine = engine is None
        self._ready = False
        self._lock = asyncio.Lock()

    async def engine(self) -> AsyncEngine:
        """The engine, its tables at the store's version.

        Raises:
            SchemaVersionError: The database holds a newer version, or foreign tables.
            StorageError: The database cannot be reached or prepared.
        """
        if self._ready and self._engine is not None:
            return self._engine
        async with self._lock:
            if self._engine is None:
                assert self._url is not None
                self._engine = create_engine(self._url, self._pool)
            if not self._ready:
                await ensure_schema(self._engine, self.schema)
                self._ready = True
        return self._engine

    async def close(self) -> None:
        """Release the connections of an engine made here (a shared one is left open)."""
        if self._engine is not None and self._owns_engine:
            await self._engine.dispose()
