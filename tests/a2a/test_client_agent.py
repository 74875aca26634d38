"""`A2AAgent` talking to an agentry A2A server."""

from __future__ import annotations

import asyncio

import pytest
from a2a.types import ListTasksRequest, Task, TaskState

from agentry import Agent, Message
from agentry.a2a import A2AAgent, A2AConfigError, RemoteAgentError
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ContentError

from .conftest import BINDINGS, a2a_client, serve
from .demo_agent import build
from .helpers import adding_agent, count_users, delete_file, script_addition

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("streaming", [True, False])
async def test_remote_agent_completes_a_tool_using_task(binding: str, streaming: bool) -> None:
    agent, model = adding_agent()
    script_addition(model)
    async with (
        serve(agent) as server,
        A2AAgent(url=server.url, bindings=[binding], streaming=streaming) as remote,
    ):
        response = await remote.run("What is 2 + 3?")
    assert response.text == "The sum is 5."
    assert remote.name == "calculator"
    assert remote.description == "Adds."
    assert model.calls[0].tool_names == ["add"]
    assert [c.type for c in model.calls[1].messages[-1].contents] == ["function_result"]


async def test_streamed_updates_arrive_in_pieces() -> None:
    agent, model = adding_agent()
    script_addition(model)
    async with serve(agent) as server, A2AAgent(url=server.url) as remote:
        stream = remote.run("What is 2 + 3?", stream=True)
        pieces = [update.text async for update in stream]
        final = await stream.get_final_response()
    assert len(pieces) > 1
    assert "".join(pieces) == "The sum is 5."
    assert final.text == "The sum is 5."


async def test_session_keeps_the_remote_context() -> None:
    agent = Agent(client=ScriptedChatClient([count_users] * 3), name="counter")
    async with serve(agent) as server, A2AAgent(url=server.url) as remote:
        session = remote.create_session()
        first = await remote.run("hello", session=session)
        second = await remote.run("again", session=session)
        fresh = await remote.run("no session")
    assert first.text == "seen 1 user messages"
    assert second.text == "seen 2 user messages"
    assert fresh.text == "seen 1 user messages"


async def test_agent_card_instead_of_url() -> None:
    agent = Agent(client=ScriptedChatClient(["hi"]), name="greeter")
    async with serve(agent) as server:
        card = server.app.agent_card
        async with A2AAgent(agent_card=card) as remote:
            response = await remote.run("hello")
    assert response.text == "hi"
    assert remote.name == "greeter"


@pytest.mark.parametrize("streaming", [True, False])
@pytest.mark.parametrize("approved", [True, False])
async def test_input_required_surfaces_as_an_approval_request(
    approved: bool, streaming: bool
) -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}, call_id="c7"),
            lambda messages, options: f"Result: {messages[-1].contents[0].result}",
        ]
    )
    agent = Agent(client=model, name="files", tools=[delete_file])
    async with serve(agent) as server, A2AAgent(url=server.url, streaming=streaming) as remote:
        session = remote.create_session()
        waiting = await remote.run("Delete a.txt", session=session)
        [request] = waiting.user_input_requests
        assert request.function_call is not None
        assert request.function_call.name == "delete_file"
        assert request.function_call.parse_arguments() == {"path": "a.txt"}
        answer = Message("user", [request.to_function_approval_response(approved)])
        done = await remote.run(answer, session=session)
    if approved:
        assert done.text == "Result: deleted a.txt"
    else:
        assert "did not approve" in done.text
    assert not done.user_input_requests


async def test_remote_failure_raises_with_the_reason() -> None:
    agent = Agent(client=ScriptedChatClient([RuntimeError("model down")]), name="broken")
    async with serve(agent) as server, A2AAgent(url=server.url) as remote:
        with pytest.raises(RemoteAgentError, match="failed: The agent failed: RuntimeError"):
            await remote.run("hi")


async def test_unreachable_agent_raises_a_clear_error() -> None:
    remote = A2AAgent(url="http://127.0.0.1:9", timeout=2)
    with pytest.raises(RemoteAgentError, match="cannot connect"):
        await remote.run("hi")
    await remote.aclose()


def test_needs_exactly_one_of_url_and_card() -> None:
    with pytest.raises(A2AConfigError, match="exactly one"):
        A2AAgent()


async def test_empty_input_is_refused_before_sending() -> None:
    agent = Agent(client=ScriptedChatClient(["unused"]), name="idle")
    async with serve(agent) as server, A2AAgent(url=server.url) as remote:
        with pytest.raises(ContentError, match="needs input"):
            await remote.run([])


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("streaming", [True, False])
async def test_abandoned_run_cancels_the_remote_task(binding: str, streaming: bool) -> None:
    async with (
        serve(build()) as server,
        A2AAgent(url=server.url, bindings=[binding], streaming=streaming) as remote,
    ):
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(remote.run("slow work"), 1.0)
        tasks: list[Task] = []
        async with a2a_client(server.url, streaming=False) as client:
            for _ in range(100):
                tasks = list((await client.list_tasks(ListTasksRequest())).tasks)
                if tasks and tasks[0].status.state == TaskState.TASK_STATE_CANCELED:
                    break
                await asyncio.sleep(0.05)
    assert [t.status.state for t in tasks] == [TaskState.TASK_STATE_CANCELED]


async def test_a_refused_follow_up_does_not_stick_to_the_session() -> None:
    agent = Agent(client=ScriptedChatClient(["first", "second"]), name="plain")
    async with serve(agent) as server, A2AAgent(url=server.url) as remote:
        session = remote.create_session()
        await remote.run("hi", session=session)
        state = session.state["agentry.a2a.remote"]
        state["task_id"] = "forgotten-task"
        with pytest.raises(RemoteAgentError, match="refused the request"):
            await remote.run("continue", session=session)
        assert "task_id" not in state
        again = await remote.run("hello again", session=session)
    assert again.text == "second"
