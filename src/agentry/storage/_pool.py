"""`PoolSettings`: the connection pool of a store's database, and the engine built with it."""

from __future__ import annotations

import os
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from agentry.storage._errors import StorageConfigError
from agentry.storage._urls import async_url

__all__ = ["PoolSettings", "create_engine"]


@dataclass(frozen=True)
class PoolSettings:
    """How many connections a store keeps to its database, and how long it waits for one.

    Every store that takes a database URL takes these settings (`pool=`); the defaults are
    SQLAlchemy's. A store under load needs `size + max_overflow` at least as large as the
    requests it serves at once; PostgreSQL's `max_connections` bounds the sum over all
    processes.

    Attributes:
        size: Connections kept open.
        max_overflow: Connections opened beyond `size` at busy times, closed when returned.
        timeout: Seconds a request waits for a free connection before it fails.
        recycle: Seconds after which a connection is replaced (None: never).
        pre_ping: Test each connection before use (survives a restarted server).

    Example:
        >>> pool = PoolSettings(size=20, max_overflow=20, timeout=10.0)
    """

    size: int = 5
    max_overflow: int = 10
    timeout: float = 30.0
    recycle: float | None = None
    pre_ping: bool = False

    def __post_init__(self) -> None:
        if self.size < 1:
            raise StorageConfigError(f"pool size must be at least 1, got {self.size}")
        if self.max_overflow < 0:
            raise StorageConfigError(
                f"pool max_overflow must be 0 or more, got {self.max_overflow}"
            )
        if self.timeout <= 0:
            raise StorageConfigError(f"pool timeout must be positive, got {self.timeout}")
        if self.recycle is not None and self.recycle <= 0:
            raise StorageConfigError(f"pool recycle must be positive, got {self.recycle}")


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
