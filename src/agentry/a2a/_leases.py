"""Servers sharing one database: leases, the tasks each runs, and what a dead one leaves.

Each server holds a lease: a row with the time it expires, renewed every third of the
lease. With each renewal it records which tasks it is running. A task left `submitted`
or `working` by a server whose lease ran out (it was killed, or lost the database) is
failed with a status message saying why, by whichever server sweeps first: each server
sweeps on start-up and at each renewal. A running task with no recorded server (it
started less than a renewal before its server died) is failed once its last update is
older than a lease. Tasks waiting for input are left alone: the next message resumes
them on any server. On a server with a durable runtime, a task whose run is durable is
not failed but resumed: the sweeping server marks it as resumed and follows the run.

Cancellation reaches a task running on another server through the database: the server
that receives `CancelTask` stores the task as canceled, and the server running it,
which checks its running tasks for that every `cancel_poll` seconds, stops the run.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncGenerator, Iterable, Sequence
from datetime import datetime, timedelta, timezone
from functools import partial

from a2a.server.cluster import (
    ConcurrentTaskModificationError,
    TaskEventStream,
    TaskVersion,
    VersionedEvent,
)
from a2a.server.context import ServerCallContext
from a2a.server.owner_resolver import resolve_user_scope
from a2a.types import Message, Part, Role, Task, TaskState, TaskStatus, TaskStatusUpdateEvent
from sqlalchemy import Column, Float, MetaData, String, Table, and_, delete, or_, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import override

from agentry.a2a._coalescing import CoalescingTaskStore
from agentry.a2a._durable_tasks import RESUMED_TASK_MESSAGE, StoreEvents
from agentry.a2a._executor import AgentryAgentExecutor
from agentry.storage import Schema, create_tables

__all__ = [
    "ABANDONED_TASK_MESSAGE",
    "LEASES_SCHEMA",
    "ServerLease",
    "SingleServerEvents",
    "owner_from_context",
]

logger = logging.getLogger("agentry.a2a")

ABANDONED_TASK_MESSAGE = (
    "The server running this task stopped before the task ended, so the task was "
    "failed. Send the message again to start over."
)
"""The status message of a task failed because its server died."""

_OWNER_KEY = "agentry.a2a.task_owner"
_RUNNING_STATES = ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
_BATCH = 500

_metadata = MetaData()
_servers = Table(
    "agentry_a2a_servers",
    _metadata,
    Column("server_id", String(64), primary_key=True),
    Column("expires_at", Float, nullable=False),
)
_runs = Table(
    "agentry_a2a_task_runs",
    _metadata,
    Column("task_id", String(64), primary_key=True),
    Column("server_id", String(64), nullable=False, index=True),
)

LEASES_SCHEMA = Schema("agentry_a2a_servers", (partial(create_tables, metadata=_metadata),))
"""The servers' leases and the tasks each runs (version 1: both tables)."""


def owner_from_context(context: ServerCallContext) -> str:
    """The task owner a request acts for: its user, or the owner of the task a sweep fails."""
    owner = context.state.get(_OWNER_KEY)
    return owner if isinstance(owner, str) else resolve_user_scope(context)


class ServerLease:
    """This server's lease on a shared database, its sweep, and its cancellation checks.

    Args:
        engine: The database's engine (its tables prepared with `LEASES_SCHEMA`).
        tasks: The task table.
        store: The task store on `tasks`; the tasks it has not yet
            written in a settled state count as running here, like the executor's runs.
        executor: The executor whose running tasks this server owns.
        lease: Seconds a lease lasts without renewal.
        cancel_poll: Seconds between checks for running tasks canceled through another
            server.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        tasks: Table,
        store: CoalescingTaskStore,
        executor: AgentryAgentExecutor,
        *,
        lease: float,
        cancel_poll: float,
    ) -> None:
        self.engine = engine
        self.tasks = tasks
        self.store = store
        self.executor = executor
        self.lease = lease
        self.cancel_poll = cancel_poll
        self.server_id = uuid.uuid4().hex
        self._recorded: set[str] = set()
        self._loop: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Take the lease, sweep once, and keep renewing."""
        await self._renew()
        self._loop = asyncio.create_task(self._run(), name="agentry-a2a-lease")

    async def release(self) -> None:
        """Stop renewing and give the lease up, recording the tasks still running, so
        that the next sweep (:meth:`sweep`, or another server's) fails them at once."""
        if self._loop is not None:
            self._loop.cancel()
            await asyncio.gather(self._loop, return_exceptions=True)
        try:
            await self._write_lease(expires_at=0.0)
        except SQLAlchemyError:
            logger.warning("could not give up the A2A server lease", exc_info=True)

    async def sweep(self) -> None:
        """Fail the running tasks of servers whose lease ran out, this one's included:
        call it once the lease is released and the runs are over. Tasks with a durable run
        are left for a live server to resume."""
        try:
            await self._sweep(set(), stopping=True)
        except SQLAlchemyError:
            logger.warning("could not fail the tasks of stopped A2A servers", exc_info=True)

    async def _run(self) -> None:
        renew_every = self.lease / 3
        next_renewal = time.monotonic() + renew_every
        while True:
            await asyncio.sleep(min(self.cancel_poll, max(0.0, next_renewal - time.monotonic())))
            try:
                await self._stop_canceled_runs()
                if time.monotonic() >= next_renewal:
                    next_renewal = time.monotonic() + renew_every
                    await self._renew()
            except SQLAlchemyError:
                logger.warning("A2A server lease upkeep failed; retrying", exc_info=True)

    def _running(self) -> set[str]:
        """The tasks this server is running: their runs go on, or their last events are
        still on their way to the store."""
        return set(self.executor.running_tasks()) | self.store.unsettled()

    async def _renew(self) -> None:
        await self._write_lease(expires_at=time.time() + self.lease)
        await self._sweep(self._recorded, spare_running=True)

    async def _write_lease(self, *, expires_at: float) -> None:
        """Write when the lease expires, and which tasks this server runs."""
        running = self._running()
        started, ended = running - self._recorded, self._recorded - running
        async with self.engine.begin() as connection:
            updated = await connection.execute(
                _servers.update()
                .where(_servers.c.server_id == self.server_id)
                .values(expires_at=expires_at)
            )
            if not updated.rowcount:
                await connection.execute(
                    _servers.insert().values(server_id=self.server_id, expires_at=expires_at)
                )
            for batch in _batches(ended | started):
                await connection.execute(delete(_runs).where(_runs.c.task_id.in_(batch)))
            for batch in _batches(started):
                await connection.execute(
                    _runs.insert(), [{"task_id": t, "server_id": self.server_id} for t in batch]
                )
        self._recorded = running

    async def _sweep(
        self, running: set[str], *, spare_running: bool = False, stopping: bool = False
    ) -> None:
        """Fail (or, for durable runs, resume) the running tasks of servers whose lease ran
        out, except `running` (and, with `spare_running`, the tasks running here when the
        query returns: a task started, or first written, since the lease was written has
        no recorded server)."""
        now = time.time()
        stale = datetime.now(timezone.utc).replace(tzinfo=None) - timedelta(seconds=self.lease)
        tasks = self.tasks
        live = select(_servers.c.server_id).where(_servers.c.expires_at >= now)
        query = (
            select(tasks.c.id, tasks.c.owner)
            .select_from(tasks.outerjoin(_runs, _runs.c.task_id == tasks.c.id))
            .where(
                tasks.c.status["state"].as_string().in_(_RUNNING_STATES),
                or_(
                    and_(_runs.c.server_id.is_not(None), _runs.c.server_id.not_in(live)),
                    and_(
                        _runs.c.server_id.is_(None),
                        or_(tasks.c.last_updated.is_(None), tasks.c.last_updated < stale),
                    ),
                ),
            )
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        if spare_running:
            running = running | self._running()
        abandoned = [(str(row[0]), row[1] or "") for row in rows if row[0] not in running]
        for task_id, owner in abandoned:
            await self._fail(task_id, owner, stopping=stopping)
        async with self.engine.begin() as connection:
            for batch in _batches(task_id for task_id, _ in abandoned):
                await connection.execute(delete(_runs).where(_runs.c.task_id.in_(batch)))
            await connection.execute(
                delete(_servers).where(
                    _servers.c.expires_at < now,
                    _servers.c.server_id.not_in(select(_runs.c.server_id)),
                )
            )

    async def _fail(self, task_id: str, owner: str, *, stopping: bool) -> None:
        """Fail an abandoned task, or resume it here when its run is durable (a stopping
        server leaves such a task to the others)."""
        context = ServerCallContext(state={_OWNER_KEY: owner})
        stored = await self.store.get(task_id, context)
        if stored is None or TaskState.Name(stored.task.status.state) not in _RUNNING_STATES:
            return
        durable = self.executor.durable
        resumed = durable is not None and await durable.has_run(task_id)
        if resumed and stopping:
            return
        failed = Task()
        failed.CopyFrom(stored.task)
        status = TaskStatus(
            state=TaskState.TASK_STATE_WORKING if resumed else TaskState.TASK_STATE_FAILED,
            message=Message(
                message_id=uuid.uuid4().hex,
                role=Role.ROLE_AGENT,
                task_id=task_id,
                context_id=failed.context_id,
                parts=[Part(text=RESUMED_TASK_MESSAGE if resumed else ABANDONED_TASK_MESSAGE)],
            ),
        )
        status.timestamp.GetCurrentTime()
        if failed.status.HasField("message"):
            failed.history.append(failed.status.message)
        failed.status.CopyFrom(status)
        event = TaskStatusUpdateEvent(task_id=task_id, context_id=failed.context_id, status=status)
        try:
            await self.store.save(
                failed, event=event, prev=stored.task, prev_version=stored.version, context=context
            )
        except ConcurrentTaskModificationError:
            return  # another server changed it first: it is not abandoned, or already failed
        if resumed:
            events = StoreEvents(self.store, context, task_id, failed.context_id)
            self.executor.resume_task(task_id, events)
            logger.warning("resumed A2A task %s: the server running it stopped", task_id)
        else:
            logger.warning("failed A2A task %s: the server running it stopped", task_id)

    async def _stop_canceled_runs(self) -> None:
        running = self.executor.running_tasks()
        if not running:
            return
        tasks = self.tasks
        canceled: list[str] = []
        async with self.engine.connect() as connection:
            for batch in _batches(running):
                query = select(tasks.c.id).where(
                    tasks.c.id.in_(batch),
                    tasks.c.status["state"].as_string() == "TASK_STATE_CANCELED",
                )
                canceled.extend(str(row[0]) for row in await connection.execute(query))
        for task_id in canceled:
            self.executor.stop_run(task_id)


def _batches(items: Iterable[str]) -> Iterable[Sequence[str]]:
    batch: list[str] = []
    for item in items:
        batch.append(item)
        if len(batch) == _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


class SingleServerEvents(TaskEventStream):
    """The event stream of a server whose tasks no other server runs: a subscription to a
    task this server does not hold ends after the task's snapshot (nothing will follow)."""

    @override
    async def publish(self, task_id: str, event: VersionedEvent) -> None:
        del task_id, event

    @override
    async def subscribe(
        self, task_id: str, *, after: TaskVersion
    ) -> AsyncGenerator[VersionedEvent, None]:
        del task_id, after
        return
        yield  # an async generator that yields nothing

    @override
    async def destroy(self, task_id: str) -> None:
        del task_id
