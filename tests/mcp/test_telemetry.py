"""MCP calls are client spans under the agent's tool spans; content only when enabled."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.mcp import MCPStdioTool
from tests.observability.conftest import Telemetry, capture_telemetry

from .conftest import SERVERS, basic_stdio

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    yield from capture_telemetry(sensitive=False)


@pytest.fixture
def sensitive_telemetry() -> Iterator[Telemetry]:
    yield from capture_telemetry(sensitive=True)


async def run_addition() -> None:
    model = ScriptedChatClient([ScriptedChatClient.function_call("add", {"a": 2, "b": 3}), "5."])
    async with basic_stdio() as server:
        await Agent(client=model, tools=[server], name="calc").run("2 + 3?")


async def test_a_tool_call_is_a_client_span_under_the_tool_execution(
    telemetry: Telemetry,
) -> None:
    from opentelemetry.trace import SpanKind

    await run_addition()

    call = telemetry.one("tools/call add")
    execution = telemetry.one("execute_tool add")
    assert call.kind == SpanKind.CLIENT
    assert call.parent is not None
    assert execution.context is not None
    assert call.parent.span_id == execution.context.span_id
    assert call.attributes is not None
    assert call.attributes["mcp.method.name"] == "tools/call"
    assert call.attributes["gen_ai.tool.name"] == "add"
    assert "gen_ai.tool.call.arguments" not in call.attributes


async def test_a_task_call_span_names_the_task_and_its_statuses(telemetry: Telemetry) -> None:
    async with MCPStdioTool("tasks", sys.executable, [str(SERVERS / "tasks_extension.py")]) as tool:
        await tool.call_tool("research", {"topic": "otters"})

    call = telemetry.one("tools/call research")
    assert call.attributes is not None
    assert call.attributes["mcp.task.id"] == "task-1"
    statuses = [event.attributes["mcp.task.status"] for event in call.events if event.attributes]
    assert statuses == ["working", "completed"]


async def test_arguments_are_recorded_only_with_sensitive_data(
    sensitive_telemetry: Telemetry,
) -> None:
    await run_addition()

    attributes = sensitive_telemetry.one("tools/call add").attributes
    assert attributes is not None
    assert attributes["gen_ai.tool.call.arguments"] == '{"a": 2, "b": 3}'


async def test_a_served_call_is_a_server_span_around_the_agents_run(
    telemetry: Telemetry,
) -> None:
    from opentelemetry.trace import SpanKind

    from mcp import Client

    from .served import build

    async with Client(build().as_mcp_server().server) as client:
        await client.call_tool("demo", {"task": "add 1 and 2"})

    served = telemetry.one("tools/call demo")
    run = telemetry.one("invoke_agent demo")
    assert served.kind == SpanKind.SERVER
    assert run.parent is not None
    assert served.context is not None
    assert run.parent.span_id == served.context.span_id
