"""`SQLiteCheckpointStorage`: checkpoints in one SQLite file, the durable default.

It uses the standard library's `sqlite3` on a worker thread rather than an async engine:
a workflow process starts in a fraction of the time, and one small transaction per save
needs no more. The file runs in WAL mode; each save is a single `BEGIN IMMEDIATE`
transaction, so a crash (even a kill mid-save) leaves every committed checkpoint intact.
The table matches `SQLCheckpointStorage`'s, so either can read a file the other wrote, and
its version is recorded the same way (see `agentry.storage`): a file written by a newer
agentry is refused.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from agentry.storage import open_sqlite_store
from agentry.workflows._checkpoint import (
    CheckpointStorage,
    WorkflowCheckpoint,
    read_stored_checkpoint,
)
from agentry.workflows._errors import WorkflowCheckpointException

__all__ = ["SQLiteCheckpointStorage"]

_T = TypeVar("_T")
_TABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


class SQLiteCheckpointStorage(CheckpointStorage):
    """Keeps checkpoints in a SQLite file: a row per checkpoint, its JSON in a text column.

    Args:
        path: The database file (created, with its directory, when missing).
        table_name: The table (created when missing; a newer version is refused).

    Example:
        >>> storage = SQLiteCheckpointStorage(".agentry/checkpoints.db")
    """

    def __init__(
        self, path: str | os.PathLike[str], *, table_name: str = "agentry_workflow_checkpoints"
    ) -> None:
        if not _TABLE_NAME.match(table_name):
            raise ValueError(f"{table_name!r} is not a valid table name")
        self.path = Path(path)
        self._table = table_name
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = open_sqlite_store(
                self.path, self._table, [self._create_table], wal=True
            )
        return self._connection

    def _create_table(self, connection: sqlite3.Connection) -> None:
        # The layout of SQLCheckpointStorage's table, version 1.
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {self._table} ("
            "seq INTEGER PRIMARY KEY AUTOINCREMENT, "
            "checkpoint_id VARCHAR(128) NOT NULL UNIQUE, "
            "workflow_name VARCHAR(256) NOT NULL, "
            "document TEXT NOT NULL)"
        )
        connection.execute(
            f"CREATE INDEX IF NOT EXISTS ix_{self._table}_workflow "
            f"ON {self._table} (workflow_name, seq)"
        )

    async def _run(self, action: str, work: Callable[[sqlite3.Connection], _T]) -> _T:
        def locked() -> _T:
            with self._lock:
                return work(self._connect())

        try:
            return await asyncio.to_thread(locked)
        except sqlite3.Error as error:
            raise WorkflowCheckpointException(f"cannot {action} in {self.path}: {error}") from error

    async def save(self, checkpoint: WorkflowCheckpoint) -> str:
        text = checkpoint.to_json()

        def write(connection: sqlite3.Connection) -> None:
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute(
                    f"DELETE FROM {self._table} WHERE checkpoint_id = ?",
                    (checkpoint.checkpoint_id,),
                )
                connection.execute(
                    f"INSERT INTO {self._table} (checkpoint_id, workflow_name, document) "
                    "VALUES (?, ?, ?)",
                    (checkpoint.checkpoint_id, checkpoint.workflow_name, text),
                )
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

        await self._run(f"save checkpoint {checkpoint.checkpoint_id!r}", write)
        return checkpoint.checkpoint_id

    async def load(self, checkpoint_id: str) -> WorkflowCheckpoint:
        def read(connection: sqlite3.Connection) -> str | None:
            row = connection.execute(
                f"SELECT document FROM {self._table} WHERE checkpoint_id = ?", (checkpoint_id,)
            ).fetchone()
            return None if row is None else str(row[0])

        document = await self._run(f"read checkpoint {checkpoint_id!r}", read)
        if document is None:
            raise WorkflowCheckpointException(f"no checkpoint with id {checkpoint_id!r}")
        return read_stored_checkpoint(checkpoint_id, document)

    async def list_checkpoint_ids(self, *, workflow_name: str) -> list[str]:
        def select(connection: sqlite3.Connection) -> list[str]:
            rows = connection.execute(
                f"SELECT checkpoint_id FROM {self._table} WHERE workflow_name = ? ORDER BY seq",
                (workflow_name,),
            ).fetchall()
            return [str(row[0]) for row in rows]

        return await self._run(f"list checkpoints of workflow {workflow_name!r}", select)

    async def delete(self, checkpoint_id: str) -> bool:
        def remove(connection: sqlite3.Connection) -> bool:
            cursor = connection.execute(
                f"DELETE FROM {self._table} WHERE checkpoint_id = ?", (checkpoint_id,)
            )
            return cursor.rowcount > 0

        return await self._run(f"delete checkpoint {checkpoint_id!r}", remove)

    async def close(self) -> None:
        """Close the database file."""

        def close() -> None:
            with self._lock:
                if self._connection is not None:
                    self._connection.close()
                    self._connection = None

        await asyncio.to_thread(close)
