"""`SQLHistoryProvider`: session history in a SQL database (SQLite by default).

Built on SQLAlchemy's asyncio engine, so the same provider serves a SQLite file on one
machine and PostgreSQL (`postgresql+asyncpg://...`) when one machine is not enough.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentry.errors import HistoryStoreError, SerializationError
from agentry.sessions._providers import HistoryProvider, message_json
from agentry.types import Message

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.ext.asyncio import AsyncEngine

    from agentry.sessions._compaction import CompactionStrategy

__all__ = ["SQLHistoryProvider", "SQLiteHistoryProvider"]


class SQLHistoryProvider(HistoryProvider):
    """Keeps history in one table: a row per message, in insertion order per session.

    Args:
        url: An async SQLAlchemy URL, such as `sqlite+aiosqlite:///history.db` or
            `postgresql+asyncpg://user@host/db`; or pass `engine`.
        engine: An existing `AsyncEngine` (shared with the rest of an application).
        table_name: The table to use (created when missing).
        compaction: What of the conversation each model request sends (see
            :class:`HistoryProvider`); the table keeps every message.

    Example:
        >>> provider = SQLHistoryProvider("sqlite+aiosqlite:///history.db")
    """

    DEFAULT_SOURCE_ID = "sql_history"

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: AsyncEngine | None = None,
        table_name: str = "agentry_messages",
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
        if (url is None) == (engine is None):
            raise ValueError("SQLHistoryProvider needs exactly one of url= or engine=")
        self._url = url
        self._engine = engine
        self._table_name = table_name
        self._table: Table | None = None
        self._ready: asyncio.Lock | None = None
        self._session_locks: dict[str, asyncio.Lock] = {}

    async def _setup(self) -> tuple[AsyncEngine, Table]:
        if self._table is not None and self._engine is not None:
            return self._engine, self._table
        if self._ready is None:
            self._ready = asyncio.Lock()
        async with self._ready:
            if self._table is None:
                from sqlalchemy import Column, Index, Integer, MetaData, String, Table, Text
                from sqlalchemy.ext.asyncio import create_async_engine

                if self._engine is None:
                    assert self._url is not None
                    self._engine = create_async_engine(self._url)
                metadata = MetaData()
                table = Table(
                    self._table_name,
                    metadata,
                    Column("id", Integer, primary_key=True, autoincrement=True),
                    Column("session_id", String(256), nullable=False),
                    Column("message", Text, nullable=False),
                    Index(f"ix_{self._table_name}_session", "session_id", "id"),
                )
                from sqlalchemy.exc import SQLAlchemyError

                try:
                    async with self._engine.begin() as connection:
                        await connection.run_sync(metadata.create_all)
                except SQLAlchemyError as error:
                    raise HistoryStoreError(
                        f"cannot open the history table {self._table_name!r}: {error}"
                    ) from error
                self._table = table
        assert self._engine is not None
        assert self._table is not None
        return self._engine, self._table

    async def get_messages(
        self, session_id: str, *, state: dict[str, object] | None = None
    ) -> list[Message]:
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        engine, table = await self._setup()
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

        engine, table = await self._setup()
        rows = [{"session_id": session_id, "message": message_json(m)} for m in messages]
        lock = self._session_locks.setdefault(session_id, asyncio.Lock())
        try:
            async with lock, engine.begin() as connection:
                await connection.execute(table.insert(), rows)
        except SQLAlchemyError as error:
            raise HistoryStoreError(
                f"cannot store history of session {session_id!r}: {error}"
            ) from error

    async def close(self) -> None:
        """Release the database connections (only those of an engine it created)."""
        if self._engine is not None and self._url is not None:
            await self._engine.dispose()


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
