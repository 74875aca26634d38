"""`OpenAIChatClient` (Responses API) through the SDK's HTTP stack against a replay server."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from agentry import Agent, Content, Message, tool
from agentry.errors import ChatClientError
from agentry.openai import OpenAIChatClient
from agentry.testing import Exchange, ReplayServer, load_exchanges
from tests.openai.conftest import RECORDINGS
from tests.replays import Serve

WEATHER = {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}
PARIS_CALL = "call_kP2vX8mQ4nR6tY1wZ3aB5cD7"
TOKYO_CALL = "call_hJ9gF7eD5cB3aZ1yX8wV6uT4"


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER[city]


class CityFacts(BaseModel):
    city: str
    country: str
    population_millions: float


def client_for(server: ReplayServer, model: str = "gpt-4.1-mini") -> OpenAIChatClient:
    return OpenAIChatClient(model, base_url=f"{server.url}/v1", api_key="sk-test", max_retries=0)


def sent(server: ReplayServer, index: int = 0) -> dict[str, Any]:
    return server.bodies[index]


async def test_text_response_keeps_the_stored_response_as_conversation(
    serve: Serve,
) -> None:
    server = serve("responses_text_stored")
    client = client_for(server)

    response = await client.get_response(
        "Say hello.", options={"instructions": "Answer in one sentence.", "store": True}
    )

    response_id = "resp_68f1a2b3c4d5e6f708192a3b4c5d6e7f0a1b2c3d4e5f6a7b"
    assert response.text == "Hello! How can I help you today?"
    assert (response.response_id, response.conversation_id) == (response_id, response_id)
    assert response.finish_reason == "stop"
    assert response.model == "gpt-4.1-mini-2025-04-14"
    assert response.usage_details == {
        "input_token_count": 19,
        "output_token_count": 10,
        "total_token_count": 29,
        "reasoning_token_count": 0,
        "cached_input_token_count": 0,
    }
    assert sent(server)["instructions"] == "Answer in one sentence."
    assert sent(server)["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Say hello."}],
        }
    ]


async def test_streamed_text_with_store_off_has_no_conversation(serve: Serve) -> None:
    server = serve("responses_text_stream")
    client = client_for(server)

    stream = client.get_response("Say hello.", stream=True, options={"store": False})
    texts = [update.text async for update in stream]
    response = await stream.get_final_response()

    assert [t for t in texts if t] == [
        "Hello",
        "!",
        " How",
        " can",
        " I",
        " help",
        " you",
        " today",
        "?",
    ]
    assert response.text == "Hello! How can I help you today?"
    assert response.conversation_id is None
    assert response.finish_reason == "stop"
    assert response.usage_details is not None
    assert response.usage_details.get("total_token_count") == 20
    assert sent(server)["store"] is False


@pytest.mark.parametrize(
    ("recording", "stream"),
    [("responses_parallel_tools", False), ("responses_parallel_tools_stream", True)],
)
async def test_parallel_tool_calls_keep_their_call_ids(
    serve: Serve, recording: str, stream: bool
) -> None:
    server = serve(recording)
    client = client_for(server)
    options: Any = {"tools": [get_weather]}

    question = "What is the weather in Paris and in Tokyo?"
    if stream:
        response = await client.get_response(
            question, stream=True, options=options
        ).get_final_response()
    else:
        response = await client.get_response(question, options=options)

    calls = [c for c in response.messages[0].contents if c.type == "function_call"]
    assert [(c.call_id, c.name, c.parse_arguments()) for c in calls] == [
        (PARIS_CALL, "get_weather", {"city": "Paris"}),
        (TOKYO_CALL, "get_weather", {"city": "Tokyo"}),
    ]
    assert response.finish_reason == "tool_calls"
    assert sent(server)["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": get_weather.parameters(),
            "strict": False,
        }
    ]
    assert len(server.requests) == 1  # the agent test plays the second exchange


@pytest.mark.parametrize(
    ("recording", "stream"),
    [("responses_parallel_tools", False), ("responses_parallel_tools_stream", True)],
)
async def test_agent_sends_tool_results_after_the_previous_response(
    serve: Serve, recording: str, stream: bool
) -> None:
    server = serve(recording)
    agent = Agent(client=client_for(server), tools=[get_weather], default_options={"store": True})
    session = agent.create_session()

    question = "What is the weather in Paris and in Tokyo?"
    if stream:
        response = await agent.run(question, stream=True, session=session).get_final_response()
    else:
        response = await agent.run(question, session=session)

    assert response.text == "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."
    follow_up = sent(server, 1)
    assert follow_up["previous_response_id"].startswith("resp_68f1b0c1d2e3f4a5")
    assert follow_up["input"] == [
        {"type": "function_call_output", "call_id": PARIS_CALL, "output": "sunny, 21°C"},
        {"type": "function_call_output", "call_id": TOKYO_CALL, "output": "rainy, 16°C"},
    ]
    assert session.service_session_id is not None
    assert session.service_session_id.startswith("resp_68f1b0c9")
    assert len(server.requests) == 2


async def test_session_continues_the_service_kept_conversation(serve: Serve) -> None:
    server = serve("responses_session")
    agent = Agent(client=client_for(server), default_options={"store": True})
    session = agent.create_session()

    await agent.run("My name is Ada.", session=session)
    answer = await agent.run("What is my name?", session=session)

    assert answer.text == "Your name is Ada."
    assert "previous_response_id" not in sent(server, 0)
    assert (
        sent(server, 1)["previous_response_id"]
        == "resp_68f1e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
    )
    assert sent(server, 1)["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "What is my name?"}],
        }
    ]
    assert session.service_session_id == "resp_68f1e0f9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c"


@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_summaries_become_text_reasoning(serve: Serve, stream: bool) -> None:
    server = serve("responses_reasoning_stream" if stream else "responses_reasoning")
    client = client_for(server, model="o4-mini")
    options: Any = {"additional_properties": {"reasoning": {"effort": "medium", "summary": "auto"}}}

    if stream:
        response = await client.get_response(
            "What is 17 * 3?", stream=True, options=options
        ).get_final_response()
    else:
        response = await client.get_response("What is 17 * 3?", options=options)

    contents = response.messages[0].contents
    assert [(c.type, c.text) for c in contents] == [
        (
            "text_reasoning",
            "**Multiplying**\n\nThe user wants 17 times 3, which is 51.\n"
            "**Answering**\n\nI will state the product.",
        ),
        ("text", "17 * 3 = 51."),
    ]
    assert response.usage_details is not None
    assert response.usage_details.get("reasoning_token_count") == 128
    assert sent(server)["reasoning"] == {"effort": "medium", "summary": "auto"}


async def test_pydantic_response_format_is_a_strict_text_format(serve: Serve) -> None:
    server = serve("responses_structured")
    client = client_for(server)

    response = await client.get_response(
        "Facts about Paris.", options={"response_format": CityFacts}
    )

    assert response.value == CityFacts(city="Paris", country="France", population_millions=2.1)
    text_format = sent(server)["text"]["format"]
    assert (text_format["type"], text_format["name"], text_format["strict"]) == (
        "json_schema",
        "CityFacts",
        True,
    )


async def test_images_files_history_and_options_reach_the_wire(serve: Serve) -> None:
    server = serve("responses_text")
    client = client_for(server)
    history = [
        Message("system", ["Be brief."]),
        Message(
            "user",
            [
                "Compare these.",
                Content.from_data(b"\x89PNG\r\n", media_type="image/png"),
                Content.from_uri("https://example.com/report.pdf", media_type="application/pdf"),
                Content.from_data(b"%PDF-1.7", media_type="application/pdf", name="a.pdf"),
            ],
        ),
        Message(
            "assistant",
            [
                Content.from_text_reasoning("hidden"),
                Content.from_function_call(
                    call_id="c1", name="get_weather", arguments={"city": "Paris"}
                ),
            ],
        ),
        Message("tool", [Content.from_function_result(call_id="c1", result={"sky": "clear"})]),
        Message("assistant", ["Clear."]),
    ]

    await client.get_response(
        history,
        options={
            "max_tokens": 64,
            "temperature": 0.1,
            "tools": [get_weather],
            "tool_choice": {"mode": "required", "required_function_name": "get_weather"},
            "instructions": "Be brief.",
            "user": "user-42",
        },
    )

    body = sent(server)
    assert body["instructions"] == "Be brief."  # the system message, not repeated
    assert body["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Compare these."},
                {
                    "type": "input_image",
                    "image_url": "data:image/png;base64,iVBORw0K",
                    "detail": "auto",
                },
                {"type": "input_file", "file_url": "https://example.com/report.pdf"},
                {
                    "type": "input_file",
                    "file_data": "data:application/pdf;base64,JVBERi0xLjc=",
                    "filename": "a.pdf",
                },
            ],
        },
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": '{"sky": "clear"}'},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Clear."}],
        },
    ]
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert (body["max_output_tokens"], body["temperature"], body["user"]) == (64, 0.1, "user-42")


async def test_a_failed_stream_raises_with_the_providers_message(serve: Serve) -> None:
    failed: dict[str, Any] = {
        "id": "resp_failed",
        "object": "response",
        "created_at": 1763800100,
        "status": "failed",
        "model": "gpt-4.1-mini",
        "output": [],
        "error": {"code": "server_error", "message": "The model produced invalid content."},
    }
    events = [
        {
            "event": "response.created",
            "data": {
                "type": "response.created",
                "sequence_number": 0,
                "response": {**failed, "status": "in_progress", "error": None},
            },
        },
        {
            "event": "response.failed",
            "data": {"type": "response.failed", "sequence_number": 1, "response": failed},
        },
    ]
    failing = ReplayServer([Exchange(method="POST", path="/v1/responses", sse=events)])
    with (
        failing as server,
        pytest.raises(ChatClientError, match="The model produced invalid content"),
    ):
        await client_for(server).get_response("Hi", stream=True).get_final_response()


async def test_a_failed_response_raises_with_the_providers_message() -> None:
    failed: dict[str, Any] = {
        "id": "resp_failed",
        "object": "response",
        "created_at": 1763800100,
        "status": "failed",
        "model": "gpt-4.1-mini",
        "output": [],
        "error": {"code": "server_error", "message": "The model produced invalid content."},
    }
    failing = ReplayServer([Exchange(method="POST", path="/v1/responses", body=failed)])
    with (
        failing as server,
        pytest.raises(ChatClientError, match="The model produced invalid content"),
    ):
        await client_for(server).get_response("Hi")


@pytest.mark.parametrize(
    "recording", ["responses_parallel_tools_stream", "responses_reasoning_stream"]
)
async def test_a_stream_folds_into_the_response_it_completes_with(recording: str) -> None:
    (streamed,) = load_exchanges(RECORDINGS / f"{recording}.json")[:1]
    assert streamed.sse is not None
    completed = next(
        e["data"]["response"] for e in streamed.sse if e["event"] == "response.completed"
    )
    plain = Exchange(method="POST", path="/v1/responses", body=completed)
    options: Any = {"tools": [get_weather], "store": True}

    with ReplayServer([streamed]) as server:
        from_stream = (
            await client_for(server)
            .get_response("Hi", stream=True, options=options)
            .get_final_response()
        )
    with ReplayServer([plain]) as server:
        from_body = await client_for(server).get_response("Hi", options=options)

    assert from_stream.to_dict() == from_body.to_dict()


async def test_streamed_encrypted_reasoning_is_kept_for_the_next_turn() -> None:
    with ReplayServer(RECORDINGS / "responses_reasoning_stream.json") as server:
        response = (
            await client_for(server, model="o4-mini")
            .get_response("What is 17 * 3?", stream=True)
            .get_final_response()
        )

    reasoning = response.messages[0].contents[0]
    assert reasoning.type == "text_reasoning"
    assert reasoning.id == "rs_68f1c0d2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2"
    assert reasoning.protected_data is not None
    assert reasoning.protected_data.startswith("gAAAAABo8xK2")


async def test_call_arguments_sent_only_with_the_finished_item_are_kept() -> None:
    (streamed,) = load_exchanges(RECORDINGS / "responses_parallel_tools_stream.json")[:1]
    assert streamed.sse is not None
    streamed.sse = [
        e for e in streamed.sse if e["event"] != "response.function_call_arguments.delta"
    ]
    with ReplayServer([streamed]) as server:
        response = (
            await client_for(server)
            .get_response("Hi", stream=True, options={"tools": [get_weather]})
            .get_final_response()
        )

    calls = [c for c in response.messages[0].contents if c.type == "function_call"]
    assert [(c.call_id, c.name, c.parse_arguments()) for c in calls] == [
        (PARIS_CALL, "get_weather", {"city": "Paris"}),
        (TOKYO_CALL, "get_weather", {"city": "Tokyo"}),
    ]
