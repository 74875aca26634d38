"""MCPWebsocketTool against a real WebSocket MCP server on 127.0.0.1."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.mcp import MCPConnectionError, MCPWebsocketTool

from .conftest import SERVERS, free_port, serving

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def websocket_url() -> Iterator[str]:
    port = free_port()
    with serving([sys.executable, str(SERVERS / "websocket.py"), str(port)], port) as url:
        yield url.replace("http://", "ws://", 1)


async def test_an_agent_calls_a_tool_over_a_websocket(websocket_url: str) -> None:
    model = ScriptedChatClient([ScriptedChatClient.function_call("add", {"a": 1, "b": 41}), "42."])
    async with MCPWebsocketTool("ws", websocket_url, request_timeout=20) as server:
        response = await Agent(client=model, tools=[server]).run("1 + 41?")
        assert await server.read_resource("notes://today") == "Buy bread."

    assert response.text == "42."
    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "42"


async def test_nothing_listening_is_a_clear_error() -> None:
    server = MCPWebsocketTool("nowhere", f"ws://127.0.0.1:{free_port()}/mcp", connect_timeout=10)
    with pytest.raises(MCPConnectionError, match="cannot connect to MCP server 'nowhere'"):
        await server.connect()
