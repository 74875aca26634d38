"""Long-running tasks of the tasks extension (`io.modelcontextprotocol/tasks`, 2026
protocol), against `servers/tasks_extension.py` started as a process."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolExecutionError
from agentry.mcp import (
    MCPConnectionError,
    MCPStdioTool,
    MCPStreamableHTTPTool,
    MCPTaskOptions,
    MCPTool,
)

from .conftest import SERVERS, free_port, serving
from .dropping_proxy import DroppingProxy

pytestmark = pytest.mark.timeout(60)

EXTENSION = str(SERVERS / "tasks_extension.py")


def extension_stdio(**options: Any) -> MCPStdioTool:
    options.setdefault("request_timeout", 10)
    return MCPStdioTool("tasks", sys.executable, [EXTENSION], **options)


async def server_log(tool: MCPTool) -> list[str]:
    result = await tool.call_tool("tasks_log", {})
    return result.content[0].text.splitlines()  # type: ignore[union-attr]


def text(result: Any) -> str:
    return result.content[0].text


@pytest.fixture(scope="module")
def extension_http_url() -> Iterator[str]:
    port = free_port()
    with serving([sys.executable, EXTENSION, "http", str(port)], port) as url:
        yield url


async def test_the_server_makes_a_call_a_task_and_the_client_follows_it() -> None:
    async with extension_stdio() as tool:
        assert tool.session.protocol_version == "2026-07-28"
        result = await tool.call_tool("research", {"topic": "otters", "seconds": 0.3})
        quick = await tool.call_tool("quick", {"text": "now"})
        log = await server_log(tool)

    assert text(result) == "report on otters"
    assert text(quick) == "NOW"  # the same client takes plain answers too
    assert log[0] == "created task-1 for research"
    assert log.count("get task-1") >= 2
    assert not any(line.startswith("cancel") for line in log)


async def test_a_task_completed_at_creation_is_fetched_with_one_poll() -> None:
    async with extension_stdio() as tool:
        result = await tool.call_tool("instant", {})
        log = await server_log(tool)

    assert text(result) == "done at once"
    assert log == ["created task-1 for instant", "get task-1"]


async def test_over_streamable_http_with_the_task_id_in_the_routing_header(
    extension_http_url: str,
) -> None:
    async with MCPStreamableHTTPTool("tasks", extension_http_url, request_timeout=10) as tool:
        result = await tool.call_tool("research", {"topic": "badgers"})
        log = await server_log(tool)

    assert text(result) == "report on badgers"
    created = next(line for line in log if line.endswith("for research"))
    task_id = created.split()[1]
    assert f"routed {task_id}" in log  # tasks/get named the task in Mcp-Name
    assert not any(line.startswith("bad Mcp-Name") for line in log)


async def test_a_task_question_is_answered_by_the_sampling_client_through_tasks_update() -> None:
    model = ScriptedChatClient(["Ada"])
    async with extension_stdio(sampling_client=model) as tool:
        result = await tool.call_tool("interview", {})
        log = await server_log(tool)

    assert text(result) == "the model is called Ada"
    (call,) = model.calls
    assert call.messages[-1].text == "Your name?"
    assert "update task-1 ['question-task-1']" in log


async def test_a_question_the_client_cannot_answer_abandons_and_cancels_the_task() -> None:
    async with extension_stdio() as tool:  # no sampling client: sampling is denied
        with pytest.raises(ToolExecutionError, match="asked for sampling/createMessage"):
            await tool.call_tool("interview", {})
        log = await server_log(tool)

    assert "cancel task-1" in log
    assert not any(line.startswith("update") for line in log)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("doomed", "failed on server 'tasks' .*the disk is full"),
        ("abandoned", "cancelled task 'task-1' .*an operator stopped it"),
    ],
)
async def test_a_task_that_ended_badly_fails_without_a_cancel(name: str, message: str) -> None:
    async with extension_stdio() as tool:
        with pytest.raises(ToolExecutionError, match=message):
            await tool.call_tool(name, {})
        log = await server_log(tool)

    assert "cancel task-1" not in log


async def test_a_nonsense_task_state_abandons_and_cancels_the_task() -> None:
    async with extension_stdio() as tool:
        with pytest.raises(ToolExecutionError, match="answered tasks/get with not a task"):
            await tool.call_tool("garbled", {})
        log = await server_log(tool)

    assert "cancel task-1" in log


async def test_a_misshapen_task_answer_fails_clearly_without_calling_again() -> None:
    async with extension_stdio() as tool:
        with pytest.raises(ToolExecutionError, match="answered the tool 'misshapen' with an"):
            await tool.call_tool("misshapen", {})
        log = await server_log(tool)

    assert log == ["created a misshapen task"]


async def test_max_task_wait_cancels_the_task_on_the_server() -> None:
    options = MCPTaskOptions(max_task_wait=timedelta(seconds=0.4))
    async with extension_stdio(task_options=options) as tool:
        with pytest.raises(ToolExecutionError, match="max_task_wait"):
            await tool.call_tool("endless", {})
        # The call failed at its deadline; the cancel follows in the background.
        log: list[str] = []
        for _ in range(200):
            log = await server_log(tool)
            if "cancel task-1" in log:
                break
            await asyncio.sleep(0.05)

    assert "cancel task-1" in log


async def test_cancelling_an_agent_run_cancels_the_task() -> None:
    model = ScriptedChatClient([ScriptedChatClient.function_call("endless", {}), "Never."])
    async with extension_stdio() as tool:
        run = asyncio.ensure_future(Agent(client=model, tools=[tool]).run("Go."))
        while "get task-1" not in await server_log(tool):
            await asyncio.sleep(0.05)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        log = await server_log(tool)

    assert "created task-1 for endless" in log
    assert "cancel task-1" in log


@pytest.fixture
def extension_http_port() -> Iterator[int]:
    port = free_port()
    with serving([sys.executable, EXTENSION, "http", str(port)], port):
        yield port


async def test_an_http_connection_dropped_while_polling_is_remade_for_the_same_task(
    extension_http_port: int,
) -> None:
    proxy = DroppingProxy(extension_http_port, b'"tasks/get"', outbound=True)
    async with (
        proxy.running() as url,
        MCPStreamableHTTPTool("tasks", url, request_timeout=10) as tool,
    ):
        result = await tool.call_tool("research", {"topic": "otters", "seconds": 0.3})
        log = await server_log(tool)

    assert proxy.dropped == 1
    assert text(result) == "report on otters"
    assert [line for line in log if line.startswith("created")] == ["created task-1 for research"]


async def test_an_http_connection_dropped_before_the_task_id_arrives_is_not_resubmitted(
    extension_http_port: int,
) -> None:
    proxy = DroppingProxy(extension_http_port, b'"resultType":"task"', outbound=False)
    async with (
        proxy.running() as url,
        MCPStreamableHTTPTool("tasks", url, request_timeout=10) as tool,
    ):
        with pytest.raises(MCPConnectionError, match="broke during the tool 'research'"):
            await tool.call_tool("research", {"topic": "otters", "seconds": 0.3})
        log = await server_log(tool)  # the next use reconnects

    assert proxy.dropped == 1
    assert [line for line in log if line.startswith("created")] == ["created task-1 for research"]
