"""What is not a tool, and tools of the same name, are refused when they are given."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent, FunctionTool, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.mcp import MCPStdioTool

BASIC_MCP_SERVER = str(Path(__file__).parents[1] / "mcp" / "servers" / "basic.py")


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def _agent(**options: Any) -> Agent:
    return Agent(client=ScriptedChatClient(["ok"]), **options)


@pytest.mark.parametrize(
    ("item", "named"),
    [("x", "'x' (str) is not a tool"), (42, "42 (int) is not a tool"), (None, "None")],
)
def test_an_item_that_is_not_a_tool_is_refused_at_construction(item: Any, named: str) -> None:
    with pytest.raises(TypeError, match="a tool is a function") as caught:
        _agent(tools=[get_weather, item])
    assert named in str(caught.value)


def test_a_class_or_an_agent_is_refused_with_what_to_pass_instead() -> None:
    with pytest.raises(TypeError, match="Agent is a class, not a tool"):
        _agent(tools=[Agent])
    helper = _agent(name="helper")
    with pytest.raises(TypeError, match=r"is an agent, not a tool: pass its as_tool\(\)"):
        _agent(tools=[helper])
    assert _agent(tools=[helper.as_tool()]).tools[0].name == "helper"


def test_two_tools_of_one_name_are_refused_at_construction() -> None:
    def get_weather(city: str) -> str:
        """Another weather tool."""
        return city

    with pytest.raises(ValueError, match="tool names must be unique") as caught:
        _agent(tools=[globals()["get_weather"], get_weather])
    message = str(caught.value)
    assert "both named 'get_weather'" in message
    assert "test_two_tools_of_one_name_are_refused_at_construction.<locals>.get_weather" in message


def test_the_same_tool_twice_is_refused() -> None:
    with pytest.raises(ValueError, match=r"tool 'get_weather' .* is given twice"):
        _agent(tools=[get_weather, get_weather])


async def test_run_tools_are_checked_too_and_against_the_agents_own() -> None:
    agent = _agent(tools=[get_weather])
    with pytest.raises(TypeError, match=r"'x' \(str\) is not a tool"):
        await agent.run("hi", tools=["x"])
    with pytest.raises(ValueError, match=r"'get_weather' .* is given twice"):
        await agent.run("hi", tools=[get_weather])
    renamed = FunctionTool(func=get_weather.func, name="get_forecast")
    assert (await agent.run("hi", tools=[renamed])).text == "ok"


def test_what_may_stand_in_tools() -> None:
    def plain(city: str) -> str:
        """A plain function."""
        return city

    hosted = {"type": "web_search"}
    agent = _agent(tools=[plain, get_weather, hosted])
    assert isinstance(agent.tools[0], FunctionTool)
    assert agent.tools[1:] == [get_weather, hosted]


async def test_tools_of_a_tool_source_that_clash_fail_the_run_with_both_named() -> None:
    def add(a: int, b: int) -> int:
        """A local add."""
        return a + b

    server = MCPStdioTool("basic", sys.executable, [BASIC_MCP_SERVER], request_timeout=20)
    client = ScriptedChatClient(["unused"])
    async with server:
        agent = Agent(client=client, tools=[add, server])
        with pytest.raises(ValueError, match="tool names must be unique") as caught:
            await agent.run("1 + 2?")
    assert "tool 'add' of MCP server 'basic'" in str(caught.value)
    assert not client.calls  # the model was never asked
