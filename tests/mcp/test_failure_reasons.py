"""An MCP call that fails (timeout, lost connection) tells the model why."""

from __future__ import annotations

from typing import Any

import pytest

from agentry import Agent, Content
from agentry.clients.scripted import ScriptedChatClient

from .conftest import basic_stdio

pytestmark = pytest.mark.timeout(60)


async def _result_for_model(call: str, arguments: dict[str, Any], **options: Any) -> str:
    model = ScriptedChatClient([ScriptedChatClient.function_call(call, arguments), "Noted."])
    async with basic_stdio(**options) as server:
        await Agent(client=model, tools=[server]).run("Go.")
    results: list[Content] = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    (result,) = results
    return str(result.result)


async def test_a_timed_out_call_tells_the_model_the_server_did_not_answer_in_time() -> None:
    text = await _result_for_model("sleep", {"seconds": 5}, request_timeout=0.5)
    assert text == (
        "Error: tool 'sleep' failed: ToolExecutionError: MCP server 'basic' did not answer "
        "the tool 'sleep' in time (0.5 s); raise request_timeout if it needs longer"
    )


async def test_a_lost_connection_tells_the_model_the_connection_broke() -> None:
    text = await _result_for_model("die", {})
    assert text.startswith(
        "Error: tool 'die' failed: MCPConnectionError: the connection to MCP server 'basic' "
        "broke during the tool 'die'"
    )
    assert text.endswith("it reconnects on the next use")
