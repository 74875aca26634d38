"""An agent run for AG-UI front ends: the run input in, the run's events out, over HTTP."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    Event,
    RunErrorEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from pydantic import TypeAdapter

from agentry import Agent, tool
from agentry.ag_ui import create_app
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ChatClientError
from agentry.types import ChatResponseUpdate, Content
from tests.asgi import serving

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)

LOCATION: dict[str, Any] = {
    "name": "get_location",
    "description": "Where the user is; the browser answers.",
    "parameters": {"type": "object", "properties": {}},
}


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def run_input(messages: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {
        "threadId": "thread-1",
        "runId": "run-1",
        "state": {},
        "messages": messages,
        "tools": [],
        "context": [],
        "forwardedProps": {},
        **fields,
    }


QUESTION = {"id": "m1", "role": "user", "content": "Weather here?"}


@asynccontextmanager
async def ag_ui_server(agent: Agent, **options: Any) -> AsyncGenerator[str, None]:
    async with serving(create_app(agent, **options)) as url:
        yield url + "/"


async def run(url: str, body: dict[str, Any], **headers: str) -> list[BaseEvent]:
    """POST a run and read its events with the AG-UI SDK's own types."""
    events: list[BaseEvent] = []
    async with (
        httpx.AsyncClient() as http,
        http.stream(
            "POST", url, json=body, headers={"accept": "text/event-stream", **headers}
        ) as answer,
    ):
        answer.raise_for_status()
        async for line in answer.aiter_lines():
            if line.startswith("data: "):
                events.append(EVENTS.validate_json(line.removeprefix("data: ")))
    return events


def kinds(events: list[BaseEvent]) -> list[str]:
    return [e.type.value for e in events]


def weather_agent(*answers: Any) -> tuple[Agent, ScriptedChatClient]:
    model = ScriptedChatClient(answers, chunk_size=5)
    return Agent(client=model, tools=[get_weather]), model


async def test_a_run_streams_its_tool_calls_results_and_text() -> None:
    agent, _ = weather_agent(
        ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="w-1"),
        "It is sunny in Paris.",
    )
    async with ag_ui_server(agent) as url:
        events = await run(url, run_input([QUESTION]))

    assert kinds(events) == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
        *["TEXT_MESSAGE_CONTENT"] * 5,
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    start = events[1]
    assert isinstance(start, ToolCallStartEvent)
    assert (start.tool_call_id, start.tool_call_name) == ("w-1", "get_weather")
    assert isinstance(events[2], ToolCallArgsEvent)
    assert events[2].delta == '{"city": "Paris"}'
    assert isinstance(events[4], ToolCallResultEvent)
    assert (events[4].tool_call_id, events[4].content) == ("w-1", "Sunny in Paris")
    text = "".join(e.delta for e in events if isinstance(e, TextMessageContentEvent))
    assert text == "It is sunny in Paris."


async def test_a_front_end_tool_call_ends_the_run_and_its_result_goes_on() -> None:
    agent, model = weather_agent(
        ScriptedChatClient.function_call("get_location", call_id="loc-1"),
        ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="w-1"),
        "Sunny in Paris, where you are.",
    )
    async with ag_ui_server(agent) as url:
        asked = await run(url, run_input([QUESTION], tools=[LOCATION]))
        call = {
            "id": "loc-1",
            "type": "function",
            "function": {"name": "get_location", "arguments": "{}"},
        }
        answered = await run(
            url,
            run_input(
                [
                    QUESTION,
                    {"id": "m2", "role": "assistant", "toolCalls": [call]},
                    {"id": "m3", "role": "tool", "toolCallId": "loc-1", "content": "Paris"},
                ],
                tools=[LOCATION],
            ),
        )

    assert kinds(asked) == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    assert model.calls[0].tool_names == ["get_weather", "get_location"]
    results = [
        c.result for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert results == ["Paris"]
    text = "".join(e.delta for e in answered if isinstance(e, TextMessageContentEvent))
    assert text == "Sunny in Paris, where you are."


async def test_the_context_reaches_the_model_first() -> None:
    agent, model = weather_agent("Noted.")
    context = [{"description": "the user's city", "value": "Oslo"}]
    async with ag_ui_server(agent) as url:
        await run(url, run_input([QUESTION], context=context))

    first = model.calls[0].messages[0]
    assert (first.role, first.text) == (
        "system",
        "Context from the application:\n- the user's city: Oslo",
    )


async def test_reasoning_streams_as_reasoning_events() -> None:
    thinking = [
        ChatResponseUpdate(
            contents=[Content("text_reasoning", text="The user asks. ")], role="assistant"
        ),
        ChatResponseUpdate(contents=[Content("text_reasoning", text="Answer.")], role="assistant"),
        ChatResponseUpdate(contents=[Content.from_text("Hello.")], role="assistant"),
    ]
    agent, _ = weather_agent(thinking)
    async with ag_ui_server(agent) as url:
        events = await run(url, run_input([QUESTION]))

    assert kinds(events) == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (ChatClientError("upstream broke", status_code=500), "upstream broke"),
        (RuntimeError("secret internals"), "the server's log says why"),
    ],
)
async def test_a_failing_run_ends_with_a_run_error(answer: Exception, says: str) -> None:
    agent = Agent(client=ScriptedChatClient([answer], retry=None))
    async with ag_ui_server(agent) as url:
        events = await run(url, run_input([QUESTION]))

    assert kinds(events) == ["RUN_STARTED", "RUN_ERROR"]
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert says in error.message
    assert "secret internals" not in error.message


async def test_a_tool_that_needs_approval_ends_with_a_clear_run_error() -> None:
    @tool(approval_mode="always_require")
    def delete_file(path: str) -> str:
        """Delete a file."""
        return "deleted"

    model = ScriptedChatClient([ScriptedChatClient.function_call("delete_file", {"path": "a"})])
    agent = Agent(client=model, tools=[delete_file])
    async with ag_ui_server(agent) as url:
        events = await run(url, run_input([QUESTION]))

    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == "input_required"
    assert "make the tool a front-end tool" in error.message


async def test_keys_bodies_and_paths_are_checked() -> None:
    agent, model = weather_agent("Hi.")
    async with (
        ag_ui_server(agent, api_keys=["k-1"], path="/agent") as url,
        httpx.AsyncClient() as http,
    ):
        base = url.removesuffix("/")
        keyless = await http.post(f"{base}/agent", json=run_input([QUESTION]))
        broken = await http.post(
            f"{base}/agent", json={"threadId": "t"}, headers={"authorization": "Bearer k-1"}
        )
        events = await run(f"{base}/agent", run_input([QUESTION]), authorization="Bearer k-1")

    assert keyless.status_code == 401
    assert broken.status_code == 400
    assert "runId: Field required" in broken.json()["error"]["message"]
    assert kinds(events)[-1] == "RUN_FINISHED"
    assert len(model.calls) == 1
    with pytest.raises(ValueError, match="path must start with '/'"):
        create_app(agent, path="agent")


async def test_a_front_end_tool_named_like_the_agents_own_is_a_run_error() -> None:
    agent, model = weather_agent("Hi.")
    clash = {"name": "get_weather", "description": "The browser's weather."}
    async with ag_ui_server(agent) as url:
        events = await run(url, run_input([QUESTION], tools=[clash]))

    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert (error.code, model.calls) == ("ToolNameConflictError", [])
    assert "are both named 'get_weather'" in error.message
