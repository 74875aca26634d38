"""The A2A agent-execution contract, as a user hosting an agent by hand sees it: an
agentry agent behind the SDK's own request handler and routes, driven over 127.0.0.1 by
the SDK's client."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState
from starlette.applications import Starlette

from agentry import Agent, Message, tool
from agentry.a2a import AgentryAgentExecutor, build_agent_card
from agentry.clients.scripted import ScriptedChatClient

from ..a2a.conftest import a2a_client
from ..a2a.helpers import artifact_text, send_blocking, user_message

pytestmark = pytest.mark.timeout(30)


@asynccontextmanager
async def hosted_by_hand(agent: Agent) -> AsyncGenerator[str, None]:
    """Serve `agent` with the SDK's handler and routes on 127.0.0.1; yields the URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    card = build_agent_card(agent, url=url)
    handler = DefaultRequestHandler(
        agent_executor=AgentryAgentExecutor(agent),
        task_store=InMemoryTaskStore(),
        agent_card=card,
    )
    app = Starlette(
        routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/")]
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if serving.done():
                serving.result()
            await asyncio.sleep(0.01)
        yield url
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)
        await handler.aclose()
        sock.close()


@tool(approval_mode="always_require")
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def result_of_last_tool(messages: list[Message], options: Any) -> str:
    return f"Done: {messages[-1].contents[0].result}"


async def test_a_run_becomes_a_task_that_completes_with_the_answer() -> None:
    agent = Agent(client=ScriptedChatClient(["Hello from agentry."]), name="greeter")
    async with hosted_by_hand(agent) as url, a2a_client(url, streaming=False) as client:
        task = await send_blocking(client, user_message("Hi"))

    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(task) == "Hello from agentry."


async def test_input_required_interrupts_and_the_answer_resumes_the_same_task() -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}), result_of_last_tool]
    )
    agent = Agent(client=model, name="files", tools=[delete_file])
    async with hosted_by_hand(agent) as url, a2a_client(url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        done = await send_blocking(client, user_message("yes", task_id=waiting.id))

    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert (done.id, done.status.state) == (waiting.id, TaskState.TASK_STATE_COMPLETED)
    assert artifact_text(done) == "Done: deleted a.txt"


async def test_cancel_stops_the_run_and_the_task_is_canceled() -> None:
    started = asyncio.Event()

    async def slow(messages: list[Message], options: Any) -> str:
        started.set()
        await asyncio.sleep(30)
        return "too late"

    agent = Agent(client=ScriptedChatClient([slow]), name="slow")
    async with hosted_by_hand(agent) as url, a2a_client(url) as client:
        stream = client.send_message(user_message("Take your time."))
        first = await anext(stream)
        await asyncio.wait_for(started.wait(), 10)
        canceled = await client.cancel_task(CancelTaskRequest(id=first.task.id))
        await stream.aclose()  # type: ignore[attr-defined]
        fetched = await client.get_task(GetTaskRequest(id=first.task.id))

    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    assert fetched.status.state == TaskState.TASK_STATE_CANCELED


async def test_an_agent_failure_ends_the_task_failed_with_the_reason() -> None:
    agent = Agent(client=ScriptedChatClient([RuntimeError("model is down")]), name="broken")
    async with hosted_by_hand(agent) as url, a2a_client(url, streaming=False) as client:
        task = await send_blocking(client, user_message("Hi"))

    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert "model is down" in " ".join(p.text for p in task.status.message.parts)
