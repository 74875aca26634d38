"""Database URLs: one setting for every store, and the async driver each database uses.

PostgreSQL is reached through psycopg 3 in both of SQLAlchemy's modes: the stores use its
asyncio engine (`postgresql+psycopg`), DBOS and the workers' heartbeats its synchronous
one, so one driver serves everything on one URL. SQLite files go through aiosqlite.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.exc import ArgumentError

from agentry.storage._errors import StorageConfigError

__all__ = ["DATABASE_URL_ENV", "async_url", "database_url", "default_database_url", "safe_url"]

DATABASE_URL_ENV = "AGENTRY_DATABASE_URL"
"""The environment variable naming the database of every store not given one."""

_ASYNC_DRIVERS = {
    "postgresql": "postgresql+psycopg",
    "postgres": "postgresql+psycopg",
    "sqlite": "sqlite+aiosqlite",
}


def default_database_url() -> str | None:
    """`$AGENTRY_DATABASE_URL`, or None when it is unset or empty."""
    return os.environ.get(DATABASE_URL_ENV) or None


def database_url(database: str | os.PathLike[str]) -> str:
    """`database` as a URL: a URL as it is, a file path as the URL of a SQLite file."""
    text = os.fspath(database)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).resolve()}"


def async_url(database: str | os.PathLike[str]) -> sa.URL:
    """The URL SQLAlchemy's asyncio engine needs for `database` (a URL or a SQLite path).

    `postgresql://` (and `postgres://`) become `postgresql+psycopg://`, `sqlite://` becomes
    `sqlite+aiosqlite://`; a URL that names its driver is kept.

    Raises:
        StorageConfigError: `database` is not a URL SQLAlchemy can read.
    """
    text = database_url(database)
    try:
        url = sa.make_url(text)
    except (ArgumentError, ValueError) as error:
        raise StorageConfigError(
            f"{safe_url(text)!r} is not a database URL; write postgresql://USER@HOST/DB "
            "or sqlite:///PATH (or give a file path for SQLite)"
        ) from error
    driver = _ASYNC_DRIVERS.get(url.drivername)
    return url if driver is None else url.set(drivername=driver)


def safe_url(database: str | sa.URL) -> str:
    """`database` with its password hidden, for messages and logs."""
    try:
        url = database if isinstance(database, sa.URL) else sa.make_url(database)
    except (ArgumentError, ValueError):
        return re.sub(r"//[^/@]*@", "//***@", str(database))  # the credentials, whatever they are
    return url.render_as_string(hide_password=True)
