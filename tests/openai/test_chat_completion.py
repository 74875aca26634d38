from typing import Any

import pytest
from pydantic import BaseModel

from agentry import Agent, Content, Message, tool
from agentry.errors import ChatClientError
from agentry.openai import OpenAIChatCompletionClient
from agentry.testing import ReplayServer


def _client(server: ReplayServer, **kwargs: Any) -> OpenAIChatCompletionClient:
    return OpenAIChatCompletionClient(
        model="gpt-4o-mini", api_key="sk-test", base_url=f"{server.url}/v1", **kwargs
    )


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return {"Paris": "sunny", "Oslo": "snowing"}[city]


@pytest.mark.recording("chat_text")
async def test_text_answer_and_request_mapping(replay: ReplayServer) -> None:
    response = await _client(replay).get_response(
        [Message("system", ["Be brief."]), Message("user", ["Capital of France?"])],
        options={"temperature": 0.2, "max_tokens": 50, "stop": "END", "seed": 7},
    )
    assert response.text == "Paris is the capital of France."
    assert response.finish_reason == "stop"
    assert response.usage_details == {
        "input_token_count": 12,
        "output_token_count": 5,
        "total_token_count": 17,
    }
    assert response.model == "gpt-4o-mini-2024-07-18"
    (body,) = replay.bodies
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert (body["temperature"], body["max_tokens"], body["stop"], body["seed"]) == (
        0.2,
        50,
        ["END"],
        7,
    )


@pytest.mark.recording("chat_reasoning")
async def test_reasoning_content_is_kept(replay: ReplayServer) -> None:
    response = await _client(replay).get_response("What is 6 x 7?")
    kinds = [c.type for c in response.messages[0].contents]
    assert kinds == ["text_reasoning", "text"]
    assert response.messages[0].contents[0].text == "Six times seven is forty-two."


@pytest.mark.recording("chat_parallel_tools")
async def test_agent_runs_parallel_tool_calls(replay: ReplayServer) -> None:
    agent = Agent(client=_client(replay), tools=[get_weather])
    response = await agent.run("Weather in Paris and Oslo?")
    assert response.text == "Sunny in Paris and snowing in Oslo."
    results = {c.call_id: c.result for c in response.messages[1].contents}
    assert results == {"call_Paris01": "sunny", "call_Oslo02": "snowing"}
    first, second = replay.bodies
    assert first["tools"][0]["function"]["name"] == "get_weather"
    assert first["tools"][0]["function"]["parameters"]["required"] == ["city"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool", "tool"]
    assert second["messages"][1]["tool_calls"][1]["id"] == "call_Oslo02"
    assert second["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_Oslo02",
        "content": "snowing",
    }
    assert response.usage_details == {
        "input_token_count": 180,
        "output_token_count": 52,
        "total_token_count": 232,
    }


@pytest.mark.recording("chat_parallel_tools_stream")
async def test_streamed_parallel_tool_calls_through_an_agent(replay: ReplayServer) -> None:
    agent = Agent(client=_client(replay), tools=[get_weather])
    stream = agent.run("Weather in Paris and Oslo?", stream=True)
    texts = [u.text async for u in stream if u.text]
    response = await stream.get_final_response()
    assert texts == ["Sunny", " in", " Paris", " and", " snowing", " in", " Oslo", "."]
    calls = [c for c in response.messages[0].contents if c.type == "function_call"]
    assert [(c.call_id, c.parse_arguments()) for c in calls] == [
        ("call_Paris01", {"city": "Paris"}),
        ("call_Oslo02", {"city": "Oslo"}),
    ]
    assert response.text == "Sunny in Paris and snowing in Oslo."
    assert response.finish_reason == "stop"
    first, _ = replay.bodies
    assert first["stream"] is True
    assert first["stream_options"] == {"include_usage": True}


class Forecast(BaseModel):
    city: str
    degrees: int


@pytest.mark.recording("chat_structured")
async def test_structured_output_sends_a_strict_schema(replay: ReplayServer) -> None:
    agent = Agent(client=_client(replay))
    response = await agent.run("Rome?", options={"response_format": Forecast})
    assert response.value == Forecast(city="Rome", degrees=25)
    (body,) = replay.bodies
    schema = body["response_format"]["json_schema"]
    assert (schema["name"], schema["strict"]) == ("Forecast", True)
    assert schema["schema"]["additionalProperties"] is False


@pytest.mark.recording("chat_text")
async def test_images_and_tool_choice_are_mapped(replay: ReplayServer) -> None:
    image = Content.from_data(b"\x89PNG\r\n", media_type="image/png")
    await _client(replay).get_response(
        Message("user", ["What is this?", image]),
        options={
            "tools": [get_weather],
            "tool_choice": {"mode": "required", "required_function_name": "get_weather"},
        },
    )
    (body,) = replay.bodies
    parts = body["messages"][0]["content"]
    assert parts[0] == {"type": "text", "text": "What is this?"}
    assert parts[1]["type"] == "image_url"
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}


@pytest.mark.recording("chat_errors")
async def test_errors_keep_the_provider_message_and_say_what_to_do(replay: ReplayServer) -> None:
    client = _client(replay, max_retries=0, retry=None)
    with pytest.raises(ChatClientError, match="Incorrect API key provided") as unauthorized:
        await client.get_response("hi")
    assert unauthorized.value.status_code == 401
    assert "OPENAI_API_KEY" in str(unauthorized.value)
    with pytest.raises(ChatClientError, match="Rate limit reached") as limited:
        await client.get_response("hi")
    assert limited.value.status_code == 429


def test_missing_model_and_key_are_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_CHAT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ChatClientError, match="no model given"):
        OpenAIChatCompletionClient()
    with pytest.raises(ChatClientError, match="set OPENAI_API_KEY"):
        OpenAIChatCompletionClient(model="gpt-4o-mini")
    monkeypatch.setenv("OPENAI_MODEL", "m")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    client = OpenAIChatCompletionClient()
    assert client.model == "m"
    assert str(client.client.base_url) == "http://127.0.0.1:9/v1/"


async def test_an_unreachable_server_is_a_clear_error() -> None:
    client = OpenAIChatCompletionClient(model="m", base_url="http://127.0.0.1:9/v1", max_retries=0)
    with pytest.raises(
        ChatClientError, match=r"cannot reach the Chat Completions API at http://127\.0\.0\.1:9"
    ):
        await client.get_response("hi")


@pytest.mark.recording("chat_text")
async def test_max_tokens_can_go_in_max_completion_tokens(replay: ReplayServer) -> None:
    client = _client(replay, max_tokens_parameter="max_completion_tokens")

    await client.get_response("Capital of France?", options={"max_tokens": 50})

    (body,) = replay.bodies
    assert body["max_completion_tokens"] == 50
    assert "max_tokens" not in body


def test_max_tokens_goes_where_the_server_expects_it_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    openai = OpenAIChatCompletionClient(model="gpt-5-mini", api_key="sk-test")
    local = OpenAIChatCompletionClient(
        model="qwen", api_key="none", base_url="http://127.0.0.1:8080/v1"
    )

    assert openai.max_tokens_parameter == "max_completion_tokens"
    assert local.max_tokens_parameter == "max_tokens"
