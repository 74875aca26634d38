"""Tasks and conversations kept in SQLite outlive a server restart."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from a2a.types import GetTaskRequest, ListTasksRequest, TaskState

from agentry import Agent
from agentry.a2a import A2AConfigError, SQLiteContextSessionStore
from agentry.clients.scripted import ScriptedChatClient
from agentry.sessions import AgentSession

from .conftest import BINDINGS, a2a_client, serve
from .helpers import artifact_text, count_users, delete_file, send_blocking, user_message

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("binding", BINDINGS)
async def test_restarted_server_answers_for_earlier_tasks(tmp_path: Path, binding: str) -> None:
    database = tmp_path / "a2a.sqlite"
    agent = Agent(client=ScriptedChatClient(["remembered"]), name="keeper")
    async with (
        serve(agent, database=database) as server,
        a2a_client(server.url, binding, streaming=False) as client,
    ):
        task = await send_blocking(client, user_message("keep this"))
    assert database.exists()
    restarted_agent = Agent(client=ScriptedChatClient([]), name="keeper")
    async with (
        serve(restarted_agent, database=database) as server,
        a2a_client(server.url, binding, streaming=False) as client,
    ):
        fetched = await client.get_task(GetTaskRequest(id=task.id))
        listed = await client.list_tasks(ListTasksRequest())
    assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(fetched) == "remembered"
    assert fetched.history[0].parts[0].text == "keep this"
    assert [t.id for t in listed.tasks] == [task.id]


async def test_conversation_continues_after_restart(tmp_path: Path) -> None:
    database = tmp_path / "a2a.sqlite"
    agent = Agent(client=ScriptedChatClient([count_users]), name="counter")
    async with (
        serve(agent, database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        first = await send_blocking(client, user_message("hello"))
    again = Agent(client=ScriptedChatClient([count_users]), name="counter")
    async with (
        serve(again, database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        second = await send_blocking(client, user_message("again", context_id=first.context_id))
    assert artifact_text(second) == "seen 2 user messages"


async def test_pending_approval_resumes_after_restart(tmp_path: Path) -> None:
    database = tmp_path / "a2a.sqlite"
    before = ScriptedChatClient(
        [ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}, call_id="c1")]
    )
    agent = Agent(client=before, name="files", tools=[delete_file])
    async with (
        serve(agent, database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("Delete a.txt"))
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    after = ScriptedChatClient(
        [lambda messages, options: f"Result: {messages[-1].contents[0].result}"]
    )
    agent = Agent(client=after, name="files", tools=[delete_file])
    async with (
        serve(agent, database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        done = await send_blocking(client, user_message("yes", task_id=waiting.id))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Result: deleted a.txt"


async def test_sessions_are_stored_as_plain_json(tmp_path: Path) -> None:
    database = tmp_path / "sessions.sqlite"
    store = SQLiteContextSessionStore(database)
    session = AgentSession(session_id="ctx-1", state={"notes": ["a", 1]})
    await store.save("ctx-1", session)
    await store.save("ctx-1", session)  # saving again replaces
    store.close()
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT context_id, session FROM agentry_a2a_sessions").fetchall()
    assert len(rows) == 1
    assert json.loads(rows[0][1])["state"] == {"notes": ["a", 1]}
    reopened = SQLiteContextSessionStore(database)
    loaded = await reopened.load("ctx-1")
    assert await reopened.load("unknown") is None
    reopened.close()
    assert loaded is not None
    assert loaded.state == {"notes": ["a", 1]}


def test_session_table_name_is_checked() -> None:
    with pytest.raises(A2AConfigError, match="table name"):
        SQLiteContextSessionStore(":memory:", table="x; DROP TABLE y")
