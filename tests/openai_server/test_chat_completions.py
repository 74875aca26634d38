"""Agents answer Chat Completions requests of the `openai` SDK over HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import ChatResponse, Message, UsageDetails
from tests.openai_server.conftest import openai_client, serve


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def weather_agent(*answers: Any, chunk_size: int | None = None) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient(answers, chunk_size=chunk_size)
    return Agent(client=client, name="weather", tools=[get_weather]), client


def tool_round(answer: str = "It is sunny in Paris.") -> list[Any]:
    usage = UsageDetails(input_token_count=12, output_token_count=5, total_token_count=17)
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"})
    call.usage_details = UsageDetails(input_token_count=10, output_token_count=3)
    return [
        call,
        ChatResponse(
            messages=[Message("assistant", [answer])], finish_reason="stop", usage_details=usage
        ),
    ]


async def test_a_completion_is_the_agents_answer_after_its_tools_ran() -> None:
    agent, model = weather_agent(*tool_round())
    async with serve(agent) as url, openai_client(url) as openai:
        completion = await openai.chat.completions.create(
            model="weather", messages=[{"role": "user", "content": "Weather in Paris?"}]
        )

    assert completion.choices[0].message.content == "It is sunny in Paris."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "weather"
    assert completion.id.startswith("chatcmpl-")
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (22, 8)
    tool_results = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert [r.result for r in tool_results] == ["Sunny in Paris"]


async def test_a_stream_gives_the_same_text_as_the_completion_and_the_usage_last() -> None:
    spoken = [
        ScriptedChatClient.reply("Let me look."),
        *tool_round("It is sunny in Paris, 24 degrees."),
    ]
    spoken[0] = ChatResponse(
        messages=[Message("assistant", ["Let me look.", *spoken[1].messages[0].contents])],
        finish_reason="tool_calls",
    )
    del spoken[1]
    agent, _ = weather_agent(*spoken, chunk_size=4)
    again, _ = weather_agent(*spoken)
    async with serve({"weather": agent, "again": again}) as url, openai_client(url) as openai:
        stream = await openai.chat.completions.create(
            model="weather",
            messages=[{"role": "user", "content": "Weather in Paris?"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = [chunk async for chunk in stream]
        whole = await openai.chat.completions.create(
            model="again", messages=[{"role": "user", "content": "Weather in Paris?"}]
        )

    deltas = [
        c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content
    ]
    assert len(deltas) > 3
    assert "".join(deltas) == whole.choices[0].message.content
    assert whole.choices[0].message.content == "Let me look.\nIt is sunny in Paris, 24 degrees."
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens == 17


async def test_the_conversation_and_sampling_options_reach_the_model() -> None:
    agent, model = weather_agent("Noted.")
    async with serve(agent) as url, openai_client(url) as openai:
        await openai.chat.completions.create(
            model="weather",
            messages=[
                {"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": "I live in Paris.", "name": "ada"},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": [{"type": "text", "text": "And the weather?"}]},
            ],
            temperature=0.2,
            max_completion_tokens=50,
            stop=["\n\n"],
            seed=7,
        )

    (call,) = model.calls
    sent = [(m.role, m.text) for m in call.messages if m.role != "system" or m.text]
    assert sent[-4:] == [
        ("system", "Answer briefly."),
        ("user", "I live in Paris."),
        ("assistant", "Noted."),
        ("user", "And the weather?"),
    ]
    assert call.messages[-3].author_name == "ada"
    options = {k: call.options.get(k) for k in ("temperature", "max_tokens", "stop", "seed")}
    assert options == {"temperature": 0.2, "max_tokens": 50, "stop": ["\n\n"], "seed": 7}


async def test_tool_calls_and_results_of_the_callers_history_reach_the_model() -> None:
    agent, model = weather_agent("It was sunny.")
    async with serve(agent) as url, openai_client(url) as openai:
        await openai.chat.completions.create(
            model="weather",
            messages=[
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_9",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_9", "content": "Sunny in Paris"},
                {"role": "user", "content": "And then?"},
            ],
        )

    contents = [c for m in model.calls[0].messages for c in m.contents]
    (call,) = [c for c in contents if c.type == "function_call"]
    (result,) = [c for c in contents if c.type == "function_result"]
    assert (call.call_id, call.name, call.parse_arguments()) == (
        "call_9",
        "get_weather",
        {"city": "Paris"},
    )
    assert (result.call_id, result.result) == ("call_9", "Sunny in Paris")


async def test_an_image_part_reaches_the_model_as_image_content() -> None:
    agent, model = weather_agent("A cat.")
    pixel = "data:image/png;base64,iVBORw0KGgo="
    async with serve(agent) as url, openai_client(url) as openai:
        await openai.chat.completions.create(
            model="weather",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?"},
                        {"type": "image_url", "image_url": {"url": pixel}},
                        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
                    ],
                }
            ],
        )

    images = [c for c in model.calls[0].messages[-1].contents if c.type != "text"]
    assert [(c.type, c.uri, c.media_type) for c in images] == [
        ("data", pixel, "image/png"),
        ("uri", "https://example.com/cat.jpg", "image/jpeg"),
    ]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_json_schema_answer_is_validated_and_asked_again(stream: bool) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "degrees": {"type": "integer"}},
        "required": ["city", "degrees"],
    }
    agent, model = weather_agent(
        '{"city": "Paris"}', '{"city": "Paris", "degrees": 24}', chunk_size=5
    )
    response_format: Any = {
        "type": "json_schema",
        "json_schema": {"name": "weather", "schema": schema},
    }
    question: Any = [{"role": "user", "content": "Weather in Paris?"}]
    async with serve(agent) as url, openai_client(url) as openai:
        if stream:
            chunks = openai.chat.completions.create(
                model="weather", messages=question, response_format=response_format, stream=True
            )
            contents = [
                c.choices[0].delta.content
                async for c in await chunks
                if c.choices and c.choices[0].delta.content
            ]
        else:
            completion = await openai.chat.completions.create(
                model="weather", messages=question, response_format=response_format
            )
            contents = [completion.choices[0].message.content]

    assert len(model.calls) == 2
    assert len(contents) == 1
    assert json.loads(contents[0] or "") == {"city": "Paris", "degrees": 24}


async def test_a_caller_that_hangs_up_stops_the_run() -> None:
    calls: list[str] = []

    @tool
    async def slow_lookup(city: str) -> str:
        """Look a city up, slowly."""
        calls.append(city)
        await asyncio.sleep(0.5)
        return "found"

    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("slow_lookup", {"city": "Paris"}),
            ScriptedChatClient.function_call("slow_lookup", {"city": "Rome"}),
            "Done.",
        ],
        chunk_size=1,
    )
    agent = Agent(client=model, name="weather", tools=[slow_lookup])
    async with serve(agent) as url, openai_client(url) as openai:
        stream = await openai.chat.completions.create(
            model="weather", messages=[{"role": "user", "content": "Look."}], stream=True
        )
        await stream.__anext__()
        await stream.close()
        await asyncio.sleep(1.5)

    assert calls == ["Paris"]
    assert len(model.calls) == 1


async def test_an_answer_cut_at_the_token_limit_says_length() -> None:
    cut = ChatResponse(messages=[Message("assistant", ["Sunny in Pa"])], finish_reason="length")
    agent, _ = weather_agent(cut)
    async with serve(agent) as url, openai_client(url) as openai:
        completion = await openai.chat.completions.create(
            model="weather", messages=[{"role": "user", "content": "Weather?"}], max_tokens=4
        )

    assert completion.choices[0].finish_reason == "length"
