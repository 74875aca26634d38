"""Servers nobody here wrote: `mcp-server-time` (PyPI) and `server-everything` (npm)."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from typing import Any

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.mcp import MCPStdioTool, MCPStreamableHTTPTool, MCPTaskOptions
from agentry.tools import tool_result_to_text

from .conftest import everything_command

pytestmark = pytest.mark.timeout(60)


def quiet() -> Any:
    return open(os.devnull, "w")


def function_results(model: ScriptedChatClient) -> list[Any]:
    return [
        c.result
        for call in model.calls
        for m in call.messages
        for c in m.contents
        if c.type == "function_result"
    ]


async def test_an_agent_asks_mcp_server_time_for_the_time_in_a_zone() -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_current_time", {"timezone": "Asia/Tokyo"}),
            "It is evening in Tokyo.",
        ]
    )
    async with MCPStdioTool("time", sys.executable, ["-m", "mcp_server_time"]) as time_server:
        assert {f.name for f in time_server.functions} == {"get_current_time", "convert_time"}
        response = await Agent(client=model, tools=[time_server]).run("Time in Tokyo?")

    assert response.text == "It is evening in Tokyo."
    (result,) = function_results(model)
    answer = json.loads(result)
    assert answer["timezone"] == "Asia/Tokyo"
    assert answer["datetime"].endswith("+09:00")


async def test_server_everything_over_stdio() -> None:
    command, *args = everything_command("stdio")
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [
                    ("echo", {"message": "hello there"}, None),
                    ("get-sum", {"a": 2, "b": 40}, None),
                    ("get-tiny-image", {}, None),
                ]
            ),
            "Done.",
        ]
    )
    async with MCPStdioTool("everything", command, args, errlog=quiet()) as everything:
        names = {f.name for f in everything.functions}
        response = await Agent(client=model, tools=[everything]).run("Try the tools.")
        prompts = await everything.list_prompts()
        simple = await everything.get_prompt("simple-prompt")
        resources = await everything.list_resources()
        document = await everything.read_resource(resources[0])

    assert {"echo", "get-sum", "get-tiny-image", "simulate-research-query"} <= names
    assert response.text == "Done."
    echo, total, image = function_results(model)
    assert echo == "Echo: hello there"
    assert "42" in total
    # the image reaches the model as image content; text-only models read it described
    assert [(c.type, c.media_type) for c in image if c.type == "data"] == [("data", "image/png")]
    assert "[image image/png," in tool_result_to_text(image)
    assert "simple-prompt" in prompts
    assert simple[0].role == "user"
    assert simple[0].text
    assert document.strip()


async def test_server_everything_advertises_its_task_tool() -> None:
    command, *args = everything_command("stdio")
    async with MCPStdioTool("everything", command, args, errlog=quiet()) as everything:
        research = everything.remote_tools["simulate-research-query"]

    assert research.execution is not None
    assert research.execution.task_support == "required"


async def test_an_agent_runs_server_everythings_task_tool_over_stdio() -> None:
    command, *args = everything_command("stdio")
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("simulate-research-query", {"topic": "otters"}),
            "Research done.",
        ]
    )
    async with MCPStdioTool("everything", command, args, errlog=quiet()) as everything:
        response = await Agent(client=model, tools=[everything]).run("Research otters.")

    assert response.text == "Research done."
    (report,) = function_results(model)
    assert "# Research Report: otters" in report
    assert "Stage 4: Generating report" in report


async def test_server_everythings_task_tool_over_streamable_http(everything_http_url: str) -> None:
    async with MCPStreamableHTTPTool(
        "everything",
        everything_http_url,
        request_timeout=30,
        task_options=MCPTaskOptions(default_ttl=timedelta(minutes=1)),
    ) as everything:
        result = await everything.call_tool("simulate-research-query", {"topic": "beavers"})

    assert "# Research Report: beavers" in result.content[0].text  # type: ignore[union-attr]


async def test_server_everything_over_streamable_http(everything_http_url: str) -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("get-sum", {"a": 19, "b": 23}), "It is 42."]
    )
    async with MCPStreamableHTTPTool(
        "everything", everything_http_url, request_timeout=30
    ) as everything:
        response = await Agent(client=model, tools=[everything]).run("19 + 23?")

    assert response.text == "It is 42."
    (result,) = function_results(model)
    assert "42" in result
