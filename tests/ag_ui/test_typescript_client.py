"""AG-UI's own TypeScript client (`@ag-ui/client`, run by Node.js) runs a served agent:
the protocol as its makers read it, not only as this repository does."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

from agentry import Agent, tool
from agentry.ag_ui import create_app
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import ChatResponseUpdate, Content
from tests.asgi import serving

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("js") / "run_agent.mjs"
CLIENT_DIR = ROOT / ".js-clients"


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


async def run_with_the_typescript_client(url: str, run: dict[str, Any], tmp: Path) -> Any:
    assert (CLIENT_DIR / "node_modules/@ag-ui/client").is_dir(), "run `make js-clients`"
    run_file = tmp / "run.json"
    run_file.write_text(json.dumps(run))
    node = shutil.which("node")
    assert node is not None, "Node.js is needed"
    process = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        url,
        str(run_file),
        env={**os.environ, "AG_UI_CLIENT_DIR": str(CLIENT_DIR)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    return json.loads(out.decode().strip().splitlines()[-1])


async def test_the_typescript_client_reads_a_run_with_tools(tmp_path: Path) -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="w-1"),
            ScriptedChatClient.function_call("get_location", call_id="loc-1"),
        ],
        chunk_size=4,
    )
    agent = Agent(client=model, tools=[get_weather])
    location: dict[str, Any] = {"name": "get_location", "description": "Where the user is."}
    question = {"id": "m1", "role": "user", "content": "Weather here?"}
    async with serving(create_app(agent)) as url:
        seen = await run_with_the_typescript_client(
            url + "/", {"messages": [question], "tools": [location]}, tmp_path
        )

    assert "error" not in seen, seen
    assert seen["events"] == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    messages = seen["messages"]
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("toolCalls", [])]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [
        ("w-1", "get_weather"),
        ("loc-1", "get_location"),
    ]
    results = [(m["toolCallId"], m["content"]) for m in messages if m["role"] == "tool"]
    assert results == [("w-1", "Sunny in Paris")]


async def test_the_typescript_client_reads_reasoning_and_text(tmp_path: Path) -> None:
    thinking = [
        ChatResponseUpdate(contents=[Content("text_reasoning", text="Easy. ")], role="assistant"),
        ChatResponseUpdate(contents=[Content.from_text("Hello ")], role="assistant"),
        ChatResponseUpdate(contents=[Content.from_text("there.")], role="assistant"),
    ]
    agent = Agent(client=ScriptedChatClient([thinking]))
    question = {"id": "m1", "role": "user", "content": "Hi"}
    async with serving(create_app(agent)) as url:
        seen = await run_with_the_typescript_client(url + "/", {"messages": [question]}, tmp_path)

    assert "error" not in seen, seen
    assert seen["events"] == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    answers = [m["content"] for m in seen["messages"] if m["role"] == "assistant"]
    assert answers == ["Hello there."]
