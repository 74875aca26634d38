"""Streamed chunks reach the client one by one but the task store in few writes."""

from __future__ import annotations

import asyncio
import math

import pytest
from a2a.server.cluster import TaskVersion
from a2a.server.context import ServerCallContext
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import Task, TaskArtifactUpdateEvent, TaskState, TaskStatus
from typing_extensions import override

from agentry import Agent
from agentry.a2a._coalescing import CoalescingTaskStore
from agentry.clients.scripted import ScriptedChatClient

from .conftest import a2a_client, serve
from .helpers import artifact_text, collect, user_message

pytestmark = pytest.mark.timeout(30)

ANSWER = "".join(f"word{i} " for i in range(40))
CHUNK = 6


class CountingTaskStore(InMemoryTaskStore):
    """An in-memory task store that counts its writes."""

    def __init__(self, *, write_seconds: float = 0.0) -> None:
        super().__init__()
        self.writes = 0
        self.write_seconds = write_seconds

    @override
    async def save(self, task: Task, context: ServerCallContext) -> None:
        self.writes += 1
        await asyncio.sleep(self.write_seconds)
        await super().save(task, context)


async def stream_answer(
    answer: str = ANSWER, *, write_seconds: float = 0.0, **options: object
) -> tuple[list[TaskArtifactUpdateEvent], Task, int]:
    """Stream `answer` through a served agent (its store taking `write_seconds` a write);
    its chunks as the client saw them, the stored task, and the store's writes."""
    agent = Agent(client=ScriptedChatClient([answer], chunk_size=CHUNK), name="talker")
    store = CountingTaskStore(write_seconds=write_seconds)
    async with (
        serve(agent, task_store=store, **options) as server,
        a2a_client(server.url) as client,
    ):
        events = await collect(client, user_message("talk"))
    chunks = [e.artifact_update for e in events if e.HasField("artifact_update")]
    stored = await store.get(chunks[0].task_id, ServerCallContext())
    assert stored is not None
    return chunks, stored, store.writes


async def test_the_client_gets_every_chunk_and_the_store_one_write_for_them() -> None:
    chunks, stored, writes = await stream_answer()

    streamed = [c for c in chunks if not c.last_chunk]
    assert len(streamed) == math.ceil(len(ANSWER) / CHUNK)
    assert "".join(p.text for c in streamed for p in c.artifact.parts) == ANSWER
    assert chunks[-1].last_chunk
    assert chunks[-1].artifact.parts[0].text == ANSWER
    assert artifact_text(stored) == ANSWER
    # submitted, working, the whole answer, completed: as many as the status events.
    assert writes == 4


async def test_a_slow_store_still_gets_one_write_for_all_chunks() -> None:
    # Under load every write takes long and chunks come long after the last write: the
    # chunks are still written once, with the closing artifact.
    answer = "three chunks here."
    chunks, stored, writes = await stream_answer(answer, write_seconds=0.6)

    assert len([c for c in chunks if not c.last_chunk]) == 3
    assert artifact_text(stored) == answer
    assert writes == 4


async def test_an_interval_writes_chunks_that_come_after_it() -> None:
    answer = "three chunks here."
    chunks, stored, writes = await stream_answer(
        answer, write_seconds=0.2, chunk_write_interval=0.1
    )

    assert artifact_text(stored) == answer
    assert writes == 4 + len(chunks) - 1


async def test_a_zero_interval_writes_every_chunk() -> None:
    chunks, stored, writes = await stream_answer(chunk_write_interval=0)

    assert artifact_text(stored) == ANSWER
    assert writes == 4 + len(chunks) - 1


class GatedTaskStore(InMemoryTaskStore):
    """An in-memory task store whose writes wait until `release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    @override
    async def save(self, task: Task, context: ServerCallContext) -> None:
        self.entered.set()
        await self.release.wait()
        await super().save(task, context)


async def test_a_task_counts_as_running_here_while_it_is_written() -> None:
    # A loaded server writes a task long after stamping its status: while the write is
    # on its way, the server's sweep must not take the task for another's abandoned one.
    gated = GatedTaskStore()
    store = CoalescingTaskStore(gated, interval=None)
    task = Task(id="t1", context_id="c1", status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED))
    saving = asyncio.create_task(
        store.save(
            task,
            event=None,
            prev=None,
            prev_version=TaskVersion.MISSING,
            context=ServerCallContext(),
        )
    )
    await gated.entered.wait()

    assert store.unsettled() == {"t1"}
    gated.release.set()
    await saving
    assert store.unsettled() == set()
