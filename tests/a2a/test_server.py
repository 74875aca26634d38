"""The hosted agent over both bindings, driven by the a2a-sdk client."""

from __future__ import annotations

import pytest
from a2a.types import GetTaskRequest, ListTasksRequest, Part, TaskState

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient

from .conftest import BINDINGS, a2a_client, serve
from .helpers import (
    adding_agent,
    artifact_text,
    collect,
    count_users,
    script_addition,
    send_blocking,
    user_message,
)

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("binding", BINDINGS)
async def test_blocking_send_runs_the_tool_using_agent(binding: str) -> None:
    agent, model = adding_agent()
    script_addition(model)
    async with serve(agent) as server, a2a_client(server.url, binding, streaming=False) as client:
        task = await send_blocking(client, user_message("What is 2 + 3?"))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(task) == "The sum is 5."
    assert [len(a.parts) for a in task.artifacts] == [1]
    assert model.calls[0].tool_names == ["add"]
    assert task.history[0].parts[0].text == "What is 2 + 3?"


@pytest.mark.parametrize("binding", BINDINGS)
async def test_streaming_reports_progress_then_artifact_chunks(binding: str) -> None:
    agent, model = adding_agent()
    script_addition(model)
    async with serve(agent) as server, a2a_client(server.url, binding) as client:
        events = await collect(client, user_message("What is 2 + 3?"))
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds[0] == "task"
    assert events[0].task.status.state == TaskState.TASK_STATE_SUBMITTED
    states = [e.status_update.status.state for e in events if e.HasField("status_update")]
    assert states[0] == TaskState.TASK_STATE_WORKING
    assert states[-1] == TaskState.TASK_STATE_COMPLETED
    progress = [
        e.status_update.status.message.parts[0].text
        for e in events
        if e.HasField("status_update") and e.status_update.status.message.parts
    ]
    assert progress == ["Calling tool add.", "Tool call finished."]
    chunks = [e.artifact_update for e in events if e.HasField("artifact_update")]
    assert len(chunks) > 2  # streamed in pieces of five characters
    assert "".join(c.artifact.parts[0].text for c in chunks[:-1]) == "The sum is 5."
    assert [c.append for c in chunks[:-1]] == [False] + [True] * (len(chunks) - 2)
    assert not any(c.last_chunk for c in chunks[:-1])
    final = chunks[-1]
    assert final.last_chunk
    assert not final.append
    assert [p.text for p in final.artifact.parts] == ["The sum is 5."]
    assert kinds[-1] == "status_update"  # completion comes last


@pytest.mark.parametrize("binding", BINDINGS)
async def test_get_task_and_list_tasks(binding: str) -> None:
    agent = Agent(client=ScriptedChatClient(["first", "second"]), name="echo")
    async with serve(agent) as server, a2a_client(server.url, binding, streaming=False) as client:
        first = await send_blocking(client, user_message("one"))
        second = await send_blocking(client, user_message("two"))
        fetched = await client.get_task(GetTaskRequest(id=first.id))
        listed = await client.list_tasks(ListTasksRequest(include_artifacts=True))
        by_context = await client.list_tasks(ListTasksRequest(context_id=second.context_id))
    assert fetched.id == first.id
    assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(fetched) == "first"
    assert {t.id for t in listed.tasks} == {first.id, second.id}
    assert {artifact_text(t) for t in listed.tasks} == {"first", "second"}
    assert [t.id for t in by_context.tasks] == [second.id]


@pytest.mark.parametrize("binding", BINDINGS)
async def test_context_id_continues_the_conversation(binding: str) -> None:
    agent = Agent(client=ScriptedChatClient([count_users] * 3), name="counter")
    async with serve(agent) as server, a2a_client(server.url, binding, streaming=False) as client:
        first = await send_blocking(client, user_message("hello"))
        second = await send_blocking(client, user_message("again", context_id=first.context_id))
        other = await send_blocking(client, user_message("fresh start"))
    assert artifact_text(first) == "seen 1 user messages"
    assert second.context_id == first.context_id
    assert second.id != first.id
    assert artifact_text(second) == "seen 2 user messages"
    assert other.context_id != first.context_id
    assert artifact_text(other) == "seen 1 user messages"


async def test_data_and_file_parts_reach_the_agent() -> None:
    model = ScriptedChatClient(["ok"])
    agent = Agent(client=model, name="reader")
    request = user_message("Look:", data={"city": "Paris", "days": 3})
    request.message.parts.append(Part(raw=b"\x89PNG", media_type="image/png", filename="a.png"))
    request.message.parts.append(Part(url="https://example.com/a.txt", media_type="text/plain"))
    modes = ["text/plain", "application/json", "image/png"]
    async with (
        serve(agent, input_modes=modes) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        task = await send_blocking(client, request)
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    sent = model.calls[0].messages[-1]
    assert [c.type for c in sent.contents] == ["text", "text", "data", "uri"]
    assert sent.contents[1].text == '{"city": "Paris", "days": 3}'
    assert sent.contents[1].json_value == {"city": "Paris", "days": 3}
    assert sent.contents[2].get_data_bytes() == b"\x89PNG"
    assert sent.contents[2].media_type == "image/png"
    assert sent.contents[2].name == "a.png"
    assert sent.contents[3].uri == "https://example.com/a.txt"
