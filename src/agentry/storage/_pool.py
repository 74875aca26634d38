"""`create_engine`: a store's asyncio engine, with its pool settings."""

from __future__ import annotations

import os

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from agentry.storage._settings import PoolSettings
from agentry.storage._urls import async_url

__all__ = ["create_engine"]


def create_engine(
    database: str | os.PathLike[str], pool: PoolSettings | None = None
) -> AsyncEngine:
    """An asyncio engine for `database` (a URL or a SQLite file path) with `pool`'s settings.

    A SQLite database in memory has a single connection, so `pool` does not apply to it.

    Raises:
        StorageConfigError: `database` is not a database URL.
    """
    url = async_url(database)
    settings = pool or PoolSettings()
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return create_async_engine(url)
    return create_async_engine(
        url,
        pool_size=settings.size,
        max_overflow=settings.max_overflow,
        pool_timeout=settings.timeout,
        pool_recycle=-1 if settings.recycle is None else int(settings.recycle),
        pool_pre_ping=settings.pre_ping,
    )
