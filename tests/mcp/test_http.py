"""MCPStreamableHTTPTool against a real server on 127.0.0.1."""

from __future__ import annotations

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.mcp import MCPConnectionError, MCPStreamableHTTPTool

from .conftest import basic_http, free_port

pytestmark = pytest.mark.timeout(60)


async def test_an_agent_calls_a_tool_over_streamable_http(basic_http_url: str) -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("add", {"a": 20, "b": 22}), "It is 42."]
    )
    async with basic_http(basic_http_url) as server:
        response = await Agent(client=model, tools=[server]).run("20 + 22?")
        messages = await server.get_prompt("review", {"code": "x"})

    assert response.text == "It is 42."
    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "42"
    assert messages[0].text == "Please review this code:\nx"


async def test_headers_reach_the_server(basic_http_url: str) -> None:
    async with basic_http(basic_http_url, headers={"X-Tenant": "t1"}) as server:
        tenant = next(f for f in server.functions if f.name == "tenant")
        assert await tenant.invoke(arguments={}) == "t1"


async def test_nothing_listening_is_a_clear_error() -> None:
    server = MCPStreamableHTTPTool(
        "nowhere", f"http://127.0.0.1:{free_port()}/mcp", connect_timeout=10
    )
    with pytest.raises(MCPConnectionError, match="cannot connect to MCP server 'nowhere'"):
        await server.connect()
