"""The SQL of the task store's reads and writes, made in batches by a `GroupCommitWriter`.

Each write stores one task as a2a-sdk's versioned store does: the task's version moves
on by one (compare-and-swap on the version table; the first write inserts it), the
task's row is inserted or replaced, and the event that changed it is appended to the
event log that other servers follow. A batch makes each of these statements once for all
its writes (`executemany`); a version that moved meanwhile, or any refusal, sends the
batch back to the writer to be made write by write, where the stale write raises
`ConcurrentTaskModificationError` alone. A read of a task goes in the same batches,
after the writes queued before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from a2a.server.cluster import ConcurrentTaskModificationError
from a2a.server.models import TaskEventModel, TaskVersionModel
from a2a.types import Task, TaskState
from google.protobuf.json_format import MessageToDict, ParseDict
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

__all__ = ["StoredRow", "TaskRead", "TaskWrite", "TaskWrites"]

_FINAL_STATES = frozenset(
    TaskState.Name(state)
    for state in (
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_REJECTED,
    )
)


@dataclass(frozen=True)
class TaskWrite:
    """One task to store, as its row, with the version it was read at.

    Attributes:
        task_id: The task's id.
        owner: The task's owner.
        row: The task's row, by column name.
        prev_version: The stored version the task was derived from (`None`: a new task).
        cancels: The task moves to `canceled`, which overwrites any unfinished version.
        event: The serialized event that changed the task, for the event log.
    """

    task_id: str
    owner: str
    row: dict[str, object]
    prev_version: int | None
    cancels: bool
    event: bytes | None

    @classmethod
    def of(
        cls, task: Task, *, owner: str, prev_version: int | None, event: bytes | None
    ) -> TaskWrite:
        """The write of `task` (a2a-sdk's row layout, protocol version 1.0)."""
        status = task.status
        row: dict[str, object] = {
            "id": task.id,
            "context_id": task.context_id,
            "kind": "task",
            "owner": owner,
            "last_updated": status.timestamp.ToDatetime() if status.HasField("timestamp") else None,
            "status": MessageToDict(status),
            "artifacts": [MessageToDict(artifact) for artifact in task.artifacts],
            "history": [MessageToDict(message) for message in task.history],
            "metadata": MessageToDict(task.metadata) if task.metadata.fields else None,
            "protocol_version": "1.0",
        }
        cancels = status.state == TaskState.TASK_STATE_CANCELED
        return cls(task.id, owner, row, prev_version, cancels, event)

    def __str__(self) -> str:
        return f"the write of task {self.task_id}"


@dataclass(frozen=True)
class TaskRead:
    """A read of one task's row and version."""

    task_id: str
    owner: str

    def __str__(self) -> str:
        return f"the read of task {self.task_id}"


@dataclass(frozen=True)
class StoredRow:
    """A task's row, by column name, and its stored version (`None`: none recorded)."""

    row: dict[str, Any]
    version: int | None

    def task(self) -> Task | None:
        """The task of a row in a2a-sdk's current layout (`None` for an older layout)."""
        row = self.row
        if row["protocol_version"] != "1.0":
            return None
        task = Task(id=row["id"], context_id=row["context_id"])
        if row["status"]:
            ParseDict(row["status"], task.status)
        for artifact in row["artifacts"] or ():
            ParseDict(artifact, task.artifacts.add())
        for message in row["history"] or ():
            ParseDict(message, task.history.add())
        if row["metadata"]:
            task.metadata.update(row["metadata"])
        return task


TaskAccess = TaskWrite | TaskRead
"""What the task store's writer is given."""


class TaskWrites:
    """The statements that store tasks in `tasks` and a2a-sdk's version and event tables.

    Args:
        tasks: The task table.
        dialect: The database's dialect name (`"sqlite"` or `"postgresql"`).
    """

    def __init__(self, tasks: sa.Table, *, dialect: str) -> None:
        self.tasks = tasks
        self.versions = cast("sa.Table", TaskVersionModel.__table__)  # declared untyped
        self.events = cast("sa.Table", TaskEventModel.__table__)
        insert = postgresql.insert(tasks) if dialect == "postgresql" else sqlite.insert(tasks)
        replaced = {c.name: insert.excluded[c.name] for c in tasks.columns if not c.primary_key}
        self._upsert = insert.on_conflict_do_update(index_elements=["id"], set_=replaced)
        self._move_version = (
            self.versions.update()
            .where(
                self.versions.c.task_id == sa.bindparam("b_task_id"),
                self.versions.c.owner == sa.bindparam("b_owner"),
                self.versions.c.version == sa.bindparam("b_prev"),
            )
            .values(version=sa.bindparam("b_next"))
        )

    def access_one(self, connection: sa.Connection, access: TaskAccess) -> int | StoredRow | None:
        """Make one write (its new version) or read (the row, or `None`)."""
        if isinstance(access, TaskRead):
            return self.read(connection, [access])[0]
        return self.write_one(connection, access)

    def access_many(
        self, connection: sa.Connection, accesses: Sequence[TaskAccess]
    ) -> list[int | StoredRow | None]:
        """Make the writes among `accesses`, then the reads; their results, in order.

        Raises:
            ConcurrentTaskModificationError: See `write_many`.
            DBAPIError: The database refused a statement.
        """
        writes = [access for access in accesses if isinstance(access, TaskWrite)]
        reads = [access for access in accesses if isinstance(access, TaskRead)]
        written = iter(self.write_many(connection, writes) if writes else [])
        found = iter(self.read(connection, reads) if reads else [])
        return [next(found) if isinstance(a, TaskRead) else next(written) for a in accesses]

    def read(self, connection: sa.Connection, reads: Sequence[TaskRead]) -> list[StoredRow | None]:
        """The rows and versions of the tasks `reads` name, in order."""
        tasks, versions = self.tasks, self.versions
        query = (
            sa.select(tasks, versions.c.version)
            .outerjoin(
                versions,
                sa.and_(versions.c.task_id == tasks.c.id, versions.c.owner == tasks.c.owner),
            )
            .where(tasks.c.id.in_([read.task_id for read in reads]))
        )
        found: dict[tuple[str, str], StoredRow] = {}
        for row in connection.execute(query).mappings():
            fields = {column.name: row[column] for column in tasks.columns}
            found[(fields["id"], fields["owner"])] = StoredRow(fields, row["version"])
        return [found.get((read.task_id, read.owner)) for read in reads]

    def write_many(self, connection: sa.Connection, writes: Sequence[TaskWrite]) -> list[int]:
        """Store `writes` (no two of one task); their new versions, in order.

        Raises:
            ConcurrentTaskModificationError: A version moved since its write was read
                (the batch is then made write by write).
            DBAPIError: The database refused a statement.
        """
        if any(write.cancels for write in writes):
            return [self.write_one(connection, write) for write in writes]
        new = [w for w in writes if w.prev_version is None]
        moved = [w for w in writes if w.prev_version is not None]
        if new:
            connection.execute(
                self.versions.insert(),
                [{"task_id": w.task_id, "owner": w.owner, "version": 1} for w in new],
            )
        if moved:
            result = connection.execute(
                self._move_version,
                [
                    {
                        "b_task_id": w.task_id,
                        "b_owner": w.owner,
                        "b_prev": w.prev_version,
                        "b_next": (w.prev_version or 0) + 1,
                    }
                    for w in moved
                ],
            )
            if result.rowcount != len(moved):
                raise ConcurrentTaskModificationError(", ".join(w.task_id for w in moved))
        versions = [(w.prev_version or 0) + 1 for w in writes]
        connection.execute(self._upsert, [w.row for w in writes])
        self._log(connection, list(zip(writes, versions, strict=True)))
        return versions

    def write_one(self, connection: sa.Connection, write: TaskWrite) -> int:
        """Store `write`; its new version.

        Raises:
            ConcurrentTaskModificationError: Its version moved since it was read, or it
                cancels a task that is finished or not stored.
            DBAPIError: The database refused a statement.
        """
        if write.cancels:
            version = self._cancel_version(connection, write)
        elif write.prev_version is None:
            version = 1
            try:
                connection.execute(
                    self.versions.insert(),
                    {"task_id": write.task_id, "owner": write.owner, "version": 1},
                )
            except IntegrityError as error:
                raise ConcurrentTaskModificationError(write.task_id) from error
        else:
            version = write.prev_version + 1
            result = connection.execute(
                self._move_version,
                {
                    "b_task_id": write.task_id,
                    "b_owner": write.owner,
                    "b_prev": write.prev_version,
                    "b_next": version,
                },
            )
            if result.rowcount == 0:
                raise ConcurrentTaskModificationError(write.task_id)
        connection.execute(self._upsert, write.row)
        self._log(connection, [(write, version)])
        return version

    def _cancel_version(self, connection: sa.Connection, write: TaskWrite) -> int:
        """The canceled task's version: one past the stored one, whatever it is, unless
        the task is finished or not stored."""
        versions = self.versions.c
        stored = connection.execute(
            sa.select(versions.version)
            .where(versions.task_id == write.task_id, versions.owner == write.owner)
            .with_for_update()
        ).scalar_one_or_none()
        status: Any = connection.execute(
            sa.select(self.tasks.c.status)
            .where(self.tasks.c.id == write.task_id, self.tasks.c.owner == write.owner)
            .with_for_update()
        ).scalar_one_or_none()
        if (
            not isinstance(status, dict)
            or cast("dict[str, object]", status).get("state") in _FINAL_STATES
        ):
            raise ConcurrentTaskModificationError(write.task_id)
        if stored is None:
            connection.execute(
                self.versions.insert(),
                {"task_id": write.task_id, "owner": write.owner, "version": 1},
            )
            return 1
        connection.execute(
            self._move_version,
            {
                "b_task_id": write.task_id,
                "b_owner": write.owner,
                "b_prev": stored,
                "b_next": stored + 1,
            },
        )
        return int(stored) + 1

    def _log(self, connection: sa.Connection, written: list[tuple[TaskWrite, int]]) -> None:
        rows = [
            {
                "task_id": write.task_id,
                "owner": write.owner,
                "task_version": version,
                "event_data": write.event,
            }
            for write, version in written
            if write.event is not None
        ]
        if rows:
            connection.execute(self.events.insert(), rows)
