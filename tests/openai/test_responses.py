from typing import Any

import pytest

from agentry import Agent, tool
from agentry.openai import OpenAIChatClient
from agentry.testing import ReplayServer


def _client(server: ReplayServer) -> OpenAIChatClient:
    return OpenAIChatClient(model="o4-mini", api_key="sk-test", base_url=f"{server.url}/v1")


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return {"Paris": "sunny", "Oslo": "snowing"}[city]


@pytest.mark.recording("responses_text")
async def test_text_and_reasoning(replay: ReplayServer) -> None:
    response = await _client(replay).get_response(
        [*_system("Answer in one word."), "Capital of France?"], options={"max_tokens": 30}
    )
    assert response.text == "Paris."
    reasoning = response.messages[0].contents[0]
    assert (reasoning.type, reasoning.text) == (
        "text_reasoning",
        "The user asks for the capital of France.",
    )
    assert response.usage_details == {
        "input_token_count": 30,
        "output_token_count": 20,
        "total_token_count": 50,
        "reasoning_token_count": 8,
        "cached_input_token_count": 0,
    }
    assert response.conversation_id is None  # nothing stored unless asked
    (body,) = replay.bodies
    assert body["instructions"] == "Answer in one word."
    assert body["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Capital of France?"}],
        }
    ]
    assert (body["max_output_tokens"], body["store"]) == (30, False)


def _system(text: str) -> list[Any]:
    from agentry import Message

    return [Message("system", [text])]


@pytest.mark.recording("responses_tools_stream")
async def test_streamed_tool_calls_and_reasoning_through_an_agent(replay: ReplayServer) -> None:
    agent = Agent(client=_client(replay), tools=[get_weather])
    stream = agent.run("Weather in Paris and Oslo?", stream=True)
    updates = [u async for u in stream]
    response = await stream.get_final_response()
    assert response.text == "Sunny in Paris, snowing in Oslo."
    calls = [c for c in response.messages[0].contents if c.type == "function_call"]
    assert [(c.call_id, c.parse_arguments()) for c in calls] == [
        ("call_S1", {"city": "Paris"}),
        ("call_S2", {"city": "Oslo"}),
    ]
    assert any(c.type == "text_reasoning" for u in updates for c in u.contents)
    _, second = replay.bodies
    outputs = [i for i in second["input"] if i["type"] == "function_call_output"]
    assert outputs == [
        {"type": "function_call_output", "call_id": "call_S1", "output": "sunny"},
        {"type": "function_call_output", "call_id": "call_S2", "output": "snowing"},
    ]
    assert response.usage_details == {
        "input_token_count": 140,
        "output_token_count": 55,
        "total_token_count": 195,
        "reasoning_token_count": 16,
        "cached_input_token_count": 0,
    }


@pytest.mark.recording("responses_conversation")
async def test_stored_conversations_continue_with_previous_response_id(
    replay: ReplayServer,
) -> None:
    agent = Agent(client=_client(replay), tools=[get_weather], default_options={"store": True})
    session = agent.create_session()
    first = await agent.run("Weather in Paris?", session=session)
    assert first.text == "Sunny in Paris."
    assert session.service_session_id == "resp_Conv02"
    second = await agent.run("What did I ask?", session=session)
    assert second.text == "You asked about Paris."
    one, two, three = replay.bodies
    assert "previous_response_id" not in one
    assert two["previous_response_id"] == "resp_Conv01"
    assert [i["type"] for i in two["input"]] == ["function_call_output"]  # only what is new
    assert three["previous_response_id"] == "resp_Conv02"
    assert [i["type"] for i in three["input"]] == ["message"]
