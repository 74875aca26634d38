"""`SQLContextSessionStore`: the A2A host's sessions in a SQL database (SQLite or PostgreSQL)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from typing_extensions import override

from agentry.a2a._errors import A2AConfigError
from agentry.errors import HistoryStoreError
from agentry.sessions import AgentSession
from agentry.storage import GroupCommitWriter, PoolSettings, SQLTableStore, StorageWriteError

__all__ = ["SQLContextSessionStore"]


class SQLContextSessionStore(SQLTableStore):
    """Sessions kept in a SQL database, shared by every server on it: a conversation
    started through one server continues through another.

    The table is versioned like every agentry store's (see `agentry.storage`).

    Args:
        url: A database URL (`postgresql://user@host/db`, `sqlite:///a2a.sqlite`) or a
            SQLite file path; or pass `engine`. Without either, `$AGENTRY_DATABASE_URL`.
        engine: An existing `AsyncEngine` to share (the task store's, for instance).
        table: The table name.
        pool: The connection pool of the engine made from `url`.

    Example:
        >>> store = SQLContextSessionStore("sqlite:///a2a.sqlite")
    """

    def __init__(
        self,
        url: str | os.PathLike[str] | None = None,
        *,
        engine: AsyncEngine | None = None,
        table: str = "agentry_a2a_sessions",
        pool: PoolSettings | None = None,
    ) -> None:
        if not table.replace("_", "").isalnum():
            raise A2AConfigError(f"table name {table!r} must be letters, digits and underscores")
        super().__init__(
            sa.Table(
                table,
                sa.MetaData(),
                sa.Column("context_id", sa.String(255), primary_key=True),
                sa.Column("session", sa.Text, nullable=False),
            ),
            url=url,
            engine=engine,
            pool=pool,
            open_error=lambda error: HistoryStoreError(
                f"cannot open the A2A session table {table!r}: {error}"
            ),
        )
        self._writer: GroupCommitWriter[_SessionAccess, str | None] | None = None

    def commit_in_groups(
        self, engine: sa.Engine, *, thread_of: GroupCommitWriter[Any, Any] | None = None
    ) -> None:
        """Read and write sessions in batches, through a `GroupCommitWriter` on `engine`
        (a synchronous engine to this store's database): the loads and saves that queue
        while one batch is made go together in the next.

        Args:
            engine: The writer's engine.
            thread_of: A writer whose thread to share (see `GroupCommitWriter`).
        """
        self._writer = GroupCommitWriter(
            engine,
            write_one=partial(_access_one, self.table),
            write_many=partial(_access_many, self.table),
            key=lambda access: access.context_id,
            describe=lambda access: f"the A2A session {access.context_id!r}",
            thread_of=thread_of,
        )

    @override
    async def close(self) -> None:
        """Commit the queued saves, and release the database connections."""
        if self._writer is not None:
            await self._writer.close()
            self._writer.engine.dispose()
        await super().close()

    async def load(self, context_id: str) -> AgentSession | None:
        """The session saved for `context_id`, or `None`.

        Raises:
            HistoryStoreError: The database cannot be read.
        """
        table = self.table
        engine = await self._engine()
        if self._writer is not None:
            try:
                data = await self._writer.write(_SessionAccess(context_id, None))
            except StorageWriteError as error:
                raise HistoryStoreError(str(error)) from error
            return None if data is None else AgentSession.from_dict(json.loads(data))
        try:
            async with engine.connect() as connection:
                row = (
                    await connection.execute(
                        sa.select(table.c.session).where(table.c.context_id == context_id)
                    )
                ).first()
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot read A2A session {context_id!r}: {error}") from error
        return None if row is None else AgentSession.from_dict(json.loads(row[0]))

    async def save(self, context_id: str, session: AgentSession) -> None:
        """Save the session of `context_id`, replacing any earlier one.

        Raises:
            HistoryStoreError: The database cannot be written.
        """
        data = json.dumps(session.to_dict())
        engine = await self._engine()
        if self._writer is not None:
            try:
                await self._writer.write(_SessionAccess(context_id, data))
            except StorageWriteError as error:
                raise HistoryStoreError(str(error)) from error
            return
        try:
            async with engine.begin() as connection:
                await _upsert(connection, self.table, context_id, data)
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot save A2A session {context_id!r}: {error}") from error


async def _upsert(connection: AsyncConnection, table: sa.Table, context_id: str, data: str) -> None:
    dialect = connection.dialect.name
    if dialect in ("postgresql", "sqlite"):
        insert = (postgresql if dialect == "postgresql" else sqlite).insert(table)
        await connection.execute(
            insert.values(context_id=context_id, session=data).on_conflict_do_update(
                index_elements=[table.c.context_id], set_={"session": data}
            )
        )
        return
    updated = await connection.execute(
        table.update().where(table.c.context_id == context_id).values(session=data)
    )
    if updated.rowcount == 0:
        await connection.execute(table.insert().values(context_id=context_id, session=data))


@dataclass(frozen=True)
class _SessionAccess:
    """A load (`data` is None) or a save of one context's session."""

    context_id: str
    data: str | None


def _access_one(table: sa.Table, connection: sa.Connection, access: _SessionAccess) -> str | None:
    if access.data is None:
        found = connection.execute(
            sa.select(table.c.session).where(table.c.context_id == access.context_id)
        ).scalar_one_or_none()
        return None if found is None else str(found)
    connection.execute(_upsert_statement(table, connection), _row(access))
    return None


def _access_many(
    table: sa.Table, connection: sa.Connection, accesses: Sequence[_SessionAccess]
) -> list[str | None]:
    saves = [_row(access) for access in accesses if access.data is not None]
    if saves:
        connection.execute(_upsert_statement(table, connection), saves)
    loads = [access.context_id for access in accesses if access.data is None]
    found: dict[str, str] = {}
    if loads:
        rows = connection.execute(
            sa.select(table.c.context_id, table.c.session).where(table.c.context_id.in_(loads))
        )
        found = {str(context_id): str(data) for context_id, data in rows}
    return [found.get(access.context_id) if access.data is None else None for access in accesses]


def _row(access: _SessionAccess) -> dict[str, object]:
    return {"context_id": access.context_id, "session": access.data}


def _upsert_statement(table: sa.Table, connection: sa.Connection) -> sa.Insert:
    insert = (postgresql if connection.dialect.name == "postgresql" else sqlite).insert(table)
    return insert.on_conflict_do_update(
        index_elements=[table.c.context_id], set_={"session": insert.excluded.session}
    )
