"""`SQLContextSessionStore`: the sessions of A2A contexts in a SQLite or PostgreSQL database.

It shares the task store's engine (and so its connection pool), and its table has the
layout of :class:`SQLiteContextSessionStore`'s, so a SQLite file written by either is
read by the other.
"""

from __future__ import annotations

import json

from sqlalchemy import Column, MetaData, String, Table, Text, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry.a2a._errors import A2AConfigError
from agentry.errors import HistoryStoreError
from agentry.sessions import AgentSession

__all__ = ["SQLContextSessionStore"]


class SQLContextSessionStore:
    """Sessions kept in a database through a SQLAlchemy async engine.

    Args:
        engine: The engine (SQLite through `aiosqlite`, PostgreSQL through `asyncpg`).
        table: The table name.

    Example:
        >>> from sqlalchemy.ext.asyncio import create_async_engine
        >>> store = SQLContextSessionStore(create_async_engine("sqlite+aiosqlite://"))
    """

    def __init__(self, engine: AsyncEngine, *, table: str = "agentry_a2a_sessions") -> None:
        if not table.replace("_", "").isalnum():
            raise A2AConfigError(f"table name {table!r} must be letters, digits and underscores")
        self.engine = engine
        self.table = Table(
            table,
            MetaData(),
            Column("context_id", String, primary_key=True),
            Column("session", Text, nullable=False),
        )

    async def initialize(self) -> None:
        """Create the table when it is missing.

        Raises:
            HistoryStoreError: The database cannot be reached or written.
        """
        try:
            async with self.engine.begin() as connection:
                await connection.run_sync(self.table.create, checkfirst=True)
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot create the A2A sessions table: {error}") from error

    async def load(self, context_id: str) -> AgentSession | None:
        """The session saved for `context_id`, or `None`.

        Raises:
            HistoryStoreError: The database cannot be read.
        """
        query = select(self.table.c.session).where(self.table.c.context_id == context_id)
        try:
            async with self.engine.connect() as connection:
                data = (await connection.execute(query)).scalar_one_or_none()
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot read A2A sessions: {error}") from error
        return None if data is None else AgentSession.from_dict(json.loads(data))

    async def save(self, context_id: str, session: AgentSession) -> None:
        """Save the session of `context_id`, replacing any earlier one.

        Raises:
            HistoryStoreError: The database cannot be written.
        """
        values = {"context_id": context_id, "session": json.dumps(session.to_dict())}
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(self.table).values(values)
        upsert = upsert.on_conflict_do_update(
            index_elements=[self.table.c.context_id], set_={"session": upsert.excluded.session}
        )
        try:
            async with self.engine.begin() as connection:
                await connection.execute(upsert)
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot write A2A sessions: {error}") from error
