"""`SQLCheckpointStorage`: checkpoints in any SQL database SQLAlchemy's asyncio engine reaches.

Use it for PostgreSQL (`postgresql://...`) and other servers; the embedded default,
`SQLiteCheckpointStorage`, keeps the same table in a SQLite file without SQLAlchemy. Each
save is one transaction: a crash mid-save rolls back, and older checkpoints are never touched.
"""

from __future__ import annotations

from sqlalchemy import Column, Index, Integer, MetaData, String, Table, Text
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry.storage import PoolSettings, SQLTableStore
from agentry.workflows._checkpoint import (
    CheckpointStorage,
    WorkflowCheckpoint,
    read_stored_checkpoint,
)
from agentry.workflows._errors import WorkflowCheckpointException

__all__ = ["SQLCheckpointStorage"]


class SQLCheckpointStorage(CheckpointStorage, SQLTableStore):
    """Keeps checkpoints in one table: a row per checkpoint, its JSON in a text column.

    The table is versioned (see `agentry.storage`): it is created in an empty database,
    upgraded when it is older than this agentry, and a newer one is refused.

    Args:
        url: A database URL (`postgresql://user@host/db`, `sqlite:///checkpoints.db`;
            the async driver is chosen for you), or pass `engine`. Without either,
            `$AGENTRY_DATABASE_URL`.
        engine: An existing `AsyncEngine` to share.
        table_name: The table.
        pool: The connection pool of the engine made from `url`.

    Raises:
        StorageConfigError: Both `url` and `engine`, or neither and no
            `$AGENTRY_DATABASE_URL`.

    Example:
        >>> storage = SQLCheckpointStorage("sqlite:///checkpoints.db")
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: AsyncEngine | None = None,
        table_name: str = "agentry_workflow_checkpoints",
        pool: PoolSettings | None = None,
    ) -> None:
        SQLTableStore.__init__(
            self,
            _checkpoint_table(table_name),
            url=url,
            engine=engine,
            pool=pool,
            open_error=lambda error: WorkflowCheckpointException(
                f"cannot open the checkpoint table {table_name!r}: {error}"
            ),
        )

    async def save(self, checkpoint: WorkflowCheckpoint) -> str:
        from sqlalchemy import delete
        from sqlalchemy.exc import SQLAlchemyError

        text = checkpoint.to_json()
        engine = await self._engine()
        table = self.table
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

        engine = await self._engine()
        table = self.table
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

        engine = await self._engine()
        table = self.table
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

        engine = await self._engine()
        table = self.table
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


def _checkpoint_table(name: str) -> Table:
    return Table(
        name,
        MetaData(),
        Column("seq", Integer, primary_key=True, autoincrement=True),
        Column("checkpoint_id", String(128), nullable=False, unique=True),
        Column("workflow_name", String(256), nullable=False),
        Column("document", Text, nullable=False),
        Index(f"ix_{name}_workflow", "workflow_name", "seq"),
    )
