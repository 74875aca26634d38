"""The spec's MCP section against real MCP servers started as processes."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agentry import (
    Agent,
    MCPStdioTool,
    MCPStreamableHTTPTool,
    MCPTaskOptions,
    MCPTool,
    MCPWebsocketTool,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolExecutionException

from ..mcp.conftest import BASIC, SERVERS, free_port, serving

pytestmark = pytest.mark.timeout(60)

TASK_SERVER = str(SERVERS / "tasks_legacy.py")


def basic_server(**options: Any) -> MCPStdioTool:
    return MCPStdioTool("basic", sys.executable, [BASIC], request_timeout=20, **options)


def echo_call(**arguments: Any) -> ScriptedChatClient:
    """A model that calls `echo_arguments` once, then answers with what the server saw."""
    return ScriptedChatClient(
        [
            ScriptedChatClient.function_call("echo_arguments", arguments),
            lambda messages, options: str(messages[-1].contents[0].result),
        ]
    )


async def seen_by_server(tool: MCPTool, model: ScriptedChatClient, **run: Any) -> dict[str, Any]:
    agent = Agent(client=model, tools=[tool])
    try:
        response = await agent.run("Echo, please.", **run)
    finally:
        await tool.close()
    return json.loads(response.text)


async def test_an_agent_calls_a_tool_of_a_stdio_server() -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("add", {"a": 40, "b": 2}), "It is 42."]
    )
    async with basic_server() as server:
        assert isinstance(server, MCPTool)
        assert "add" in [function.name for function in server.functions]
        agent = Agent(client=model, tools=[server])
        response = await agent.run("What is 40 + 2?")

    assert response.text == "It is 42."
    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "42"


@pytest.mark.parametrize("transport", ["http", "websocket"])
async def test_the_other_transports_offer_the_same_tools(transport: str) -> None:
    port = free_port()
    if transport == "http":
        command = [sys.executable, BASIC, "http", str(port)]
    else:
        command = [sys.executable, str(SERVERS / "websocket.py"), str(port)]
    model = ScriptedChatClient([ScriptedChatClient.function_call("add", {"a": 1, "b": 41}), "42."])
    with serving(command, port) as url:
        server: MCPTool = (
            MCPStreamableHTTPTool("remote", url, request_timeout=20)
            if transport == "http"
            else MCPWebsocketTool("remote", url.replace("http://", "ws://"), request_timeout=20)
        )
        async with server:
            response = await Agent(client=model, tools=[server]).run("1 + 41?")

    assert response.text == "42."
    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "42"


async def test_only_declared_arguments_reach_the_server() -> None:
    model = echo_call(text="hi", mood="happy", options={"x": 1}, session="s1")
    seen = await seen_by_server(basic_server(), model)

    # `mood` is not declared; `options` and `session` are declared but are framework names.
    assert seen == {"text": "hi", "context": "", "options": None, "session": ""}


async def test_additional_names_as_a_sequence_apply_to_every_tool() -> None:
    model = echo_call(text="hi", options={"x": 1}, session="s1")
    seen = await seen_by_server(basic_server(additional_tool_argument_names=["options"]), model)

    assert (seen["options"], seen["session"]) == ({"x": 1}, "")


async def test_additional_names_as_a_mapping_by_tool_with_global_extras() -> None:
    extras = {"*": ["session"], "echo_arguments": ["options"], "add": ["context"]}
    model = echo_call(text="hi", options={"x": 1}, session="s1")
    seen = await seen_by_server(basic_server(additional_tool_argument_names=extras), model)

    assert (seen["options"], seen["session"]) == ({"x": 1}, "s1")


async def test_function_invocation_kwargs_supply_opted_in_values_and_the_model_wins() -> None:
    model = echo_call(text="hi", session="from the model")
    seen = await seen_by_server(
        basic_server(additional_tool_argument_names=["options", "session"]),
        model,
        function_invocation_kwargs={"options": {"tenant": "t1"}, "session": "from the user"},
    )

    assert seen["options"] == {"tenant": "t1"}
    assert seen["session"] == "from the model"


async def test_the_allowlist_applies_to_call_tool_too() -> None:
    async with basic_server() as server:
        result = await server.call_tool(
            "echo_arguments", {"text": "hi", "options": {"x": 1}, "session": "s1"}
        )

    seen = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert (seen["options"], seen["session"]) == (None, "")


async def test_a_bare_string_of_additional_names_is_one_name() -> None:
    model = echo_call(text="hi", session="s1")
    seen = await seen_by_server(
        basic_server(additional_tool_argument_names={"echo_arguments": "session"}), model
    )

    assert seen["session"] == "s1"


class TaskServer:
    """`tasks_legacy.py` in one scenario, and what it recorded."""

    def __init__(self, state: Path, scenario: str) -> None:
        self.state = state
        self.scenario = scenario

    def tool(self, **options: Any) -> MCPStdioTool:
        return MCPStdioTool(
            "research",
            sys.executable,
            [TASK_SERVER, str(self.state), self.scenario],
            request_timeout=5,
            **options,
        )

    @property
    def events(self) -> list[str]:
        return list(json.loads(self.state.read_text())["events"])


def test_task_options_are_frozen_and_replaced_whole() -> None:
    options = MCPTaskOptions(default_ttl=timedelta(minutes=5))
    research = MCPStdioTool("research", sys.executable, ["server.py"], task_options=options)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_task_wait = timedelta(seconds=1)  # type: ignore[misc]

    research.task_options = MCPTaskOptions(max_task_wait=timedelta(minutes=10))

    assert research.task_options.max_task_wait == timedelta(minutes=10)
    assert research.task_options.default_ttl is None
    assert research.task_options.cancel_remote_task_on_local_cancellation is True


async def test_a_task_required_tool_runs_as_a_task_through_call_tool(tmp_path: Path) -> None:
    server = TaskServer(tmp_path / "state.json", "normal")
    options = MCPTaskOptions(default_ttl=timedelta(seconds=90))
    async with server.tool(task_options=options) as research:
        result = await research.call_tool("report", {"topic": "otters"})

    assert result.content[0].text == "report on otters"  # type: ignore[union-attr]
    assert server.events[0] == "submit ttl=90000"
    assert "get task-1" in server.events
    assert server.events[-1] == "result task-1"


async def test_an_agent_waits_for_a_task_tool_like_any_other(tmp_path: Path) -> None:
    server = TaskServer(tmp_path / "state.json", "normal")
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("report", {"topic": "tides"}),
            lambda messages, options: f"Done: {messages[-1].contents[0].result}",
        ]
    )
    async with server.tool() as research:
        response = await Agent(client=model, tools=[research]).run("Research tides.")

    assert response.text == "Done: report on tides"


async def test_max_task_wait_gives_up_and_cancels_the_remote_task(tmp_path: Path) -> None:
    server = TaskServer(tmp_path / "state.json", "endless")
    options = MCPTaskOptions(max_task_wait=timedelta(seconds=1))
    async with server.tool(task_options=options) as research:
        with pytest.raises(ToolExecutionException):
            await research.call_tool("report", {"topic": "forever"})

    assert any(event.startswith("cancel task-1") for event in server.events)
