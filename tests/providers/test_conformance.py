"""One conformance suite for every provider client (see `clients.PROVIDERS`).

Each test runs once per client. The live tests talk to llama.cpp's `llama-server` with
the default local model, through each client's official SDK (the Azure OpenAI and Foundry
clients through the local front of tests/azure/front.py, which checks their URLs and
sign-in); greedy sampling and short prompts the 0.5B model answers reliably keep them
deterministic. A relay (`memo_relay.py`) answers a request the server has already answered
in the session from memory, so clients that send the same request compute it once. What one local server cannot show (parallel tool calls, unknown models,
rate limits) is replayed in each provider's wire format, through the same front.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel

from agentry import Agent, ChatOptions, ChatResponse, Message, RetryPolicy, tool
from agentry.anthropic import AnthropicChatClient
from agentry.clients import BaseChatClient
from agentry.clients.sdk_errors import CONTEXT_ADVICE
from agentry.errors import ChatClientError
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from agentry.testing import Exchange, RecordingTransport, ReplayServer, load_exchanges
from tests.providers.clients import PROVIDERS, ProviderCase
from tests.providers.llama_server import API_KEY, CONTEXT_TOKENS

GREEDY: ChatOptions = {"temperature": 0.0, "seed": 7, "max_tokens": 24}
WEATHER = {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER.get(city, "unknown")


class CityFacts(BaseModel):
    city: str
    country: str


# region answers


async def test_a_plain_answer_is_the_models_text(provider: ProviderCase, live_url: str) -> None:
    client = provider.make(live_url, API_KEY, None)

    response = await client.get_response(
        "What is the capital of France? Answer with one word.", options=GREEDY
    )

    assert "Paris" in response.text
    assert response.finish_reason == "stop"
    assert [m.role for m in response.messages] == ["assistant"]
    assert response.response_id


async def test_a_system_message_sets_the_behaviour(provider: ProviderCase, live_url: str) -> None:
    client = provider.make(live_url, API_KEY, None)

    response = await client.get_response(
        [
            Message("system", ["You only ever answer with the single word: banana."]),
            Message("user", ["What is your favourite fruit?"]),
        ],
        options=GREEDY,
    )

    assert "banana" in response.text.lower()


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p.stop_sequences], ids=str)
async def test_a_stream_stops_at_a_stop_sequence(provider: ProviderCase, live_url: str) -> None:
    options: ChatOptions = {**GREEDY, "stop": ["5"]}
    stream = provider.make(live_url, API_KEY, None).get_response(
        "Count from 1 to 9, separated by commas.", stream=True, options=options
    )

    pieces = [update.text async for update in stream]
    response = await stream.get_final_response()

    assert response.text == "".join(pieces)
    assert "4" in response.text
    assert "5" not in response.text
    assert response.finish_reason == "stop"


async def test_a_stream_folds_into_the_plain_answer(provider: ProviderCase, live_url: str) -> None:
    client = provider.make(live_url, API_KEY, None)
    question = "Name three primary colours."

    plain = await client.get_response(question, options=GREEDY)
    stream = client.get_response(question, stream=True, options=GREEDY)
    pieces = [update.text async for update in stream]
    streamed = await stream.get_final_response()

    assert plain.text.strip()
    assert streamed.text == plain.text == "".join(pieces)
    assert len([p for p in pieces if p]) > 1  # the text really arrived in pieces
    assert streamed.finish_reason == plain.finish_reason
    assert _token_counts(streamed) == _token_counts(plain)


async def test_usage_counts_the_prompt_and_the_answer(
    provider: ProviderCase, live_url: str
) -> None:
    client = provider.make(live_url, API_KEY, None)

    response = await client.get_response("Count from one to twenty.", options=GREEDY)

    usage = response.usage_details or {}
    prompt_tokens = usage.get("input_token_count")
    assert prompt_tokens is not None
    assert prompt_tokens > 5
    assert usage.get("output_token_count") == 24  # cut off at max_tokens
    assert usage.get("total_token_count") == prompt_tokens + 24


async def test_structured_output_is_parsed_into_the_value(
    provider: ProviderCase, live_url: str
) -> None:
    options: ChatOptions = {**GREEDY, "max_tokens": 64, "response_format": CityFacts}
    question = "Paris is a city in France. Give its city and country."

    if provider.structured_recording is None:
        response = await provider.make(live_url, API_KEY, None).get_response(
            question, options=options
        )
    else:
        with replayed(provider, provider.structured_recording) as (_, url):
            response = await provider.make(url, API_KEY, None).get_response(
                question, options=options
            )

    assert response.value == CityFacts(city="Paris", country="France")
    assert json.loads(response.text)["country"] == "France"


async def test_a_live_exchange_records_and_replays_offline(
    provider: ProviderCase, live_url: str, tmp_path: Path
) -> None:
    transport = RecordingTransport(tmp_path / "exchanges.json")
    live_client = _recording(provider.make(live_url, API_KEY, None), transport)
    live = await live_client.get_response("Name one fruit.", options=GREEDY)
    live_stream = await live_client.get_response(
        "Name one fruit.", stream=True, options=GREEDY
    ).get_final_response()
    transport.save()

    recorded = load_exchanges(transport.path)
    with ReplayServer(transport.path) as replay:  # the client's own URLs, no front
        offline = provider.make(replay.url, API_KEY, None)
        replayed = await offline.get_response("Name one fruit.", options=GREEDY)
        replayed_stream = await offline.get_response(
            "Name one fruit.", stream=True, options=GREEDY
        ).get_final_response()

    assert [e.sse is not None for e in recorded] == [False, True]
    assert replayed.to_dict() == live.to_dict()
    assert replayed_stream.to_dict() == live_stream.to_dict()
    assert replay.bodies == [e.request_body for e in recorded]


# endregion

# region tools


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_call_is_made_and_answered_through_an_agent(
    provider: ProviderCase, live_url: str, stream: bool
) -> None:
    calls: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        calls.append(city)
        return WEATHER.get(city, "unknown")

    agent = Agent(
        client=provider.make(live_url, API_KEY, None),
        instructions="Use the get_weather tool to answer questions about the weather.",
        tools=[get_weather],
        default_options={**GREEDY, "max_tokens": 64},
    )

    question = "What is the weather in Paris?"
    if stream:
        response = await agent.run(question, stream=True).get_final_response()
    else:
        response = await agent.run(question)

    assert calls == ["Paris"]
    call, result = response.messages[0].contents[0], response.messages[1].contents[0]
    assert (call.type, call.name, call.parse_arguments()) == (
        "function_call",
        "get_weather",
        {"city": "Paris"},
    )
    assert (result.type, result.call_id) == ("function_result", call.call_id)
    assert "21" in response.text


async def test_a_streamed_tool_call_folds_into_the_plain_one(
    provider: ProviderCase, live_url: str
) -> None:
    client = provider.make(live_url, API_KEY, None)
    options: ChatOptions = {
        **GREEDY,
        "max_tokens": 64,
        "tools": [get_weather],
        "tool_choice": {"mode": "required", "required_function_name": "get_weather"},
    }

    plain = await client.get_response("What is the weather in Tokyo?", options=options)
    streamed = await client.get_response(
        "What is the weather in Tokyo?", stream=True, options=options
    ).get_final_response()

    assert _calls(plain) == [("get_weather", {"city": "Tokyo"}, True)]
    assert _calls(streamed) == _calls(plain)
    assert plain.finish_reason == streamed.finish_reason == "tool_calls"


@pytest.mark.parametrize("stream", [False, True])
async def test_parallel_tool_calls_all_run_and_are_answered(
    provider: ProviderCase, stream: bool
) -> None:
    recording = (
        provider.parallel_tools_stream_recording if stream else provider.parallel_tools_recording
    )
    with replayed(provider, recording) as (server, url):
        agent = Agent(client=provider.make(url, API_KEY, None), tools=[get_weather])
        question = "What is the weather in Paris and in Tokyo?"
        if stream:
            response = await agent.run(question, stream=True).get_final_response()
        else:
            response = await agent.run(question)

    contents = [c for m in response.messages for c in m.contents]
    calls = [c for c in contents if c.type == "function_call"]
    results = {c.call_id: c.result for c in contents if c.type == "function_result"}
    assert [c.parse_arguments() for c in calls] == [{"city": "Paris"}, {"city": "Tokyo"}]
    assert [results[c.call_id] for c in calls] == ["sunny, 21°C", "rainy, 16°C"]
    assert response.text == "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."
    assert len(server.requests) == 2


# endregion

# region errors


async def test_a_bad_key_says_how_to_give_one(provider: ProviderCase, live_url: str) -> None:
    client = provider.make(live_url, "sk-wrong", None)

    with pytest.raises(ChatClientError) as caught:
        await client.get_response("Hi", options=GREEDY)

    assert caught.value.status_code == 401
    assert provider.bad_key_advice in str(caught.value)


async def test_a_conversation_longer_than_the_context_says_so(
    provider: ProviderCase, live_url: str
) -> None:
    client = provider.make(live_url, API_KEY, None)
    too_long = "apple " * (CONTEXT_TOKENS + 200)

    with pytest.raises(ChatClientError) as caught:
        await client.get_response(too_long, options=GREEDY)

    assert caught.value.status_code == 400
    assert CONTEXT_ADVICE in str(caught.value)


async def test_an_unknown_model_says_to_check_its_name(provider: ProviderCase) -> None:
    refusal = Exchange("POST", provider.path, status=404, body=provider.unknown_model_error)
    with replayed(provider, [refusal]) as (_, url):
        client = provider.make(url, API_KEY, None)
        with pytest.raises(ChatClientError) as caught:
            await client.get_response("Hi")

    assert caught.value.status_code == 404
    assert provider.unknown_model_error["error"]["message"] in str(caught.value)
    assert provider.unknown_model_advice in str(caught.value)


async def test_a_rate_limit_is_retried(provider: ProviderCase) -> None:
    limited = Exchange(
        "POST",
        provider.path,
        status=429,
        body=provider.rate_limit_error,
        headers={"retry-after-ms": "1"},
    )
    answer = load_exchanges(provider.text_recording)[0]
    with replayed(provider, [limited, answer]) as (server, url):
        client = provider.make(url, API_KEY, RetryPolicy(initial_delay=0.001))
        response = await client.get_response("Say hello.")

    assert response.text
    assert len(server.requests) == 2


async def test_a_rate_limit_past_the_retries_says_what_to_do(provider: ProviderCase) -> None:
    limited = Exchange("POST", provider.path, status=429, body=provider.rate_limit_error)
    with replayed(provider, [limited]) as (server, url):
        client = provider.make(url, API_KEY, None)
        with pytest.raises(ChatClientError) as caught:
            await client.get_response("Say hello.")

    assert caught.value.status_code == 429
    assert "retry later" in str(caught.value)
    assert len(server.requests) == 1


# endregion


@contextmanager
def replayed(
    provider: ProviderCase, exchanges: Path | Iterable[Exchange]
) -> Generator[tuple[ReplayServer, str]]:
    """A replay server of `exchanges`, and the URL the provider's client reaches it by."""
    with ReplayServer(exchanges) as server, provider.reach(server.url) as url:
        yield server, url


def _recording(client: BaseChatClient, transport: RecordingTransport) -> BaseChatClient:
    """`client`, its SDK sending every request through `transport`."""
    http_client = httpx2.AsyncClient(transport=transport)
    if isinstance(client, AnthropicChatClient):
        client.client = client.client.with_options(http_client=http_client)
    else:
        assert isinstance(client, OpenAIChatClient | OpenAIChatCompletionClient)
        client.client = client.client.with_options(http_client=http_client)
    return client


def _calls(response: ChatResponse) -> list[tuple[str | None, dict[str, Any], bool]]:
    """(name, arguments, has a call id) of each function call of a response."""
    return [
        (c.name, c.parse_arguments(), bool(c.call_id))
        for m in response.messages
        for c in m.contents
        if c.type == "function_call"
    ]


def _token_counts(response: ChatResponse) -> tuple[int | None, int | None, int | None]:
    usage = response.usage_details or {}
    return (
        usage.get("input_token_count"),
        usage.get("output_token_count"),
        usage.get("total_token_count"),
    )
