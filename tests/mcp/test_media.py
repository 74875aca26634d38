"""Images from MCP tools reach the model as image content: data with its media type,
sent as an image by clients that take images in tool results, described by the others."""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent, Message
from agentry.clients.scripted import ScriptedChatClient
from agentry.openai import OpenAIChatClient
from agentry.testing import ReplayServer, load_exchanges
from agentry.tools import tool_result_contents, tool_result_to_text

from .conftest import basic_stdio

pytestmark = pytest.mark.timeout(60)

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
"""The 1x1 PNG the test server's `chart` tool returns."""

RECORDINGS = Path(__file__).resolve().parents[1] / "openai" / "recordings"


async def test_an_image_result_reaches_the_model_as_image_content() -> None:
    model = ScriptedChatClient([ScriptedChatClient.function_call("chart", {}), "Sales rose."])
    async with basic_stdio() as server:
        await Agent(client=model, tools=[server]).run("Show me the week's sales.")

    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    text, image = result.result
    assert (text.type, text.text) == ("text", "The week's sales:")
    assert (image.type, image.media_type) == ("data", "image/png")
    assert image.get_data_bytes() == PIXEL


async def test_a_text_only_model_reads_the_image_described_live_and_from_a_stored_session() -> None:
    model = ScriptedChatClient([ScriptedChatClient.function_call("chart", {}), "Sales rose."])
    async with basic_stdio() as server:
        response = await Agent(client=model, tools=[server]).run("Show me the week's sales.")
    (tool_message,) = [m for m in response.messages if m.role == "tool"]
    stored = Message.from_dict(tool_message.to_dict())  # as a history store gives it back

    for message in (tool_message, stored):
        (result,) = message.contents
        assert tool_result_to_text(result.result) == (
            f"The week's sales:\n[image image/png, {len(PIXEL)} bytes]"
        )
        contents = tool_result_contents(result.result)
        assert contents is not None
        assert contents[1].get_data_bytes() == PIXEL


async def test_the_responses_api_gets_the_image_as_an_input_image() -> None:
    exchanges = load_exchanges(RECORDINGS / "responses_parallel_tools.json")
    asking = copy.deepcopy(exchanges[0])
    (paris_call, _) = asking.body["output"]
    asking.body["output"] = [{**paris_call, "name": "chart", "arguments": "{}"}]
    with ReplayServer([asking, exchanges[1]]) as replay:
        client = OpenAIChatClient(
            model="gpt-4.1-mini", api_key="sk-test", base_url=f"{replay.url}/v1"
        )
        async with basic_stdio(allowed_tools=["chart"]) as server:
            await Agent(client=client, tools=[server]).run("Show me the week's sales.")

    outputs: list[Any] = [
        item for item in replay.bodies[1]["input"] if item["type"] == "function_call_output"
    ]
    assert outputs == [
        {
            "type": "function_call_output",
            "call_id": paris_call["call_id"],
            "output": [
                {"type": "input_text", "text": "The week's sales:"},
                {
                    "type": "input_image",
                    "image_url": "data:image/png;base64," + base64.b64encode(PIXEL).decode(),
                    "detail": "auto",
                },
            ],
        }
    ]
