"""`AnthropicChatClient` through the official `anthropic` SDK against a real server of the
Messages API: llama.cpp's `llama-server`, with the default local model, on 127.0.0.1.

The server starts once for the module. Sampling is greedy with a fixed seed; the prompts
are ones the 0.5B model answers reliably, and tool calls and structured answers are
grammar-constrained by the server.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
from pydantic import BaseModel

import anthropic
from agentry import Agent, Message, tool
from agentry.anthropic import AnthropicChatClient, AnthropicChatOptions
from agentry.testing import RecordingTransport, ReplayServer, load_exchanges
from tests.providers.llama_server import API_KEY

GREEDY: AnthropicChatOptions = {"temperature": 0.0, "top_k": 1, "max_tokens": 32}


class CityFacts(BaseModel):
    city: str
    country: str


def _client(url: str) -> AnthropicChatClient:
    return AnthropicChatClient("local", base_url=url, api_key=API_KEY, max_retries=0)


async def test_a_chat_answer_follows_the_system_prompt(llama_server: str) -> None:
    response = await _client(llama_server).get_response(
        [
            Message("system", ["You only ever answer with the single word: banana."]),
            Message("user", ["What is your favourite fruit?"]),
        ],
        options=GREEDY,
    )

    assert "banana" in response.text.lower()
    assert response.finish_reason == "stop"
    assert isinstance(response.raw_representation, anthropic.types.Message)
    assert response.messages[0].message_id == response.response_id


async def test_a_stream_arrives_in_pieces_and_stops_at_a_stop_sequence(llama_server: str) -> None:
    options: AnthropicChatOptions = {**GREEDY, "stop": ["5"]}
    stream = _client(llama_server).get_response(
        "Count from 1 to 9, separated by commas.", stream=True, options=options
    )

    pieces = [update.text async for update in stream]
    response = await stream.get_final_response()

    assert len([p for p in pieces if p]) > 1
    assert response.text == "".join(pieces)
    assert "4" in response.text
    assert "5" not in response.text
    assert response.finish_reason == "stop"
    usage = response.usage_details or {}
    assert usage.get("input_token_count", 0) > 0
    assert usage.get("output_token_count", 0) > 0


async def test_an_agent_makes_a_tool_call_and_answers_with_its_result(llama_server: str) -> None:
    asked: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        asked.append(city)
        return "sunny, 21°C"

    agent = Agent(
        client=_client(llama_server),
        instructions="Use the get_weather tool to answer questions about the weather.",
        tools=[get_weather],
        default_options={**GREEDY, "max_tokens": 64},
    )

    response = await agent.run("What is the weather in Paris?", stream=True).get_final_response()

    assert asked == ["Paris"]
    call, result = response.messages[0].contents[0], response.messages[1].contents[0]
    assert (call.type, call.name, call.parse_arguments()) == (
        "function_call",
        "get_weather",
        {"city": "Paris"},
    )
    assert (result.type, result.call_id) == ("function_result", call.call_id)
    assert "21" in response.text


async def test_structured_output_comes_from_a_forced_tool_call(llama_server: str) -> None:
    client = _client(llama_server)
    assert client.structured_output == "tool"  # llama-server ignores the JSON output format

    response = await client.get_response(
        "Lyon is a city in France. Give its city and country.",
        options={**GREEDY, "max_tokens": 64, "response_format": CityFacts},
    )

    assert response.value == CityFacts(city="Lyon", country="France")
    assert response.finish_reason == "stop"


async def test_a_real_exchange_records_and_replays_offline(
    llama_server: str, tmp_path: Path
) -> None:
    file = tmp_path / "messages.json"
    transport = RecordingTransport(file)
    sdk = anthropic.AsyncAnthropic(
        api_key=API_KEY,
        base_url=llama_server,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )
    live_client = AnthropicChatClient("local", client=sdk)
    live = await live_client.get_response("Name one fruit.", options=GREEDY)
    live_stream = await live_client.get_response(
        "Name one fruit.", stream=True, options=GREEDY
    ).get_final_response()
    transport.save()

    recorded = load_exchanges(file)
    assert [(e.path, e.sse is not None) for e in recorded] == [
        ("/v1/messages", False),
        ("/v1/messages", True),
    ]
    with ReplayServer(file) as replay:
        offline = AnthropicChatClient("local", base_url=replay.url, api_key="k", max_retries=0)
        replayed = await offline.get_response("Name one fruit.", options=GREEDY)
        replayed_stream = await offline.get_response(
            "Name one fruit.", stream=True, options=GREEDY
        ).get_final_response()

    assert replayed.to_dict() == live.to_dict()
    assert replayed_stream.to_dict() == live_stream.to_dict()
    assert replay.bodies == [e.request_body for e in recorded]
