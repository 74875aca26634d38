"""An agent served as an MCP server, tested in process and through `agentry serve mcp`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncGenerator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolExecutionError
from agentry.mcp import (
    AgentMCPServer,
    MCPStdioTool,
    MCPStreamableHTTPTool,
    MCPTaskOptions,
    MCPTool,
)
from mcp import Client

from .conftest import free_port, serving
from .served import SHOUTING_WORKFLOW, build

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}


@asynccontextmanager
async def connected(server: AgentMCPServer) -> AsyncGenerator[Client, None]:
    async with Client(server.server) as client:
        yield client


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def test_the_agent_is_one_tool_that_answers_tasks() -> None:
    async with connected(build().as_mcp_server()) as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("demo", {"task": "add 2 and 40"})

    assert [t.name for t in tools] == ["demo"]
    assert tools[0].description == "Adds numbers, deletes files with approval, counts, echoes."
    assert tools[0].input_schema["required"] == ["task"]
    assert not result.is_error
    assert text_of(result) == "Tool result: 42"


async def test_a_session_id_continues_a_conversation() -> None:
    async with connected(build().as_mcp_server()) as client:
        first = await client.call_tool("demo", {"task": "count", "session_id": "s1"})
        second = await client.call_tool("demo", {"task": "count", "session_id": "s1"})
        other = await client.call_tool("demo", {"task": "count", "session_id": "s2"})
        alone = await client.call_tool("demo", {"task": "count"})

    assert [text_of(r) for r in (first, second, other, alone)] == [
        "seen 1 user messages",
        "seen 2 user messages",
        "seen 1 user messages",
        "seen 1 user messages",
    ]


async def test_expose_tools_offers_the_agents_own_tools() -> None:
    async with connected(build().as_mcp_server(expose_tools=True)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("add", {"a": 1, "b": 2})

    assert names == ["demo", "add", "delete_file"]
    assert text_of(result) == "3"


async def test_failures_are_error_results_that_say_why() -> None:
    async with connected(build().as_mcp_server()) as client:
        needs_approval = await client.call_tool("demo", {"task": "delete notes.txt"})
        empty = await client.call_tool("demo", {"task": " "})

    assert needs_approval.is_error
    assert "needs a person's approval to call delete_file" in text_of(needs_approval)
    assert empty.is_error
    assert "'task' must be a non-empty string" in text_of(empty)


async def test_a_workflow_is_served_as_its_agent() -> None:
    async with connected(AgentMCPServer(SHOUTING_WORKFLOW.as_agent())) as client:
        result = await client.call_tool("shouter", {"task": "hello"})

    assert text_of(result) == "HELLO!"


def test_a_name_clash_with_an_exposed_tool_is_refused() -> None:
    agent = Agent(client=ScriptedChatClient([]), name="add", tools=[build().tools[0]])
    with pytest.raises(ValueError, match="pass another name="):
        agent.as_mcp_server(expose_tools=True)


async def test_agentry_serve_mcp_over_stdio_serves_an_agent_to_another_agent() -> None:
    remote = MCPStdioTool(
        "demo",
        sys.executable,
        ["-m", "agentry.cli", "serve", "mcp", "tests.mcp.served:agent"],
        env={"PYTHONPATH": ENV["PYTHONPATH"]},
        cwd=ROOT,
        request_timeout=30,
    )
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("demo", {"task": "add 20 and 22"}), "The demo says 42."]
    )
    async with remote:
        response = await Agent(client=model, tools=[remote]).run("Ask demo to add 20 and 22.")

    assert response.text == "The demo says 42."
    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "Tool result: 42"


@pytest.fixture
def served_over_http() -> Iterator[str]:
    port = free_port()
    command = [
        *(sys.executable, "-m", "agentry.cli", "serve", "mcp"),
        *("tests.mcp.served:SHOUTING_WORKFLOW", "--transport", "http", "--port", str(port)),
    ]
    with serving(command, port, cwd=ROOT, env=ENV) as url:
        yield url


async def test_agentry_serve_mcp_over_http_serves_a_workflow(served_over_http: str) -> None:
    async with MCPStreamableHTTPTool("shouter", served_over_http, request_timeout=30) as remote:
        (tool,) = remote.functions
        assert await tool.invoke(arguments={"task": "quiet please"}) == "QUIET PLEASE!"


def test_a_bad_target_exits_with_a_clear_message() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "agentry.cli", "serve", "mcp", "json:nothing"],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert completed.returncode == 1
    assert completed.stderr.startswith("error: 'json' has no 'nothing'")


class InProcessMCPTool(MCPTool):
    """An `MCPTool` connected to a server object in this process."""

    def __init__(self, served: AgentMCPServer, **options: Any) -> None:
        super().__init__(served.name, **options)
        self.served = served

    def _server(self) -> Any:
        return self.served.server


async def test_with_tasks_a_call_of_the_agent_runs_as_a_task_the_client_follows() -> None:
    served = build().as_mcp_server(tasks=True)
    async with InProcessMCPTool(served) as remote:
        result = await remote.call_tool("demo", {"task": "add 2 and 40"})

    assert text_of(result) == "Tool result: 42"
    assert served.tasks is not None
    assert (len(served.tasks), served.tasks.running) == (1, 0)


async def test_a_client_that_gives_up_on_a_served_task_stops_the_agent_run() -> None:
    served = build().as_mcp_server(tasks=True)
    options = MCPTaskOptions(max_task_wait=timedelta(seconds=0.5))
    async with InProcessMCPTool(served, task_options=options) as remote:
        with pytest.raises(ToolExecutionError, match="did not finish within max_task_wait"):
            await remote.call_tool("demo", {"task": "slow"})
    # Leaving the block waited for the cancel, sent in the background after the deadline.
    await asyncio.sleep(0)  # the cancelled run finishes unwinding

    assert served.tasks is not None
    assert (len(served.tasks), served.tasks.running) == (1, 0)


async def test_clients_without_the_tasks_extension_get_the_answer_directly() -> None:
    served = build().as_mcp_server(tasks=True)
    async with connected(served) as client:  # the SDK's client offers no extensions
        result = await client.call_tool("demo", {"task": "add 1 and 2"})

    assert text_of(result) == "Tool result: 3"
    assert served.tasks is not None
    assert len(served.tasks) == 0


async def test_clients_of_the_2025_protocol_get_the_answer_directly() -> None:
    from mcp.client.extension import advertise

    served = build().as_mcp_server(tasks=True)
    # Even one that declares the extension: a 2025 wire has no place for a task answer.
    declaring = advertise("io.modelcontextprotocol/tasks")
    async with Client(served.server, mode="legacy", extensions=[declaring]) as client:
        assert client.protocol_version == "2025-11-25"
        result = await client.call_tool("demo", {"task": "add 1 and 2"})

    assert text_of(result) == "Tool result: 3"
    assert served.tasks is not None
    assert len(served.tasks) == 0


async def test_agentry_serve_mcp_tasks_serves_the_agent_as_tasks() -> None:
    remote = MCPStdioTool(
        "demo",
        sys.executable,
        ["-m", "agentry.cli", "serve", "mcp", "tests.mcp.served:agent", "--tasks"],
        env={"PYTHONPATH": ENV["PYTHONPATH"]},
        cwd=ROOT,
        request_timeout=30,
        task_options=MCPTaskOptions(max_task_wait=timedelta(seconds=30)),
    )
    async with remote:
        result = await remote.call_tool("demo", {"task": "add 20 and 22"})

    assert text_of(result) == "Tool result: 42"
