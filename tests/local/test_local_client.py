"""`LocalChatClient` with the real default model: answers, streams, tools, structured output.

The model loads once for the module; replies are kept short. These tests check that the
behaviour is well formed, not that the model is wise.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from agentry import Agent, ChatOptions, tool
from agentry.local import DEFAULT_LOCAL_MODEL, LocalChatClient

calls: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    calls.append(city)
    return f"Light rain, 14 C in {city}"


@tool
def get_stock_price(symbol: str) -> str:
    """Get the latest stock price for a ticker symbol such as AAPL."""
    return f"{symbol} trades at 187.20 USD"


class CityFacts(BaseModel):
    name: str
    country: str


@pytest.fixture(scope="module")
def client() -> LocalChatClient:
    return LocalChatClient(max_tokens=32)


async def test_load_reports_the_verified_default_model(client: LocalChatClient) -> None:
    info = await client.load()
    assert info.name == DEFAULT_LOCAL_MODEL
    assert info.path.name == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert info.load_seconds > 0


async def test_a_chat_answer_with_usage(client: LocalChatClient) -> None:
    response = await client.get_response("What is the capital of France? One word.")
    assert "Paris" in response.text
    assert response.finish_reason == "stop"
    assert response.model == DEFAULT_LOCAL_MODEL
    usage = response.usage_details
    assert usage is not None
    assert usage.get("input_token_count", 0) > 5
    assert 0 < usage.get("output_token_count", 0) <= 32


async def test_a_stream_arrives_in_pieces_that_fold_into_the_response(
    client: LocalChatClient,
) -> None:
    stream = client.get_response("Count from 1 to 10.", stream=True)
    pieces = [update.text async for update in stream]
    final = await stream.get_final_response()
    assert len([p for p in pieces if p]) > 5
    assert "".join(pieces) == final.text
    assert "1" in final.text


async def test_max_tokens_cuts_the_reply(client: LocalChatClient) -> None:
    options: ChatOptions = {"max_tokens": 5}
    response = await client.get_response("Write a long story about a dragon.", options=options)
    assert response.finish_reason == "length"
    assert response.usage_details is not None
    assert response.usage_details.get("output_token_count") == 5


async def test_a_stop_sequence_ends_the_reply_before_it(client: LocalChatClient) -> None:
    options: ChatOptions = {"stop": [","], "max_tokens": 30}
    response = await client.get_response(
        "List the numbers 1, 2, 3, 4 separated by commas.", options=options
    )
    assert "," not in response.text
    assert response.finish_reason == "stop"


async def test_the_same_seed_gives_the_same_sample(client: LocalChatClient) -> None:
    options: ChatOptions = {"temperature": 1.0, "seed": 1234, "max_tokens": 16}
    prompt = "Invent a name for a cat."
    first = await client.get_response(prompt, options=options)
    second = await client.get_response(prompt, options=options)
    assert first.text == second.text


async def test_an_agent_picks_the_tool_runs_it_and_answers(client: LocalChatClient) -> None:
    calls.clear()
    agent = Agent(client=client, tools=[get_weather, get_stock_price])
    response = await agent.run("What's the weather like in Paris right now?")
    contents = [c for m in response.messages for c in m.contents]
    call = next(c for c in contents if c.type == "function_call")
    assert call.name == "get_weather"
    assert call.parse_arguments() == {"city": "Paris"}
    assert calls == ["Paris"]
    assert any(c.type == "function_result" for c in contents)
    assert response.messages[-1].role == "assistant"
    assert response.text.strip()


async def test_a_streamed_agent_run_streams_the_answer_text(client: LocalChatClient) -> None:
    agent = Agent(client=client, tools=[get_weather, get_stock_price])
    stream = agent.run("What's the weather in Oslo?", stream=True)
    texts = [update.text async for update in stream]
    final = await stream.get_final_response()
    assert len([t for t in texts if t]) > 1
    assert final.text.strip()
    assert "{" not in final.text  # the JSON of the moves never reaches the user


async def test_tool_choice_required_names_the_tool(client: LocalChatClient) -> None:
    options: ChatOptions = {
        "tools": [get_weather, get_stock_price],
        "tool_choice": {"mode": "required", "required_function_name": "get_stock_price"},
    }
    response = await client.get_response("Hello there!", options=options)
    call = response.messages[0].contents[0]
    assert call.type == "function_call"
    assert call.name == "get_stock_price"
    assert set(call.parse_arguments()) == {"symbol"}
    assert response.finish_reason == "tool_calls"


async def test_tool_choice_none_answers_in_text(client: LocalChatClient) -> None:
    options: ChatOptions = {"tools": [get_weather], "tool_choice": "none"}
    response = await client.get_response("What's the weather in Rome?", options=options)
    assert all(c.type != "function_call" for m in response.messages for c in m.contents)
    assert response.text.strip()


async def test_structured_output_validates(client: LocalChatClient) -> None:
    options: ChatOptions = {"response_format": CityFacts, "max_tokens": 40}
    response = await client.get_response("Give facts about Tokyo.", options=options)
    value = response.value
    assert isinstance(value, CityFacts)
    assert value.name


async def test_concurrent_requests_queue_on_the_one_model(client: LocalChatClient) -> None:
    options: ChatOptions = {"max_tokens": 8}
    other = LocalChatClient(max_tokens=8)  # same settings: the same loaded model
    responses = await asyncio.gather(
        client.get_response("Say hi.", options=options),
        other.get_response("Say yes.", options=options),
        client.get_response("Say no.", options=options),
    )
    assert all(r.text for r in responses)
    assert (await other.shared_model()) is (await client.shared_model())


async def test_an_abandoned_stream_frees_the_model(client: LocalChatClient) -> None:
    stream = client.get_response(
        "Write a long poem about the sea.", stream=True, options={"max_tokens": 400}
    )
    async for update in stream:
        if update.text:
            break
    await stream.aclose()
    response = await client.get_response("Say ok.", options={"max_tokens": 4})
    assert response.text


def test_importing_agentry_local_does_not_load_llama_cpp() -> None:
    code = "import agentry.local, sys; print('llama_cpp' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
    )
    assert result.stdout.strip() == "False"
