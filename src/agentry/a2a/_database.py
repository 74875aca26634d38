"""The database an A2A server keeps its tasks and sessions in: a SQLite file or a URL.

SQLite allows one writer at a time, so a server talks to a SQLite file through one
connection (its pool has one connection by default), in WAL mode, with every transaction
taking the write lock when it begins (`BEGIN IMMEDIATE`) and a busy timeout, so several
servers on one file wait for each other instead of failing with "database is locked".
PostgreSQL gets a pool of connections whose size is a setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from agentry.a2a._errors import A2AConfigError

__all__ = ["PoolSettings", "database_engine", "database_url"]

_ASYNC_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}
_SQLITE_BUSY_TIMEOUT_MS = 30_000


@dataclass(frozen=True)
class PoolSettings:
    """How many database connections a server holds, and how long a request waits for one.

    Args:
        size: Connections kept open (default: 1 for SQLite, which allows one writer;
            10 for a database server).
        max_overflow: Connections opened beyond `size` under load (default: 0 for
            SQLite, 10 otherwise).
        timeout: Seconds a request waits for a free connection before it fails (ten
            minutes: under a burst of requests, they queue rather than fail).
    """

    size: int | None = None
    max_overflow: int | None = None
    timeout: float = 600.0

    def __post_init__(self) -> None:
        if self.size is not None and self.size < 1:
            raise A2AConfigError(f"pool_size must be at least 1, got {self.size}")
        if self.max_overflow is not None and self.max_overflow < 0:
            raise A2AConfigError(f"pool_max_overflow must not be negative, got {self.max_overflow}")
        if self.timeout <= 0:
            raise A2AConfigError(f"pool_timeout must be positive, got {self.timeout}")


def database_url(database: str | Path) -> URL:
    """The SQLAlchemy async URL of `database`: a SQLite file's path, or a URL
    (`sqlite:///tasks.sqlite`, `postgresql://user@host/db`).

    Raises:
        A2AConfigError: The URL is malformed or names a database other than SQLite or
            PostgreSQL.
    """
    text = str(database)
    if "://" not in text:
        return make_url(f"sqlite+aiosqlite:///{Path(text)}")
    try:
        url = make_url(text)
    except ArgumentError as error:
        raise A2AConfigError(f"database URL {text!r} is malformed: {error}") from error
    backend = url.get_backend_name()
    if backend == "postgres":
        backend = "postgresql"
    if backend not in _ASYNC_DRIVERS:
        raise A2AConfigError(
            f"database {text!r} is neither SQLite nor PostgreSQL; give a SQLite file, "
            "sqlite:///FILE or postgresql://USER@HOST/DATABASE"
        )
    if "+" not in url.drivername or backend != url.get_backend_name():
        url = url.set(drivername=_ASYNC_DRIVERS[backend])
    return url


def database_engine(database: str | Path, pool: PoolSettings) -> AsyncEngine:
    """An async engine for `database` with the pool `pool` describes."""
    url = database_url(database)
    is_sqlite = url.get_backend_name() == "sqlite"
    try:
        engine = _create_engine(url, is_sqlite=is_sqlite, pool=pool)
    except ImportError as error:
        raise A2AConfigError(
            f"the database {url.render_as_string(hide_password=True)} needs the "
            f"{url.get_driver_name()} driver, which is not installed: pip install "
            f"{url.get_driver_name()}"
        ) from error
    if is_sqlite:
        _one_writer_at_a_time(engine)
    return engine


def _create_engine(url: URL, *, is_sqlite: bool, pool: PoolSettings) -> AsyncEngine:
    return create_async_engine(
        url,
        pool_size=pool.size if pool.size is not None else (1 if is_sqlite else 10),
        max_overflow=(
            pool.max_overflow if pool.max_overflow is not None else (0 if is_sqlite else 10)
        ),
        pool_timeout=pool.timeout,
        pool_pre_ping=not is_sqlite,
    )


def _one_writer_at_a_time(engine: AsyncEngine) -> None:
    """WAL mode, a busy timeout, and transactions that take the write lock as they begin
    (a read that later writes cannot then fail to upgrade its lock)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _configure(connection: Any, _record: object) -> None:  # pyright: ignore[reportUnusedFunction]
        # The driver's own transaction handling is off: the "begin" hook below starts them.
        connection.isolation_level = None
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: Any) -> None:  # pyright: ignore[reportUnusedFunction]
        connection.exec_driver_sql("BEGIN IMMEDIATE")
