"""Where the host keeps one agentry session per A2A context.

An A2A `context_id` names a conversation; the host keeps the agent's `AgentSession` for it
so that later messages in the same context continue the conversation. Sessions are stored
as the JSON of `AgentSession.to_dict()`.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agentry.a2a._errors import A2AConfigError
from agentry.errors import HistoryStoreError
from agentry.sessions import AgentSession
from agentry.storage import open_sqlite_store

__all__ = [
    "DEFAULT_DATABASE",
    "ContextSessionStore",
    "InMemoryContextSessionStore",
    "SQLiteContextSessionStore",
]

DEFAULT_DATABASE = "agentry-a2a.sqlite"
"""The SQLite file the A2A server keeps tasks and sessions in unless told otherwise."""


@runtime_checkable
class ContextSessionStore(Protocol):
    """Loads and saves the agentry session of an A2A context."""

    async def load(self, context_id: str) -> AgentSession | None:
        """The session saved for `context_id`, or `None` for a new context."""
        ...

    async def save(self, context_id: str, session: AgentSession) -> None:
        """Save the session of `context_id`, replacing any earlier one."""
        ...


class InMemoryContextSessionStore:
    """Sessions kept in memory as JSON, lost when the process ends.

    Example:
        >>> store = InMemoryContextSessionStore()
    """

    def __init__(self) -> None:
        self._sessions: dict[str, str] = {}

    async def load(self, context_id: str) -> AgentSession | None:
        """The session saved for `context_id`, or `None`."""
        data = self._sessions.get(context_id)
        return None if data is None else AgentSession.from_dict(json.loads(data))

    async def save(self, context_id: str, session: AgentSession) -> None:
        """Save the session of `context_id`."""
        self._sessions[context_id] = json.dumps(session.to_dict())


class SQLiteContextSessionStore:
    """Sessions kept in a SQLite file, so a restarted server continues conversations.

    It uses the standard library's `sqlite3`; its table is `SQLContextSessionStore`'s,
    versioned the same way (see `agentry.storage`).

    Args:
        path: The database file (created when missing).
        table: The table name.

    Example:
        >>> store = SQLiteContextSessionStore(":memory:")
    """

    def __init__(self, path: str | Path, *, table: str = "agentry_a2a_sessions") -> None:
        if not table.replace("_", "").isalnum():
            raise A2AConfigError(f"table name {table!r} must be letters, digits and underscores")
        self.path = str(path)
        self.table = table
        self._connection: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = open_sqlite_store(self.path, self.table, [self._create_table])
        return self._connection

    def _create_table(self, connection: sqlite3.Connection) -> None:
        # The layout of SQLContextSessionStore's table, version 1.
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table} "
            "(context_id TEXT PRIMARY KEY, session TEXT NOT NULL)"
        )

    async def load(self, context_id: str) -> AgentSession | None:
        """The session saved for `context_id`, or `None`.

        Raises:
            HistoryStoreError: The database cannot be read.
            SchemaVersionError: The file holds a newer version of the table.
        """
        async with self._lock:
            row = await asyncio.to_thread(self._read, context_id)
        if row is None:
            return None
        return AgentSession.from_dict(json.loads(row))

    async def save(self, context_id: str, session: AgentSession) -> None:
        """Save the session of `context_id`.

        Raises:
            HistoryStoreError: The database cannot be written.
        """
        data = json.dumps(session.to_dict())
        async with self._lock:
            await asyncio.to_thread(self._write, context_id, data)

    def close(self) -> None:
        """Close the database connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _read(self, context_id: str) -> str | None:
        try:
            row: Any = (
                self._connect()
                .execute(f"SELECT session FROM {self.table} WHERE context_id = ?", (context_id,))
                .fetchone()
            )
        except sqlite3.Error as error:
            raise HistoryStoreError(
                f"cannot read A2A sessions from {self.path}: {error}"
            ) from error
        return None if row is None else str(row[0])

    def _write(self, context_id: str, data: str) -> None:
        try:
            connection = self._connect()
            with connection:
                connection.execute(
                    f"INSERT INTO {self.table} (context_id, session) VALUES (?, ?) "
                    "ON CONFLICT(context_id) DO UPDATE SET session = excluded.session",
                    (context_id, data),
                )
        except sqlite3.Error as error:
            raise HistoryStoreError(f"cannot write A2A sessions to {self.path}: {error}") from error
