"""A served agent's images and its tools' images reach the MCP client as image blocks,
and a client that asks for progress hears each step of the run."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from agentry import Agent, ChatResponse, Content, Message, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.mcp import AgentMCPServer, MCPTool
from mcp import Client

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def painter() -> AgentMCPServer:
    """An agent that answers with a picture, and has a tool that returns one."""

    @tool
    def sketch(subject: str) -> list[Content]:
        """Sketch a subject."""
        return [Content.from_text(f"A sketch of {subject}."), Content.from_data(PIXEL, "image/png")]

    reply = ChatResponse(
        messages=[
            Message(
                "assistant",
                [Content.from_text("Here it is."), Content.from_data(PIXEL, "image/png")],
            )
        ]
    )
    agent = Agent(client=ScriptedChatClient([reply] * 10), name="painter", tools=[sketch])
    return agent.as_mcp_server(expose_tools=True)


class InProcessMCPTool(MCPTool):
    def __init__(self, served: AgentMCPServer) -> None:
        super().__init__(served.name)
        self.served = served

    def _server(self) -> Any:
        return self.served.server


async def test_the_agents_image_is_an_image_block() -> None:
    async with Client(painter().server) as client:
        result = await client.call_tool("painter", {"task": "Paint a cat."})

    text, image = result.content
    assert (text.type, text.text) == ("text", "Here it is.")  # type: ignore[union-attr]
    assert (image.type, image.mime_type) == ("image", "image/png")  # type: ignore[union-attr]
    assert base64.b64decode(image.data) == PIXEL  # type: ignore[union-attr]


async def test_an_exposed_tools_image_is_an_image_block() -> None:
    async with Client(painter().server) as client:
        result = await client.call_tool("sketch", {"subject": "a cat"})

    text, image = result.content
    assert text.text == "A sketch of a cat."  # type: ignore[union-attr]
    assert (image.type, image.mime_type) == ("image", "image/png")  # type: ignore[union-attr]


async def test_an_agentry_client_of_a_served_agent_gets_the_image_as_content() -> None:
    async with InProcessMCPTool(painter()) as remote:
        (agent_tool,) = [f for f in remote.functions if f.name == "painter"]
        value = await agent_tool.invoke(arguments={"task": "Paint a cat."})

    text, image = value
    assert text.text == "Here it is."
    assert (image.type, image.media_type, image.get_data_bytes()) == ("data", "image/png", PIXEL)


async def test_a_client_that_asks_for_progress_hears_each_step_of_the_run() -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentry.cli", "serve", "mcp", "tests.mcp.served:agent"],
        env={"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])},
        cwd=ROOT,
    )
    steps: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append((progress, message))

    async with Client(server) as client:
        result = await client.call_tool(
            "demo", {"task": "add 2 and 40"}, progress_callback=on_progress
        )
        quiet = await client.call_tool("demo", {"task": "add 1 and 1"})  # no progress asked

    assert result.content[0].text == "Tool result: 42"  # type: ignore[union-attr]
    assert steps == [(1, "calling add"), (2, "add done")]
    assert quiet.content[0].text == "Tool result: 2"  # type: ignore[union-attr]
