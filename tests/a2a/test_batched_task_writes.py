"""The server's task writes are committed in batches, and a batch keeps every task's
version check: a stale write or a refused task fails alone."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from a2a.server.cluster import ConcurrentTaskModificationError, TaskVersion
from a2a.server.context import ServerCallContext
from a2a.types import GetTaskRequest, Task, TaskState, TaskStatus

from agentry.a2a._database import server_engine
from agentry.a2a._task_store import TASKS_TABLE, TaskTableStore
from agentry.clients.scripted import ScriptedChatClient

from .conftest import a2a_client, serve
from .helpers import send_blocking, user_message

pytestmark = pytest.mark.timeout(60)

CONTEXT = ServerCallContext()


def task(task_id: str, state: TaskState = TaskState.TASK_STATE_WORKING) -> Task:
    return Task(id=task_id, context_id="c", status=TaskStatus(state=state))


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[TaskTableStore]:
    """The server's task store on a new database, closed after the test."""
    store = TaskTableStore(server_engine(database_url, None))
    await store.initialize()
    yield store
    await store.close()
    await store.engine.dispose()


async def test_writes_of_many_tasks_land_with_their_versions(store: TaskTableStore) -> None:
    firsts = await asyncio.gather(
        *(store.save(task(f"t{i}"), prev_version=TaskVersion.MISSING, context=CONTEXT)
          for i in range(50))
    )  # fmt: skip
    seconds = await asyncio.gather(
        *(store.save(task(f"t{i}", TaskState.TASK_STATE_COMPLETED), prev_version=version,
                     context=CONTEXT)
          for i, version in enumerate(firsts))
    )  # fmt: skip
    stored = await store.get("t7", CONTEXT)

    assert set(firsts) == {TaskVersion(1)}
    assert set(seconds) == {TaskVersion(2)}
    assert stored is not None
    assert stored.version == TaskVersion(2)
    assert stored.task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_two_writes_from_one_version_store_one_and_refuse_the_other(
    store: TaskTableStore,
) -> None:
    first = await store.save(task("t"), prev_version=TaskVersion.MISSING, context=CONTEXT)

    results = await asyncio.gather(
        store.save(task("t", TaskState.TASK_STATE_COMPLETED), prev_version=first, context=CONTEXT),
        store.save(task("t", TaskState.TASK_STATE_FAILED), prev_version=first, context=CONTEXT),
        store.save(task("other"), prev_version=TaskVersion.MISSING, context=CONTEXT),
        return_exceptions=True,
    )
    stored = await store.get("t", CONTEXT)

    assert results[0] == TaskVersion(2)
    assert isinstance(results[1], ConcurrentTaskModificationError)
    assert results[2] == TaskVersion(1)
    assert stored is not None
    assert stored.task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_canceling_a_finished_task_is_refused_and_leaves_it_finished(
    store: TaskTableStore,
) -> None:
    first = await store.save(task("t"), prev_version=TaskVersion.MISSING, context=CONTEXT)
    done = await store.save(
        task("t", TaskState.TASK_STATE_COMPLETED), prev_version=first, context=CONTEXT
    )
    running = await store.save(task("u"), prev_version=TaskVersion.MISSING, context=CONTEXT)

    canceled = task("t", TaskState.TASK_STATE_CANCELED)
    with pytest.raises(ConcurrentTaskModificationError):
        await store.save(canceled, prev_version=done, context=CONTEXT)
    # A cancel overwrites an unfinished task whatever version it was read at.
    version = await store.save(
        task("u", TaskState.TASK_STATE_CANCELED), prev_version=running, context=CONTEXT
    )
    stored = await store.get("t", CONTEXT)

    assert version == TaskVersion(2)
    assert stored is not None
    assert stored.task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_a_task_the_database_refuses_fails_alone_and_the_others_complete(
    tmp_path: Path,
) -> None:
    database = tmp_path / "tasks.sqlite"
    async with serve(ScriptedChatClient(["one", "two", "three"]).as_agent(), database=database):
        pass  # creates the tables
    refuse = sqlite3.connect(database)
    refuse.execute(
        f"CREATE TRIGGER refuse_poison BEFORE INSERT ON {TASKS_TABLE} "
        "WHEN NEW.history LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poison refused'); END"
    )
    refuse.commit()
    refuse.close()
    agent = ScriptedChatClient(["fine", "also fine", "never stored"]).as_agent(name="a")

    async with (
        serve(agent, database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        results = await asyncio.gather(
            send_blocking(client, user_message("hello")),
            send_blocking(client, user_message("poison")),
            send_blocking(client, user_message("hi")),
            return_exceptions=True,
        )
        fine = [r for r in results if isinstance(r, Task)]
        readable = [await client.get_task(GetTaskRequest(id=t.id)) for t in fine]

    assert [r.status.state for r in fine] == [TaskState.TASK_STATE_COMPLETED] * 2
    assert [r.status.state for r in readable] == [TaskState.TASK_STATE_COMPLETED] * 2
    assert not isinstance(results[1], Task)
    assert "poison refused" in str(results[1])
    with sqlite3.connect(database) as check:
        rows = check.execute(f"SELECT history FROM {TASKS_TABLE}").fetchall()
    assert len(rows) == 2
    assert all("poison" not in row[0] for row in rows)
