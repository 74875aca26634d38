import pytest
from opentelemetry.trace import SpanKind, StatusCode

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import traced_call
from agentry.observability._remote_spans import A2A_METHOD, A2A_TASK_ID, MCP_METHOD_NAME
from tests.observability.conftest import Telemetry


async def test_client_call_span_wraps_the_request(telemetry: Telemetry) -> None:
    async def call_tool() -> str:
        return "sunny"

    result = await traced_call(
        "tools/call get_weather",
        {MCP_METHOD_NAME: "tools/call", "gen_ai.tool.name": "get_weather"},
        call_tool(),
    )
    assert result == "sunny"
    span = telemetry.one("tools/call get_weather")
    assert span.kind == SpanKind.CLIENT
    assert span.attributes is not None
    assert span.attributes[MCP_METHOD_NAME] == "tools/call"


async def test_server_span_is_the_parent_of_the_work_it_serves(telemetry: Telemetry) -> None:
    agent = Agent(client=ScriptedChatClient(["Hi"]), name="hosted")
    await traced_call(
        "message/send hosted",
        {A2A_METHOD: "message/send"},
        agent.run("Hello"),
        side="server",
        result_attributes={A2A_TASK_ID: "task-1"},
    )
    server = telemetry.one("message/send hosted")
    assert server.kind == SpanKind.SERVER
    assert (server.attributes or {})[A2A_TASK_ID] == "task-1"
    run = telemetry.one("invoke_agent hosted")
    assert server.context is not None
    assert run.parent is not None
    assert run.parent.span_id == server.context.span_id


async def test_failed_call_marks_the_span(telemetry: Telemetry) -> None:
    async def unreachable() -> None:
        raise ConnectionRefusedError("no server")

    with pytest.raises(ConnectionRefusedError):
        await traced_call("tools/list", {MCP_METHOD_NAME: "tools/list"}, unreachable())
    span = telemetry.one("tools/list")
    assert span.status.status_code == StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "ConnectionRefusedError"
