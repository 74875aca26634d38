"""`reply_with="message"`: answering a new message with one bare A2A message."""

from __future__ import annotations

import pytest
from a2a.types import ListTasksRequest, Role, TaskState

from agentry import Agent
from agentry.a2a import A2AAgent, A2AConfigError, AgentryAgentExecutor, create_app
from agentry.clients.scripted import ScriptedChatClient

from .conftest import BINDINGS, a2a_client, serve
from .helpers import add, collect, count_users, delete_file, send_blocking, user_message

pytestmark = pytest.mark.timeout(30)


def counting_agent() -> Agent:
    return Agent(client=ScriptedChatClient([count_users] * 3, chunk_size=4), name="counter")


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("streaming", [False, True])
async def test_a_new_message_gets_one_bare_message_back(binding: str, streaming: bool) -> None:
    async with (
        serve(counting_agent(), reply_with="message") as server,
        a2a_client(server.url, binding, streaming=streaming) as client,
    ):
        [event] = await collect(client, user_message("hello"))
        reply = event.message
        [again] = await collect(client, user_message("more", context_id=reply.context_id))
        tasks = (await client.list_tasks(ListTasksRequest())).tasks
    assert event.WhichOneof("payload") == "message"
    assert reply.role == Role.ROLE_AGENT
    assert [p.text for p in reply.parts] == ["seen 1 user messages"]
    assert reply.context_id
    assert not reply.task_id
    assert [p.text for p in again.message.parts] == ["seen 2 user messages"]
    assert list(tasks) == []


async def test_a_message_reply_becomes_a_task_when_the_run_needs_input() -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}, call_id="c1"),
            lambda messages, options: f"Result: {messages[-1].contents[0].result}",
        ]
    )
    agent = Agent(client=model, name="files", tools=[delete_file])
    async with (
        serve(agent, reply_with="message") as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        done = await send_blocking(client, user_message("yes", task_id=waiting.id))
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert "".join(p.text for a in done.artifacts for p in a.parts) == "Result: deleted a.txt"


async def test_a_failed_run_is_a_failed_task_with_the_reason() -> None:
    agent = Agent(client=ScriptedChatClient([RuntimeError("model down")]), name="broken")
    async with (
        serve(agent, reply_with="message") as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        failed = await send_blocking(client, user_message("hi"))
    assert failed.status.state == TaskState.TASK_STATE_FAILED
    assert "RuntimeError: model down" in failed.status.message.parts[0].text


async def test_tool_calls_still_run_and_a2a_agent_reads_the_message() -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("add", {"a": 2, "b": 3}),
            lambda messages, options: f"The sum is {messages[-1].contents[0].result}.",
        ]
    )
    agent = Agent(client=model, name="calculator", tools=[add])
    async with (
        serve(agent, reply_with="message") as server,
        A2AAgent(url=server.url) as remote,
    ):
        response = await remote.run("What is 2 + 3?")
    assert response.text == "The sum is 5."


def test_reply_with_is_checked() -> None:
    agent = Agent(client=ScriptedChatClient([]), name="x")
    with pytest.raises(A2AConfigError, match='reply_with must be "task" or "message"'):
        create_app(agent, database=None, reply_with="artifact")  # type: ignore[arg-type]
    with pytest.raises(A2AConfigError, match="got 'both'"):
        AgentryAgentExecutor(agent, reply_with="both")  # type: ignore[arg-type]
    assert create_app(agent, database=None).executor.reply_with == "task"
