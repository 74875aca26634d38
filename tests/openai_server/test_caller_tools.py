"""Tools a request declares: the served agent calls them, the caller runs them."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseStreamEvent,
)

import openai
from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from tests.openai_server.conftest import openai_client, serve

LOCATION: Any = {
    "type": "function",
    "function": {
        "name": "get_location",
        "description": "Where the user is.",
        "parameters": {"type": "object", "properties": {"precise": {"type": "boolean"}}},
    },
}


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def weather_agent(*answers: Any) -> tuple[Agent, ScriptedChatClient]:
    model = ScriptedChatClient(answers, chunk_size=4)
    return Agent(client=model, name="weather", tools=[get_weather]), model


def script() -> list[Any]:
    return [
        ScriptedChatClient.function_call("get_location", {"precise": True}, call_id="loc-1"),
        ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="w-1"),
        "Sunny in Paris, where you are.",
    ]


def seen(model: ScriptedChatClient, call: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for message in model.calls[call].messages:
        for content in message.contents:
            if content.type == "function_call":
                rows.append((message.role, f"call {content.name}"))
            elif content.type == "function_result":
                rows.append((message.role, f"result {content.result}"))
            else:
                rows.append((message.role, content.text or ""))
    return rows


@pytest.mark.parametrize("stream", [False, True])
async def test_a_chat_completion_hands_the_callers_tool_call_back_and_goes_on(stream: bool) -> None:
    agent, model = weather_agent(*script())
    question: Any = {"role": "user", "content": "Weather here?"}
    async with serve(agent) as url, openai_client(url) as o:
        if stream:
            chunks = [
                c
                async for c in await o.chat.completions.create(
                    model="weather", messages=[question], tools=[LOCATION], stream=True
                )
            ]
            calls = [t for c in chunks if c.choices for t in c.choices[0].delta.tool_calls or ()]
            finish = [c.choices[0].finish_reason for c in chunks if c.choices][-1]
            call = (calls[0].id, calls[0].function and calls[0].function.name)
            arguments = calls[0].function and calls[0].function.arguments
        else:
            asked = await o.chat.completions.create(
                model="weather", messages=[question], tools=[LOCATION]
            )
            (tool_call,) = asked.choices[0].message.tool_calls or []
            assert tool_call.type == "function"
            call = (tool_call.id, tool_call.function.name)
            arguments = tool_call.function.arguments
            finish = asked.choices[0].finish_reason
            assert asked.choices[0].message.content is None
        answered = await o.chat.completions.create(
            model="weather",
            tools=[LOCATION],
            messages=[
                question,
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "loc-1",
                            "type": "function",
                            "function": {"name": "get_location", "arguments": arguments or ""},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "loc-1", "content": "Paris"},
            ],
        )

    assert (call, finish) == (("loc-1", "get_location"), "tool_calls")
    assert arguments == '{"precise": true}'
    assert answered.choices[0].message.content == "Sunny in Paris, where you are."
    assert answered.choices[0].message.tool_calls is None
    assert model.calls[0].tool_names == ["get_weather", "get_location"]
    assert seen(model, 1)[-2:] == [("assistant", "call get_location"), ("tool", "result Paris")]
    assert seen(model, 2)[-2:] == [
        ("assistant", "call get_weather"),
        ("tool", "result Sunny in Paris"),
    ]


async def test_tool_choice_and_parallel_calls_reach_the_model() -> None:
    agent, model = weather_agent("Fine.")
    async with serve(agent) as url, openai_client(url) as o:
        await o.chat.completions.create(
            model="weather",
            messages=[{"role": "user", "content": "Where am I?"}],
            tools=[LOCATION],
            tool_choice={"type": "function", "function": {"name": "get_location"}},
            parallel_tool_calls=False,
        )

    options = model.calls[0].options
    assert options.get("tool_choice") == {
        "mode": "required",
        "required_function_name": "get_location",
    }
    assert options.get("allow_multiple_tool_calls") is False


async def test_a_tool_named_like_the_agents_own_is_refused() -> None:
    agent, model = weather_agent("Fine.")
    clash: Any = {"type": "function", "function": {"name": "get_weather"}}
    async with serve(agent) as url, openai_client(url) as o:
        with pytest.raises(openai.BadRequestError, match=r"get_weather.*rename yours"):
            await o.chat.completions.create(
                model="weather", messages=[{"role": "user", "content": "Hi"}], tools=[clash]
            )

    assert model.calls == []


def function_calls(events: list[ResponseStreamEvent]) -> list[ResponseFunctionToolCall]:
    final = events[-1]
    assert isinstance(final, ResponseCompletedEvent)
    return [i for i in final.response.output if isinstance(i, ResponseFunctionToolCall)]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_response_ends_with_the_callers_tool_call_and_goes_on(stream: bool) -> None:
    agent, model = weather_agent(*script())
    location: Any = {"type": "function", **LOCATION["function"]}
    async with serve(agent) as url, openai_client(url) as o:
        if stream:
            events = [
                e
                async for e in await o.responses.create(
                    model="weather", input="Weather here?", tools=[location], stream=True
                )
            ]
            calls = function_calls(events)
            done = [e for e in events if isinstance(e, ResponseFunctionCallArgumentsDoneEvent)]
            assert [e.arguments for e in done] == [calls[0].arguments]
            asked_id = (
                events[-1].response.id if isinstance(events[-1], ResponseCompletedEvent) else ""
            )
        else:
            asked = await o.responses.create(
                model="weather", input="Weather here?", tools=[location]
            )
            calls = [i for i in asked.output if isinstance(i, ResponseFunctionToolCall)]
            asked_id = asked.id
        answered = await o.responses.create(
            model="weather",
            previous_response_id=asked_id,
            tools=[location],
            input=[{"type": "function_call_output", "call_id": "loc-1", "output": "Paris"}],
        )

    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("loc-1", "get_location", '{"precise": true}')
    ]
    assert answered.output_text == "Sunny in Paris, where you are."
    assert seen(model, 1)[-3:] == [
        ("user", "Weather here?"),
        ("assistant", "call get_location"),
        ("tool", "result Paris"),
    ]
