"""`OpenAIChatCompletionClient` through the SDK's HTTP stack against a replay server."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from agentry import Agent, Content, Message, tool
from agentry.openai import OpenAIChatCompletionClient
from agentry.testing import ReplayServer
from tests.replays import Serve

WEATHER = {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER[city]


class CityFacts(BaseModel):
    city: str
    country: str
    population_millions: float


def client_for(server: ReplayServer, model: str = "gpt-4.1-mini") -> OpenAIChatCompletionClient:
    return OpenAIChatCompletionClient(
        model, base_url=f"{server.url}/v1", api_key="sk-test", max_retries=0
    )


def sent(server: ReplayServer, index: int = 0) -> dict[str, Any]:
    return server.bodies[index]


async def test_text_response_maps_text_usage_and_finish_reason(serve: Serve) -> None:
    server = serve("chat_completions_text")
    client = client_for(server)

    response = await client.get_response(
        [Message("system", ["Answer in one sentence."]), Message("user", ["Say hello."])]
    )

    assert response.text == "Hello! How can I help you today?"
    assert response.finish_reason == "stop"
    assert response.response_id == "chatcmpl-CGk2yH8bQp1rL5tV9wXz0aB3cD4eF"
    assert response.model == "gpt-4.1-mini-2025-04-14"
    assert response.usage_details == {
        "input_token_count": 22,
        "output_token_count": 9,
        "total_token_count": 31,
        "reasoning_token_count": 0,
        "cached_input_token_count": 0,
    }
    assert sent(server)["messages"] == [
        {"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": "Say hello."},
    ]
    assert sent(server)["model"] == "gpt-4.1-mini"


async def test_streamed_text_folds_into_the_same_response(serve: Serve) -> None:
    server = serve("chat_completions_text_stream")
    client = client_for(server)

    stream = client.get_response("Say hello.", stream=True)
    texts = [update.text async for update in stream]
    response = await stream.get_final_response()

    assert texts[1:10] == ["Hello", "!", " How", " can", " I", " help", " you", " today", "?"]
    assert response.text == "Hello! How can I help you today?"
    assert response.finish_reason == "stop"
    assert response.usage_details is not None
    assert response.usage_details.get("total_token_count") == 19
    assert sent(server)["stream"] is True
    assert sent(server)["stream_options"] == {"include_usage": True}


async def test_parallel_tool_calls_keep_their_call_ids(serve: Serve) -> None:
    server = serve("chat_completions_parallel_tools")
    client = client_for(server)

    response = await client.get_response(
        "What is the weather in Paris and in Tokyo?", options={"tools": [get_weather]}
    )

    calls = [c for c in response.messages[0].contents if c.type == "function_call"]
    assert [(c.call_id, c.name, c.parse_arguments()) for c in calls] == [
        ("call_Vq3Jm1PZk8yHfT0aXbLe2Dn4", "get_weather", {"city": "Paris"}),
        ("call_R7sNw2Qc5Uo9Gd1KiYhZ3Ma6", "get_weather", {"city": "Tokyo"}),
    ]
    assert response.finish_reason == "tool_calls"
    assert sent(server)["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The current weather in a city.",
                "parameters": get_weather.parameters(),
            },
        }
    ]


async def test_streamed_parallel_tool_calls_assemble_their_arguments(serve: Serve) -> None:
    server = serve("chat_completions_parallel_tools_stream")
    client = client_for(server)

    stream = client.get_response(
        "What is the weather in Paris and in Tokyo?", stream=True, options={"tools": [get_weather]}
    )
    response = await stream.get_final_response()

    calls = [c for c in response.messages[0].contents if c.type == "function_call"]
    assert [(c.call_id, c.parse_arguments()) for c in calls] == [
        ("call_Vq3Jm1PZk8yHfT0aXbLe2Dn4", {"city": "Paris"}),
        ("call_R7sNw2Qc5Uo9Gd1KiYhZ3Ma6", {"city": "Tokyo"}),
    ]
    assert response.finish_reason == "tool_calls"
    assert len(server.requests) == 1  # the agent test plays the second exchange


@pytest.mark.parametrize(
    ("recording", "stream"),
    [
        ("chat_completions_parallel_tools", False),
        ("chat_completions_parallel_tools_stream", True),
    ],
)
async def test_agent_completes_a_tool_round_trip(
    serve: Serve, recording: str, stream: bool
) -> None:
    server = serve(recording)
    agent = Agent(client=client_for(server), tools=[get_weather])

    question = "What is the weather in Paris and in Tokyo?"
    if stream:
        response = await agent.run(question, stream=True).get_final_response()
    else:
        response = await agent.run(question)

    assert response.text == "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."
    follow_up = sent(server, 1)["messages"]
    assert follow_up[1]["tool_calls"][1]["id"] == "call_R7sNw2Qc5Uo9Gd1KiYhZ3Ma6"
    assert follow_up[2:] == [
        {"role": "tool", "tool_call_id": "call_Vq3Jm1PZk8yHfT0aXbLe2Dn4", "content": "sunny, 21°C"},
        {"role": "tool", "tool_call_id": "call_R7sNw2Qc5Uo9Gd1KiYhZ3Ma6", "content": "rainy, 16°C"},
    ]
    assert response.usage_details is not None
    assert response.usage_details.get("input_token_count") == 61 + 132
    assert len(server.requests) == 2


@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_content_becomes_text_reasoning(serve: Serve, stream: bool) -> None:
    server = serve("chat_completions_reasoning_stream" if stream else "chat_completions_reasoning")
    client = client_for(server, model="qwen3-0.6b")

    if stream:
        response = await client.get_response("What is 17 * 3?", stream=True).get_final_response()
    else:
        response = await client.get_response("What is 17 * 3?")

    contents = response.messages[0].contents
    assert [(c.type, c.text) for c in contents] == [
        ("text_reasoning", "The user asks for 17 * 3. 17 * 3 = 51."),
        ("text", "17 * 3 = 51."),
    ]
    assert response.usage_details == {
        "input_token_count": 19,
        "output_token_count": 41,
        "total_token_count": 60,
    }


async def test_pydantic_response_format_is_a_strict_json_schema(serve: Serve) -> None:
    server = serve("chat_completions_structured")
    client = client_for(server)

    response = await client.get_response(
        "Facts about Paris.", options={"response_format": CityFacts}
    )

    assert response.value == CityFacts(city="Paris", country="France", population_millions=2.1)
    schema_format = sent(server)["response_format"]
    assert schema_format["type"] == "json_schema"
    assert schema_format["json_schema"]["name"] == "CityFacts"
    assert schema_format["json_schema"]["strict"] is True
    assert schema_format["json_schema"]["schema"]["additionalProperties"] is False


async def test_images_files_options_and_tool_choice_reach_the_wire(serve: Serve) -> None:
    server = serve("chat_completions_text")
    client = client_for(server)
    question = Message(
        "user",
        [
            "Describe these.",
            Content.from_data(b"\x89PNG\r\n", media_type="image/png"),
            Content.from_uri("https://example.com/cat.jpg", media_type="image/jpeg"),
            Content.from_data(
                b"%PDF-1.7",
                media_type="application/pdf",
                additional_properties={"filename": "a.pdf"},
            ),
        ],
    )

    await client.get_response(
        [question],
        options={
            "temperature": 0.2,
            "max_tokens": 50,
            "stop": ["END"],
            "seed": 7,
            "tools": [get_weather],
            "tool_choice": {"mode": "required", "required_function_name": "get_weather"},
            "allow_multiple_tool_calls": False,
            "instructions": "Be brief.",
            "additional_properties": {"top_logprobs": 2, "logprobs": True},
        },
    )

    body = sent(server)
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Describe these."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
        {
            "type": "file",
            "file": {"file_data": "data:application/pdf;base64,JVBERi0xLjc=", "filename": "a.pdf"},
        },
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert (body["temperature"], body["max_tokens"], body["stop"], body["seed"]) == (
        0.2,
        50,
        ["END"],
        7,
    )
    assert (body["parallel_tool_calls"], body["logprobs"], body["top_logprobs"]) == (False, True, 2)


async def test_base_url_and_api_key_come_from_the_environment(
    serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve("chat_completions_text")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_MODEL", "gpt-4.1-mini")

    response = await OpenAIChatCompletionClient(max_retries=0).get_response("Say hello.")

    assert response.text == "Hello! How can I help you today?"
    assert sent(server)["model"] == "gpt-4.1-mini"


async def test_messages_with_nothing_for_the_model_are_not_sent(serve: Serve) -> None:
    server = serve("chat_completions_text")
    call = Content.from_function_call(call_id="c1", name="get_weather", arguments={"city": "Oslo"})
    approval = Content.from_function_approval_response(id="a1", function_call=call, approved=False)

    await client_for(server).get_response(
        [Message("user", [approval]), Message("user", ["Say hello."])]
    )

    assert sent(server)["messages"] == [{"role": "user", "content": "Say hello."}]
