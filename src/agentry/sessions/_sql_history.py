"""`SQLHistoryProvider`: session history in a SQL database (SQLite by default).

Built on SQLAlchemy's asyncio engine, so the same provider serves a SQLite file on one
machine and PostgreSQL (`postgresql://...`) when one machine is not enough. Loaded on
first use, so `import agentry` does not import SQLAlchemy.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Column, Index, Integer, MetaData, String, Table, Text
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry.errors import HistoryStoreError, SerializationError
from agentry.sessions._providers import HistoryProvider, message_json
from agentry.storage import PoolSettings, SQLTableStore
from agentry.types import Message

if TYPE_CHECKING:
    from agentry.sessions._compaction import CompactionStrategy

__all__ = ["SQLHistoryProvider", "SQLiteHistoryProvider"]


class SQLHistoryProvider(HistoryProvider, SQLTableStore):
    """Keeps history in one table: a row per message, in insertion order per session.

    The table is versioned (see `agentry.storage`): it is created in an empty database,
    upgraded when it is older than this agentry, and a newer one is refused.

    Args:
        url: A database URL (`postgresql://user@host/db`, `sqlite:///history.db`; the
            async driver is chosen for you), or pass `engine`. Without either,
            `$AGENTRY_DATABASE_URL`.
        engine: An existing `AsyncEngine` (shared with the rest of an application).
        table_name: The table to use.
        pool: The connection pool of the engine made from `url`.
        compaction: What of the conversation each model request sends (see
            :class:`HistoryProvider`); the table keeps every message.

    Raises:
        StorageConfigError: Both `url` and `engine`, or neither and no
            `$AGENTRY_DATABASE_URL`.

    Example:
        >>> provider = SQLHistoryProvider("sqlite:///history.db")
    """

    DEFAULT_SOURCE_ID = "sql_history"

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: AsyncEngine | None = None,
        table_name: str = "agentry_messages",
        pool: PoolSettings | None = None,
        source_id: str | None = None,
        load_messages: bool = True,
        store_inputs: bool = True,
        store_outputs: bool = True,
        store_context_messages: bool = False,
        compaction: CompactionStrategy | None = None,
    ) -> None:
        super().__init__(
            source_id,
            load_messages=load_messages,
            store_inputs=store_inputs,
            store_outputs=store_outputs,
            store_context_messages=store_context_messages,
            compaction=compaction,
        )
        SQLTableStore.__init__(
            self,
            _history_table(table_name),
            url=url,
            engine=engine,
            pool=pool,
            open_error=lambda error: HistoryStoreError(
                f"cannot open the history table {table_name!r}: {error}"
            ),
        )
        self._session_locks: dict[str, asyncio.Lock] = {}

    async def get_messages(
        self, session_id: str, *, state: dict[str, object] | None = None
    ) -> list[Message]:
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        engine = await self._engine()
        table = self.table
        try:
            async with engine.connect() as connection:
                rows = await connection.execute(
                    select(table.c.id, table.c.message)
                    .where(table.c.session_id == session_id)
                    .order_by(table.c.id)
                )
                records = rows.all()
        except SQLAlchemyError as error:
            raise HistoryStoreError(
                f"cannot read history of session {session_id!r}: {error}"
            ) from error
        messages: list[Message] = []
        for row_id, text in records:
            try:
                messages.append(Message.from_json(text))
            except SerializationError as error:
                raise HistoryStoreError(
                    f"history row {row_id} of session {session_id!r} is not a message: {error}"
                ) from error
        return messages

    async def save_messages(
        self,
        session_id: str,
        messages: Sequence[Message],
        *,
        state: dict[str, object] | None = None,
    ) -> None:
        if not messages:
            return
        from sqlalchemy.exc import SQLAlchemyError

        engine = await self._engine()
        table = self.table
        rows = [{"session_id": session_id, "message": message_json(m)} for m in messages]
        lock = self._session_locks.setdefault(session_id, asyncio.Lock())
        try:
            async with lock, engine.begin() as connection:
                await connection.execute(table.insert(), rows)
        except SQLAlchemyError as error:
            raise HistoryStoreError(
                f"cannot store history of session {session_id!r}: {error}"
            ) from error


def _history_table(name: str) -> Table:
    return Table(
        name,
        MetaData(),
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("session_id", String(256), nullable=False),
        Column("message", Text, nullable=False),
        Index(f"ix_{name}_session", "session_id", "id"),
    )


class SQLiteHistoryProvider(SQLHistoryProvider):
    """:class:`SQLHistoryProvider` on a SQLite file: the embedded durable default.

    Example:
        >>> provider = SQLiteHistoryProvider("history.db")
    """

    DEFAULT_SOURCE_ID = "sqlite_history"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        table_name: str = "agentry_messages",
        source_id: str | None = None,
        load_messages: bool = True,
        store_inputs: bool = True,
        store_outputs: bool = True,
        store_context_messages: bool = False,
        compaction: CompactionStrategy | None = None,
    ) -> None:
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        super().__init__(
            f"sqlite+aiosqlite:///{file}",
            table_name=table_name,
            source_id=source_id,
            load_messages=load_messages,
            store_inputs=store_inputs,
            store_outputs=store_outputs,
            store_context_messages=store_context_messages,
            compaction=compaction,
        )
        self.path = file
