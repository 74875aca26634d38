"""A task store that writes streamed answer chunks in batches.

The SDK saves the task once per event, so an answer streamed in many chunks costs one
store write per chunk. `CoalescingTaskStore` keeps a chunk's task in memory instead and
writes it with the task's next other event (a status update, the closing artifact), or,
when an `interval` is set, once that many seconds have passed since the task was last
written. The stream the client sees is unchanged: only the store's writes are fewer. This
server's reads of the task see the chunks at once; other servers on the same database see
them once written.

Without an interval a task costs the same few writes however slowly its chunks come; an
interval is a deadline measured in wall time, so under load, when every chunk takes
longer to come, it writes more chunks, and thus adds load.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from a2a.server.cluster import (
    ConcurrentTaskModificationError,
    LegacyTaskStoreAdapter,
    StoredTask,
    TaskVersion,
    VersionedTaskStore,
)
from a2a.server.context import ServerCallContext
from a2a.server.events import Event
from a2a.server.tasks import TaskStore
from a2a.types import (
    ListTasksRequest,
    ListTasksResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
)
from typing_extensions import override

__all__ = ["CoalescingTaskStore"]

_SETTLED_STATES = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_REJECTED,
        TaskState.TASK_STATE_INPUT_REQUIRED,
        TaskState.TASK_STATE_AUTH_REQUIRED,
    }
)


@dataclass
class _Unwritten:
    """A task whose latest chunks are not written yet."""

    task: Task
    version: TaskVersion


class CoalescingTaskStore(VersionedTaskStore):
    """Writes a task's streamed chunks with its next other event, or at most once per
    `interval` seconds.

    Args:
        store: The store that keeps the tasks.
        interval: Seconds between writes of a task while only chunks arrive; `None`
            writes them only with the task's next other event.
    """

    def __init__(self, store: TaskStore | VersionedTaskStore, *, interval: float | None) -> None:
        self.store: VersionedTaskStore = (
            store if isinstance(store, VersionedTaskStore) else LegacyTaskStoreAdapter(store)
        )
        self.interval = interval
        self._unwritten: dict[str, _Unwritten] = {}
        self._written_at: dict[str, float] = {}
        self._gaps: set[str] = set()
        self._writing: Counter[str] = Counter()

    @override
    async def save(
        self,
        task: Task,
        *,
        event: Event | None,
        prev: Task | None,
        prev_version: TaskVersion,
        context: ServerCallContext,
    ) -> TaskVersion:
        now = time.monotonic()
        last_write = self._written_at.get(task.id)
        if (
            _is_chunk(event)
            and last_write is not None
            and (self.interval is None or now - last_write < self.interval)
        ):
            self._unwritten[task.id] = _Unwritten(task, prev_version)
            self._gaps.add(task.id)
            return prev_version
        self._unwritten.pop(task.id, None)
        if isinstance(event, TaskArtifactUpdateEvent) and task.id in self._gaps:
            # Chunks were left out of the task's event log: log the artifact whole, so
            # that servers following the task from the log hold all of it.
            event = _whole_artifact(task, event)
            self._gaps.discard(task.id)
        # Running while it is written: under load, a task's write may land long after
        # its status was stamped, and a sweep must not take it for abandoned meanwhile.
        self._writing[task.id] += 1
        try:
            version = await self.store.save(
                task, event=event, prev=prev, prev_version=prev_version, context=context
            )
        except ConcurrentTaskModificationError:
            self.forget(task.id)
            raise
        finally:
            self._writing[task.id] -= 1
            if not self._writing[task.id]:
                del self._writing[task.id]
        if task.status.state in _SETTLED_STATES:
            self.forget(task.id)
        else:
            self._written_at[task.id] = now
        return version

    @override
    async def get(self, task_id: str, context: ServerCallContext) -> StoredTask | None:
        unwritten = self._unwritten.get(task_id)
        if unwritten is not None:
            copy = Task()
            copy.CopyFrom(unwritten.task)
            return StoredTask(copy, unwritten.version)
        return await self.store.get(task_id, context)

    @override
    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        return await self.store.list(params, context)

    @override
    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        self.forget(task_id)
        await self.store.delete(task_id, context)

    def unsettled(self) -> set[str]:
        """The tasks being written, or last written in a state that is not final or
        waiting for input: their runs are going on, or their last events are still on
        their way to the store."""
        return set(self._written_at) | set(self._writing)

    def forget(self, task_id: str) -> None:
        """Drop what is held for `task_id` (it settled, or another server changed it)."""
        self._unwritten.pop(task_id, None)
        self._written_at.pop(task_id, None)
        self._gaps.discard(task_id)


def _is_chunk(event: Event | None) -> bool:
    """Whether `event` is a chunk of an answer that goes on streaming."""
    return isinstance(event, TaskArtifactUpdateEvent) and not event.last_chunk


def _whole_artifact(task: Task, event: TaskArtifactUpdateEvent) -> TaskArtifactUpdateEvent:
    """`event` carrying its whole artifact as the task holds it (replacing, not appending)."""
    whole = TaskArtifactUpdateEvent()
    whole.CopyFrom(event)
    whole.append = False
    for artifact in task.artifacts:
        if artifact.artifact_id == event.artifact.artifact_id:
            whole.artifact.CopyFrom(artifact)
    return whole
