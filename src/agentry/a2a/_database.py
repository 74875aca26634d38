"""The engine an A2A server keeps its tasks and sessions through: a SQLite file or a URL.

SQLite allows one writer at a time, so a server talks to a SQLite file through one
connection (its pool has one connection by default), in WAL mode, with every transaction
taking the write lock when it begins (`BEGIN IMMEDIATE`) and a busy timeout, so several
servers on one file wait for each other instead of failing with "database is locked".
PostgreSQL gets a pool of connections whose size is a setting. Under a burst of requests
they queue for a connection (ten minutes by default) rather than fail.
"""

from __future__ import annotations

import os
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry.storage import PoolSettings, StorageConfigError, async_url, create_engine, safe_url

__all__ = ["server_engine", "server_pool", "writer_engine"]

_SQLITE_BUSY_TIMEOUT_MS = 30_000
_POOL_TIMEOUT = 600.0


def server_pool(
    database: str | os.PathLike[str],
    *,
    size: int | None = None,
    max_overflow: int | None = None,
    timeout: float | None = None,
) -> PoolSettings:
    """A server's pool for `database`, each setting left `None` taking the server's
    default: one connection for SQLite (one writer), ten and ten more under load for a
    database server; requests wait up to ten minutes for a connection.

    Raises:
        StorageConfigError: A setting is out of range, or `database` is neither a SQLite
            file nor a SQLite or PostgreSQL URL.
    """
    is_sqlite = _is_sqlite(database)
    return PoolSettings(
        size=size if size is not None else (1 if is_sqlite else 10),
        max_overflow=max_overflow if max_overflow is not None else (0 if is_sqlite else 10),
        timeout=timeout if timeout is not None else _POOL_TIMEOUT,
        pre_ping=not is_sqlite,
    )


def server_engine(database: str | os.PathLike[str], pool: PoolSettings | None) -> AsyncEngine:
    """An asyncio engine for `database` with `pool` (default: :func:`server_pool`'s).

    Raises:
        StorageConfigError: `database` is neither a SQLite file nor a SQLite or PostgreSQL
            URL.
    """
    is_sqlite = _is_sqlite(database)
    engine = create_engine(database, pool or server_pool(database))
    if is_sqlite:
        _one_writer_at_a_time(engine.sync_engine)
    return engine


def writer_engine(engine: AsyncEngine) -> sa.Engine | None:
    """A synchronous engine of one connection to `engine`'s database, for a writer on a
    thread of its own (`GroupCommitWriter`); `None` for SQLite in memory, which another
    connection would not see.
    """
    url = engine.url
    if url.get_backend_name() == "sqlite":
        if url.database in (None, "", ":memory:"):
            return None
        sync = sa.create_engine(url.set(drivername="sqlite"), poolclass=sa.pool.NullPool)
        _one_writer_at_a_time(sync)
        return sync
    return sa.create_engine(url.set(drivername="postgresql+psycopg"), poolclass=sa.pool.NullPool)


def _is_sqlite(database: str | os.PathLike[str]) -> bool:
    backend = async_url(database).get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise StorageConfigError(
            f"database {safe_url(os.fspath(database))!r} is neither SQLite nor PostgreSQL; "
            "give a SQLite file, sqlite:///FILE or postgresql://USER@HOST/DATABASE"
        )
    return backend == "sqlite"


def _one_writer_at_a_time(engine: sa.Engine) -> None:
    """WAL mode, a busy timeout, and transactions that take the write lock as they begin
    (a read that later writes cannot then fail to upgrade its lock)."""

    @event.listens_for(engine, "connect")
    def _configure(connection: Any, _record: object) -> None:  # pyright: ignore[reportUnusedFunction]
        # The driver's own transaction handling is off: the "begin" hook below starts them.
        connection.isolation_level = None
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:  # pyright: ignore[reportUnusedFunction]
        # A schema upgrade opens its own `BEGIN IMMEDIATE` on an autocommit connection.
        if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
            connection.exec_driver_sql("BEGIN IMMEDIATE")
