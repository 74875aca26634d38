"""`SQLCheckpointStorage`: checkpoints in any SQL database SQLAlchemy's asyncio engine reaches.

Use it for PostgreSQL (`postgresql+asyncpg://...`) and other servers; the embedded default,
`SQLiteCheckpointStorage`, keeps the same table in a SQLite file without SQLAlchemy. Each
save is one transaction: a crash mid-save rolls back, and older checkpoints are never touched.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agentry.workflows._checkpoint import (
    CheckpointStorage,
    WorkflowCheckpoint,
    read_stored_checkpoint,
)
from agentry.workflows._errors import WorkflowCheckpointException

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["SQLCheckpointStorage"]


class SQLCheckpointStorage(CheckpointStorage):
    """Keeps checkpoints in one table: a row per checkpoint, its JSON in a text column.

    Args:
        url: An async SQLAlchemy URL (`sqlite+aiosqlite:///file.db`,
            `postgresql+asyncpg://user@host/db`); or pass `engine`.
        engine: An existing `AsyncEngine` to share.
        table_name: The table (created when missing).

    Example:
        >>> storage = SQLCheckpointStorage("sqlite+aiosqlite:///checkpoints.db")
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: AsyncEngine | None = None,
        table_name: str = "agentry_workflow_checkpoints",
    ) -> None:
        if (url is None) == (engine is None):
            raise ValueError("SQLCheckpointStorage needs exactly one of url= or engine=")
        self._url = url
        self._engine = engine
        self._table_name = table_name
        self._table: Table | None = None
        self._ready: asyncio.Lock | None = None

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
                    Column("seq", Integer, primary_key=True, autoincrement=True),
                    Column("checkpoint_id", String(128), nullable=False, unique=True),
                    Column("workflow_name", String(256), nullable=False),
                    Column("document", Text, nullable=False),
                    Index(f"ix_{self._table_name}_workflow", "workflow_name", "seq"),
                )
                from sqlalchemy.exc import SQLAlchemyError

                try:
                    async with self._engine.begin() as connection:
                        await connection.run_sync(metadata.create_all)
                except SQLAlchemyError as error:
                    raise WorkflowCheckpointException(
                        f"cannot open the checkpoint table {self._table_name!r}: {error}"
                    ) from error
                self._table = table
        assert self._engine is not None
        assert self._table is not None
        return self._engine, self._table

    async def save(self, checkpoint: WorkflowCheckpoint) -> str:
        from sqlalchemy import delete
        from sqlalchemy.exc import SQLAlchemyError

        text = checkpoint.to_json()
        engine, table = await self._setup()
        try:
            async with engine.begin() as connection:
                await connection.execute(
                    delete(table).where(table.c.checkpoint_id == checkpoint.checkpoint_id)
                )
                await connection.execute(
                    table.insert().values(
                        checkpoint_id=checkpoint.checkpoint_id,
                        workflow_name=checkpoint.workflow_name,
                        document=text,
                    )
                )
        except SQLAlchemyError as error:
            raise WorkflowCheckpointException(
                f"cannot save checkpoint {checkpoint.checkpoint_id!r}: {error}"
            ) from error
        return checkpoint.checkpoint_id

    async def load(self, checkpoint_id: str) -> WorkflowCheckpoint:
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        engine, table = await self._setup()
        try:
            async with engine.connect() as connection:
                row = (
                    await connection.execute(
                        select(table.c.document).where(table.c.checkpoint_id == checkpoint_id)
                    )
                ).first()
        except SQLAlchemyError as error:
            raise WorkflowCheckpointException(
                f"cannot read checkpoint {checkpoint_id!r}: {error}"
            ) from error
        if row is None:
            raise WorkflowCheckpointException(f"no checkpoint with id {checkpoint_id!r}")
        return read_stored_checkpoint(checkpoint_id, row[0])

    async def list_checkpoint_ids(self, *, workflow_name: str) -> list[str]:
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        engine, table = await self._setup()
        try:
            async with engine.connect() as connection:
                rows = await connection.execute(
                    select(table.c.checkpoint_id)
                    .where(table.c.workflow_name == workflow_name)
                    .order_by(table.c.seq)
                )
                return [row[0] for row in rows]
        except SQLAlchemyError as error:
            raise WorkflowCheckpointException(
                f"cannot list checkpoints of workflow {workflow_name!r}: {error}"
            ) from error

    async def delete(self, checkpoint_id: str) -> bool:
        from sqlalchemy import delete
        from sqlalchemy.exc import SQLAlchemyError

        engine, table = await self._setup()
        try:
            async with engine.begin() as connection:
                result = await connection.execute(
                    delete(table).where(table.c.checkpoint_id == checkpoint_id)
                )
        except SQLAlchemyError as error:
            raise WorkflowCheckpointException(
                f"cannot delete checkpoint {checkpoint_id!r}: {error}"
            ) from error
        return bool(result.rowcount)

    async def close(self) -> None:
        """Release the database connections (only those of an engine it created)."""
        if self._engine is not None and self._url is not None:
            await self._engine.dispose()
