"""Mistakes in setting up an MCP tool or server fail at once, saying what to do."""

from __future__ import annotations

import sys

import pytest

from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import MissingExtraError
from agentry.mcp import AgentMCPServer, MCPConnectionError, MCPStdioTool, MCPWebsocketTool

from .conftest import BASIC, basic_stdio

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    "make",
    [
        lambda: MCPStdioTool("basic", sys.executable, [BASIC]),
        lambda: MCPWebsocketTool("live", "ws://127.0.0.1:1/mcp"),
        lambda: AgentMCPServer(ScriptedChatClient(["hi"]).as_agent(name="greeter")),
        lambda: ScriptedChatClient(["hi"]).as_agent(name="greeter").as_mcp_server(),
    ],
    ids=["stdio tool", "websocket tool", "server", "as_mcp_server"],
)
def test_without_the_mcp_package_building_fails_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, make: object
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if `mcp` were not installed

    with pytest.raises(MissingExtraError, match=r"pip install 'agentry\[mcp\]'") as raised:
        make()  # type: ignore[operator]

    assert "(mcp is missing)" in str(raised.value)
    assert raised.value.extra == "mcp"


def test_a_websocket_tool_without_websockets_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "websockets", None)

    with pytest.raises(MissingExtraError, match=r"MCPWebsocketTool .*\(websockets is missing\)"):
        MCPWebsocketTool("live", "ws://127.0.0.1:1/mcp")


@pytest.mark.parametrize("mode", ["2099-01-01", "2025-06-18", "newest"])
def test_a_protocol_mode_the_sdk_does_not_speak_is_refused_when_built(mode: str) -> None:
    with pytest.raises(ValueError, match=f"protocol_mode must be .* not '{mode}'"):
        basic_stdio(protocol_mode=mode)


async def test_a_client_that_cannot_be_set_up_fails_at_once_not_at_the_connect_timeout() -> None:
    tool = basic_stdio(connect_timeout=3)
    tool.protocol_mode = "2099-01-01"  # changed after the checks of the constructor

    with pytest.raises(MCPConnectionError, match="mode must be") as raised:
        await tool.connect()

    assert "took longer than" not in str(raised.value)


async def test_a_package_lost_after_building_fails_the_connect_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = basic_stdio(connect_timeout=3)
    monkeypatch.setitem(sys.modules, "mcp", None)

    with pytest.raises(MCPConnectionError, match=r"cannot connect .*mcp") as raised:
        await tool.connect()

    assert "took longer than" not in str(raised.value)
