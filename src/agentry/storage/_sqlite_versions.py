"""The version protocol of `agentry.storage` on a plain `sqlite3` connection, for stores
that skip SQLAlchemy to start fast (`SQLiteCheckpointStorage`)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable

from agentry.storage._errors import newer_version_error

__all__ = ["VERSIONS_TABLE", "ensure_sqlite_schema", "open_sqlite_store"]

VERSIONS_TABLE = "agentry_schema_versions"
"""The table that records the schema version of each component in a database."""


def ensure_sqlite_schema(
    connection: sqlite3.Connection,
    component: str,
    migrations: list[Callable[[sqlite3.Connection], None]],
) -> int:
    """Bring `component` to version `len(migrations)` in one `BEGIN IMMEDIATE` transaction
    (the file's write lock); the version found before. `connection` must be in autocommit
    mode (`isolation_level=None`).

    Raises:
        SchemaVersionError: The file holds a newer version of `component`.
        sqlite3.Error: The file cannot be read or written.
    """
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {VERSIONS_TABLE} "
            "(component VARCHAR(200) NOT NULL PRIMARY KEY, version INTEGER NOT NULL)"
        )
        row = connection.execute(
            f"SELECT version FROM {VERSIONS_TABLE} WHERE component = ?", (component,)
        ).fetchone()
        found = 0 if row is None else int(row[0])
        if found > len(migrations):
            raise newer_version_error(component, found, len(migrations))
        for migration in migrations[found:]:
            migration(connection)
        if found < len(migrations):
            connection.execute(
                f"INSERT INTO {VERSIONS_TABLE} (component, version) VALUES (?, ?) "
                "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                (component, len(migrations)),
            )
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return found


def open_sqlite_store(
    path: str | os.PathLike[str],
    component: str,
    migrations: list[Callable[[sqlite3.Connection], None]],
    *,
    wal: bool = False,
) -> sqlite3.Connection:
    """A connection to the SQLite file at `path` for a store's `component`, brought to its
    version (see `ensure_sqlite_schema`): in autocommit mode, usable from any thread, and
    with `wal` in WAL mode (readers do not wait for the writer).

    Raises:
        SchemaVersionError: The file holds a newer version of `component`.
        sqlite3.Error: The file cannot be opened, read or written.
    """
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        if wal:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
        ensure_sqlite_schema(connection, component, migrations)
    except BaseException:
        connection.close()
        raise
    return connection
