"""The A2A server's stores on one database, sharing one engine (a SQLite file or
PostgreSQL by URL): a2a-sdk's task tables with their versions and events, the servers'
leases, and the sessions of its contexts. Each is a versioned component of
`agentry.storage`, so `agentry db upgrade` prepares them and a newer one is refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

import sqlalchemy as sa
from a2a.server.cluster import (
    DatabaseTaskEventStream,
    StoredTask,
    TaskVersion,
    VersionedDatabaseTaskStore,
)
from a2a.server.context import ServerCallContext
from a2a.server.events import Event
from a2a.server.models import TaskEventModel, TaskModel, TaskVersionModel, create_task_model
from a2a.server.tasks import DatabaseTaskStore
from a2a.types import Task
from a2a.utils.proto_utils import to_stream_response
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import DeclarativeBase
from typing_extensions import override

from agentry.a2a._database import server_engine, writer_engine
from agentry.a2a._leases import LEASES_SCHEMA, owner_from_context
from agentry.a2a._sessions import DEFAULT_DATABASE
from agentry.a2a._sql_sessions import SQLContextSessionStore
from agentry.a2a._task_writes import StoredRow, TaskAccess, TaskRead, TaskWrite, TaskWrites
from agentry.storage import (
    GroupCommitWriter,
    PoolSettings,
    Schema,
    create_tables,
    default_database_url,
    ensure_schema,
    safe_url,
)

__all__ = [
    "LEGACY_TASKS_TABLE",
    "TASKS_TABLE",
    "A2AStores",
    "TaskTableStore",
    "describe_database",
    "prepare_database",
    "resolve_database",
]

TASKS_TABLE = "agentry_a2a_tasks"
"""The table of A2A tasks (a2a-sdk's layout)."""
LEGACY_TASKS_TABLE = "tasks"
"""a2a-sdk's default name, used by servers before tables were versioned; renamed on start."""


_models: dict[str, type[TaskModel]] = {}


def _task_model(table: str) -> type[TaskModel]:
    # a2a-sdk declares a model each time it is asked for a table name: declare each once,
    # on a base of its own, so that its metadata holds its table alone.
    if table not in _models:

        class TaskTables(DeclarativeBase):
            pass

        _models[table] = create_task_model(table, base=TaskTables)
    return _models[table]


def _task_table(name: str) -> sa.Table:
    table = _task_model(name).__table__
    assert isinstance(table, sa.Table)
    return cast("sa.Table", table)  # a2a-sdk declares it untyped


def _tasks_schema(table: str) -> Schema:
    def create_or_adopt(connection: sa.Connection) -> None:
        model_table = _task_table(table)
        inspector = sa.inspect(connection)
        if (
            table == TASKS_TABLE
            and not inspector.has_table(table)
            and inspector.has_table(LEGACY_TASKS_TABLE)
        ):
            _rename_legacy_table(connection, model_table)
        create_tables(connection, model_table.metadata)

    # Version 1: the task table of a2a-sdk 1.x; version 2: the tables of its versioned
    # store (each task's version, and its events for servers following it).
    return Schema(table, (create_or_adopt, _create_cluster_tables))


def _create_cluster_tables(connection: sa.Connection) -> None:
    # a2a-sdk declares these on the metadata of its `tasks` table: copy them out alone.
    metadata = sa.MetaData()
    for model in (TaskVersionModel, TaskEventModel):
        cast("sa.Table", model.__table__).to_metadata(metadata)  # a2a-sdk declares it untyped
    create_tables(connection, metadata)


def _rename_legacy_table(connection: sa.Connection, target: sa.Table) -> None:
    legacy = _task_table(LEGACY_TASKS_TABLE)
    found = {column["name"] for column in sa.inspect(connection).get_columns(LEGACY_TASKS_TABLE)}
    if not {column.name for column in legacy.columns} <= found:
        return  # someone else's table named `tasks`: leave it alone
    for index in legacy.indexes:
        index.drop(connection)
    connection.execute(
        sa.text(f"ALTER TABLE {LEGACY_TASKS_TABLE} RENAME TO {target.name}")  # fixed names
    )
    for index in target.indexes:
        index.create(connection)


class TaskTableStore(VersionedDatabaseTaskStore):
    """a2a-sdk's versioned task store on agentry's task table, whose tables are created
    and upgraded by agentry's versioned schemas; tasks belong to their owner (see
    `owner_from_context`), so a sweep can fail another server's tasks.

    Writes are group-committed: the writes that queue while one batch is being committed
    are committed together, in one transaction on a connection of their own (see
    `GroupCommitWriter`). A write returns once its batch is committed, so a task is
    readable, here and through any server on the database, once its write returns.

    Args:
        engine: The database's engine.
        table: The task table.
        max_batch: The most task writes in one transaction.
    """

    def __init__(
        self, engine: AsyncEngine, *, table: str = TASKS_TABLE, max_batch: int = 500
    ) -> None:
        super().__init__(engine, create_table=False, owner_resolver=owner_from_context)
        tasks = self.as_task_store
        assert isinstance(tasks, DatabaseTaskStore)
        tasks.task_model = _task_model(table)
        self.engine = engine
        self.table = _task_table(table)
        self._schema = _tasks_schema(table)
        self._ready = False
        self.writer: GroupCommitWriter[TaskAccess, int | StoredRow | None] | None = None
        """The writer of the task reads and writes (`None` for SQLite in memory)."""
        sync_engine = writer_engine(engine)
        if sync_engine is not None:
            writes = TaskWrites(self.table, dialect=sync_engine.dialect.name)
            self.writer = GroupCommitWriter(
                sync_engine,
                write_one=writes.access_one,
                write_many=writes.access_many,
                key=lambda write: write.task_id,
                max_batch=max_batch,
            )

    @override
    async def initialize(self) -> None:
        """Bring the task tables to this version (a newer one raises `SchemaVersionError`)."""
        await ensure_schema(self.engine, self._schema)
        await super().initialize()
        self._ready = True

    @override
    async def save(
        self,
        task: Task,
        *,
        event: Event | None = None,
        prev: Task | None = None,
        prev_version: TaskVersion,
        context: ServerCallContext,
    ) -> TaskVersion:
        """Store `task` in the next batch, if its stored version is still `prev_version`.

        Raises:
            ConcurrentTaskModificationError: The task changed since `prev_version`.
            StorageWriteError: The database refused the write (nothing of it is stored).
        """
        if self.writer is None:
            return await super().save(
                task, event=event, prev=prev, prev_version=prev_version, context=context
            )
        if not self._ready:
            await self.initialize()
        write = TaskWrite.of(
            task,
            owner=owner_from_context(context),
            prev_version=None if prev_version.is_missing else _version_number(prev_version),
            event=None if event is None else to_stream_response(event).SerializeToString(),
        )
        version = await self.writer.write(write)
        assert isinstance(version, int)
        return TaskVersion(version)

    @override
    async def get(self, task_id: str, context: ServerCallContext) -> StoredTask | None:
        """The task `task_id` with its stored version, read in the next batch."""
        if self.writer is None:
            return await super().get(task_id, context)
        if not self._ready:
            await self.initialize()
        found = await self.writer.write(TaskRead(task_id, owner_from_context(context)))
        if found is None:
            return None
        assert isinstance(found, StoredRow)
        task = found.task()
        if task is None:  # a row of an older layout: the SDK converts it
            return await super().get(task_id, context)
        version = TaskVersion.MISSING if found.version is None else TaskVersion(found.version)
        return StoredTask(task, version)

    async def close(self) -> None:
        """Commit the queued writes and release the writer's connection."""
        if self.writer is not None:
            await self.writer.close()
            self.writer.engine.dispose()


class A2AStores:
    """The task store, task events, leases and session store of one database, sharing
    its engine.

    Args:
        database: A database URL or a SQLite file path.
        pool: The engine's connection pool (default: `server_pool`'s).
    """

    def __init__(self, database: str | os.PathLike[str], *, pool: PoolSettings | None) -> None:
        self.engine = server_engine(database, pool)
        self.tasks = TaskTableStore(self.engine)
        self.events = DatabaseTaskEventStream(self.engine, create_table=False)
        self.sessions = SQLContextSessionStore(engine=self.engine)
        sessions_engine = writer_engine(self.engine)
        if sessions_engine is not None:
            # On the task writer's thread: SQLite's one writer never waits for itself.
            self.sessions.commit_in_groups(sessions_engine, thread_of=self.tasks.writer)

    async def start(self) -> None:
        """Prepare every table, so a server on a database it cannot use fails at start."""
        await self.tasks.initialize()
        await self.events.initialize()
        await ensure_schema(self.engine, LEASES_SCHEMA)
        await self.sessions.prepare()

    async def close(self) -> None:
        """Commit the queued writes, and release the database connections."""
        await self.sessions.close()
        await self.tasks.close()
        await self.engine.dispose()


def _version_number(version: TaskVersion) -> int:
    number: object = version._value  # pyright: ignore[reportPrivateUsage]  # its only reader
    if not isinstance(number, int):
        raise TypeError(f"the task store's versions are numbers, got {number!r}")
    return number


def resolve_database(database: str | Path | None) -> str | Path | None:
    """The database a server uses: `$AGENTRY_DATABASE_URL` stands in for the default file."""
    if database is not None and os.fspath(database) == DEFAULT_DATABASE:
        return default_database_url() or database
    return database


def describe_database(database: str | Path | None) -> str:
    """Where the server keeps tasks and sessions, for its start-up line."""
    if database is None:
        return "in memory (they are lost when the server stops)"
    text = os.fspath(database)
    if "://" in text and not text.startswith("sqlite"):
        return f"in the database {safe_url(text)} (--database none: in memory)"
    path = (sa.make_url(text).database or "") if "://" in text else text
    return f"in the SQLite file {Path(path).resolve()} (--database none: in memory)"


async def prepare_database(
    database: str | os.PathLike[str], *, pool: PoolSettings | None = None
) -> None:
    """Create or upgrade the A2A server's tables (tasks, leases, sessions) in `database`, as a
    server does when it starts (`agentry db upgrade` calls it ahead of a deployment).

    Raises:
        SchemaVersionError: The database holds a newer version of a table.
    """
    stores = A2AStores(database, pool=pool)
    try:
        await stores.start()
    finally:
        await stores.close()
