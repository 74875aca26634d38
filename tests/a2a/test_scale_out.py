"""Several `agentry serve a2a` processes on one database: a dead server's tasks are failed,
live servers leave each other's tasks alone, and a task is read, continued and canceled
through any of them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from a2a.client import Client
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)

from agentry.a2a._leases import ABANDONED_TASK_MESSAGE

from .conftest import a2a_client
from .helpers import artifact_text, send_blocking, user_message
from .processes import ServerProcess, served, start_server

pytestmark = pytest.mark.timeout(120)

TARGET = "tests.a2a.demo_agent:agent"
# A one-second lease, renewed every third of a second: a dead server is noticed quickly.
OPTIONS = ("--lease", "1", "--log-level", "warning")
# Longer than a lease: the servers renew and sweep several times meanwhile.
SEVERAL_SWEEPS = 2.0


class Stream:
    """A streaming `SendMessage` consumed in the background."""

    def __init__(self, client: Client, request: SendMessageRequest) -> None:
        self.events: list[StreamResponse] = []
        self.task_id = ""
        self.working = asyncio.Event()
        self.runner = asyncio.create_task(self._consume(client, request))

    async def _consume(self, client: Client, request: SendMessageRequest) -> None:
        async for event in client.send_message(request):
            self.events.append(event)
            if event.HasField("status_update"):
                self.task_id = event.status_update.task_id
                if event.status_update.status.state == TaskState.TASK_STATE_WORKING:
                    self.working.set()

    def last_state(self) -> TaskState:
        last = self.events[-1]
        return last.task.status.state if last.HasField("task") else last.status_update.status.state


async def settled(client: Client, task_id: str) -> Task:
    """The task once it has left `submitted` and `working` (the test's timeout guards)."""
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state not in (
            TaskState.TASK_STATE_SUBMITTED,
            TaskState.TASK_STATE_WORKING,
        ):
            return task
        await asyncio.sleep(0.1)


async def start_slow_task(client: Client) -> Stream:
    stream = Stream(client, user_message("slow"))
    await stream.working.wait()
    return stream


async def test_a_task_left_working_by_a_killed_server_is_failed_by_the_next(
    tmp_path: Path,
) -> None:
    database = str(tmp_path / "tasks.sqlite")
    first = await start_server(TARGET, "--database", database, *OPTIONS)
    try:
        async with a2a_client(first.url) as client:
            stream = await start_slow_task(client)
            first.kill()
            await asyncio.gather(stream.runner, return_exceptions=True)
    finally:
        first.stop()
    async with (
        served(TARGET, "--database", database, *OPTIONS) as second,
        a2a_client(second.url) as client,
    ):
        task = await settled(client, stream.task_id)
    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert task.status.message.parts[0].text == ABANDONED_TASK_MESSAGE


async def test_live_servers_leave_each_others_tasks_alone_and_notice_a_dead_one(
    tmp_path: Path,
) -> None:
    database = str(tmp_path / "tasks.sqlite")
    async with served(TARGET, "--database", database, *OPTIONS) as survivor:
        doomed = await start_server(TARGET, "--database", database, *OPTIONS)
        try:
            async with a2a_client(doomed.url) as owner, a2a_client(survivor.url) as peer:
                stream = await start_slow_task(owner)
                await asyncio.sleep(SEVERAL_SWEEPS)
                still = await peer.get_task(GetTaskRequest(id=stream.task_id))
                # Following the task through the survivor: it ends when the task fails.
                subscription = [
                    e
                    async for e in _after_kill(
                        peer.subscribe(SubscribeToTaskRequest(id=stream.task_id)), doomed
                    )
                ]
                await asyncio.gather(stream.runner, return_exceptions=True)
                task = await peer.get_task(GetTaskRequest(id=stream.task_id))
        finally:
            doomed.stop()
    assert still.status.state == TaskState.TASK_STATE_WORKING
    assert subscription[0].task.status.state == TaskState.TASK_STATE_WORKING
    assert subscription[-1].status_update.status.state == TaskState.TASK_STATE_FAILED
    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert task.status.message.parts[0].text == ABANDONED_TASK_MESSAGE


async def _after_kill(
    subscription: AsyncIterator[StreamResponse], server: ServerProcess
) -> AsyncIterator[StreamResponse]:
    """The events of `subscription`; `server` is killed once the first one arrived."""
    async for event in subscription:
        yield event
        if server.process.poll() is None:
            server.kill()


async def test_two_servers_on_postgresql_serve_the_same_tasks(postgres_url: str) -> None:
    arguments = (TARGET, "--database", postgres_url, *OPTIONS)
    async with (
        served(*arguments) as first,
        served(*arguments) as second,
        a2a_client(first.url, streaming=False) as one,
        a2a_client(second.url, streaming=False) as other,
        a2a_client(first.url) as streaming_one,
    ):
        waiting = await send_blocking(one, user_message("delete notes.txt"))
        read = await other.get_task(GetTaskRequest(id=waiting.id))
        answered = await send_blocking(other, user_message("yes", task_id=waiting.id))
        counted = await send_blocking(other, user_message("count", context_id=waiting.context_id))

        stream = await start_slow_task(streaming_one)
        await asyncio.sleep(SEVERAL_SWEEPS)
        running = await other.get_task(GetTaskRequest(id=stream.task_id))
        canceled = await other.cancel_task(CancelTaskRequest(id=stream.task_id))
        await stream.runner
        final = await one.get_task(GetTaskRequest(id=stream.task_id))
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert read.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert read.history[0].parts[0].text == "delete notes.txt"
    assert answered.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(answered) == "Tool result: deleted notes.txt"
    assert artifact_text(counted) == "seen 2 user messages"
    assert running.status.state == TaskState.TASK_STATE_WORKING
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    # The run on the first server stopped: its client's stream ends canceled.
    assert stream.last_state() == TaskState.TASK_STATE_CANCELED
    assert final.status.state == TaskState.TASK_STATE_CANCELED


async def test_a_server_stopped_cleanly_fails_the_tasks_it_was_running(tmp_path: Path) -> None:
    database = str(tmp_path / "tasks.sqlite")
    # A long lease: only the stopping server's own sweep can fail the task in time.
    options = ("--database", database, "--lease", "600", "--log-level", "warning")
    first = await start_server(TARGET, *options)
    try:
        async with a2a_client(first.url) as client:
            stream = await start_slow_task(client)
            stream.runner.cancel()
            await asyncio.gather(stream.runner, return_exceptions=True)
    finally:
        first.stop()
    async with served(TARGET, *options) as second, a2a_client(second.url) as client:
        task = await client.get_task(GetTaskRequest(id=stream.task_id))
    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert task.status.message.parts[0].text == ABANDONED_TASK_MESSAGE
