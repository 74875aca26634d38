"""How agentry's messages and options become a Messages API request, and how stop reasons
and structured-output tool calls come back."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from agentry import Content, Message, tool
from agentry.anthropic import AnthropicChatClient, AnthropicChatOptions
from agentry.errors import ChatClientError
from agentry.testing import Exchange, ReplayServer
from tests.anthropic.conftest import message_exchange


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"sunny in {city}"


class CityFacts(BaseModel):
    city: str
    country: str


ANSWER = [{"type": "text", "text": "Done."}]


async def request_for(
    messages: Any, options: AnthropicChatOptions | None = None, **settings: Any
) -> dict[str, Any]:
    """The body the client sends for `messages` and `options`."""
    with ReplayServer([message_exchange(ANSWER, "end_turn")]) as server:
        client = AnthropicChatClient(
            "claude-sonnet-5-5", base_url=server.url, api_key="sk-ant-test", **settings
        )
        await client.get_response(messages, options=options)
    return server.bodies[0]


async def test_system_messages_and_instructions_become_the_system_prompt() -> None:
    body = await request_for(
        [Message("system", ["Be brief."]), Message("user", ["Hi"])],
        {"instructions": "Answer in French."},
    )

    assert body["system"] == "Be brief.\nAnswer in French."
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]
    assert body["max_tokens"] == 4096


async def test_tool_results_lead_one_user_turn_and_failures_are_marked() -> None:
    call = Content.from_function_call(
        call_id="toolu_1", name="get_weather", arguments='{"city": "Paris"}'
    )
    second = Content.from_function_call(
        call_id="toolu_2", name="get_weather", arguments={"city": "Oslo"}
    )
    ok = Content.from_function_result(call_id="toolu_1", result="sunny in Paris")
    failed = Content.from_function_result(
        call_id="toolu_2", result="Error: no data", exception=RuntimeError("no data")
    )

    body = await request_for(
        [
            Message("user", ["Weather?"]),
            Message("assistant", [call, second]),
            Message("tool", [ok]),
            Message("tool", [failed]),
            Message("user", ["And tomorrow?"]),
        ]
    )

    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny in Paris"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "Error: no data",
                    "is_error": True,
                },
                {"type": "text", "text": "And tomorrow?"},
            ],
        },
    ]


async def test_reasoning_of_other_providers_is_not_sent() -> None:
    foreign = Content.from_text_reasoning("thought", protected_data="enc", id="rs_1")

    body = await request_for(
        [
            Message("user", ["Hi"]),
            Message("assistant", [foreign, "Hello"]),
            Message("user", ["Bye"]),
        ]
    )

    assert body["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Hello"}],
    }


@pytest.mark.parametrize(
    ("tool_choice", "parallel", "expected"),
    [
        ("auto", None, {"type": "auto"}),
        ("required", None, {"type": "any"}),
        ("none", None, {"type": "none"}),
        (
            {"mode": "required", "required_function_name": "get_weather"},
            None,
            {"type": "tool", "name": "get_weather"},
        ),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
    ],
)
async def test_tool_choices_map_to_the_apis(
    tool_choice: Any, parallel: bool | None, expected: Any
) -> None:
    options: AnthropicChatOptions = {"tools": [get_weather]}
    if tool_choice is not None:
        options["tool_choice"] = tool_choice
    if parallel is not None:
        options["allow_multiple_tool_calls"] = parallel

    body = await request_for("Weather?", options)

    assert body["tools"] == [
        {
            "name": "get_weather",
            "input_schema": get_weather.parameters(),
            "description": "The current weather in a city.",
        }
    ]
    assert body["tool_choice"] == expected


async def test_options_map_to_their_fields() -> None:
    options: AnthropicChatOptions = {
        "model": "claude-opus-5-5",
        "max_tokens": 300,
        "stop": "END",
        "user": "user-42",
        "temperature": 0.2,
        "top_p": 0.9,
        "top_k": 40,
        "seed": 7,
        "thinking": {"type": "adaptive"},
        "effort": "low",
        "cache_control": {"type": "ephemeral", "ttl": "1h"},
        "service_tier": "standard_only",
        "additional_properties": {"inference_geo": "eu"},
    }

    body = await request_for("Hi", options)

    assert {k: v for k, v in body.items() if k != "messages"} == {
        "model": "claude-opus-5-5",
        "max_tokens": 300,
        "stop_sequences": ["END"],
        "metadata": {"user_id": "user-42"},
        "temperature": 0.2,
        "top_p": 0.9,
        "top_k": 40,
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": "low"},
        "cache_control": {"type": "ephemeral", "ttl": "1h"},
        "service_tier": "standard_only",
        "inference_geo": "eu",
    }


async def test_sampling_options_stay_home_when_the_server_refuses_them() -> None:
    body = await request_for("Hi", {"temperature": 0.2, "top_k": 40}, send_sampling_options=False)

    assert "temperature" not in body
    assert "top_k" not in body


async def test_unsupported_media_is_refused_before_anything_is_sent() -> None:
    with ReplayServer([message_exchange(ANSWER, "end_turn")]) as server:
        client = AnthropicChatClient("m", base_url=server.url, api_key="sk-ant-test")
        audio = Content.from_data(b"RIFF....WAVE", "audio/wav")

        with pytest.raises(ChatClientError, match=r"takes images .* 'audio/wav' cannot be sent"):
            await client.get_response(Message("user", ["Transcribe this.", audio]))

    assert server.requests == []


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause_turn"),
    ],
)
async def test_stop_reasons_become_finish_reasons(stop_reason: str, finish_reason: str) -> None:
    with ReplayServer([message_exchange(ANSWER, stop_reason)]) as server:
        client = AnthropicChatClient("m", base_url=server.url, api_key="sk-ant-test")
        response = await client.get_response("Hi")

    assert response.finish_reason == finish_reason


# region structured output as a forced tool


def _answer_tool_call() -> list[dict[str, Any]]:
    arguments = {"city": "Lyon", "country": "France"}
    return [{"type": "tool_use", "id": "toolu_9", "name": "final_answer", "input": arguments}]


def _streamed_answer_tool_call() -> Exchange:
    events: list[Any] = [
        {"event": "message_start", "data": {"type": "message_start", "message": {"id": "msg_9", "type": "message", "role": "assistant", "model": "local", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 30, "output_tokens": 1}}}},
        {"event": "content_block_start", "data": {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_9", "name": "final_answer", "input": {}}}},
        {"event": "content_block_delta", "data": {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city":"Lyon",'}}},
        {"event": "content_block_delta", "data": {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '"country":"France"}'}}},
        {"event": "content_block_stop", "data": {"type": "content_block_stop", "index": 0}},
        {"event": "message_delta", "data": {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 12}}},
        {"event": "message_stop", "data": {"type": "message_stop"}},
    ]  # fmt: skip
    return Exchange(method="POST", path="/v1/messages", sse=events)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_forced_answer_tool_becomes_the_text_and_the_value(stream: bool) -> None:
    answer = (
        _streamed_answer_tool_call()
        if stream
        else message_exchange(_answer_tool_call(), "tool_use")
    )
    with ReplayServer([answer]) as server:
        client = AnthropicChatClient(
            "local", base_url=server.url, api_key="k", structured_output="tool"
        )
        options: AnthropicChatOptions = {"response_format": CityFacts}
        if stream:
            response = await client.get_response(
                "Lyon?", stream=True, options=options
            ).get_final_response()
        else:
            response = await client.get_response("Lyon?", options=options)

    assert response.value == CityFacts(city="Lyon", country="France")
    assert response.text == '{"city": "Lyon", "country": "France"}'
    assert response.finish_reason == "stop"
    body = server.bodies[0]
    assert [t["name"] for t in body["tools"]] == ["final_answer"]
    assert body["tools"][0]["input_schema"]["required"] == ["city", "country"]
    assert body["tool_choice"] == {"type": "tool", "name": "final_answer"}
    assert "output_config" not in body


async def test_beside_other_tools_the_model_must_call_one_or_answer() -> None:
    body = await request_for(
        "Weather in Lyon?",
        {"tools": [get_weather], "response_format": CityFacts},
        structured_output="tool",
    )

    assert [t["name"] for t in body["tools"]] == ["get_weather", "final_answer"]
    assert body["tool_choice"] == {"type": "any"}


async def test_a_tool_named_like_the_answer_tool_is_refused() -> None:
    @tool
    def final_answer(text: str) -> str:
        """Says the final answer."""
        return text

    client = AnthropicChatClient("local", base_url="http://127.0.0.1:9", structured_output="tool")
    with pytest.raises(ChatClientError, match="rename it, or pass structured_output='json_schema'"):
        await client.get_response(
            "Hi", options={"tools": [final_answer], "response_format": CityFacts}
        )


async def test_a_schema_the_json_output_format_cannot_take_is_refused_before_sending() -> None:
    with ReplayServer([message_exchange(ANSWER, "end_turn")]) as server:
        client = AnthropicChatClient(
            "m", base_url=server.url, api_key="sk-ant-test", structured_output="json_schema"
        )
        with pytest.raises(ChatClientError, match=r"JSON output format: Schema must have a 'type'"):
            await client.get_response("Hi", options={"response_format": {"title": "Untyped"}})

    assert server.requests == []


# endregion


def test_anthropic_options_are_known_to_the_client_and_its_agents() -> None:
    from agentry import Agent

    client = AnthropicChatClient(model="claude-x", api_key="k", base_url="http://127.0.0.1:9")
    thinking: AnthropicChatOptions = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    Agent(client=client, default_options=thinking)
    with pytest.raises(TypeError, match="did you mean 'thinking'"):
        Agent(client=client, default_options={"thinknig": {"type": "enabled"}})  # type: ignore[typeddict-unknown-key]
