"""`AnthropicChatClient` through the SDK's HTTP stack against recorded Messages API answers.

The recordings follow the shapes of Anthropic's API reference for what a local server
cannot produce: signed and redacted thinking, prompt-cache usage, documents, the JSON
output format and parallel tool calls.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic import BaseModel

from agentry import Agent, Content, Message, tool
from agentry.anthropic import AnthropicChatClient, AnthropicChatOptions
from agentry.testing import ReplayServer, load_exchanges
from anthropic import transform_schema
from tests.anthropic.conftest import RECORDINGS
from tests.replays import Serve

WEATHER = {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}
THINKING = {"type": "enabled", "budget_tokens": 2048}


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER[city]


class CityFacts(BaseModel):
    city: str
    country: str


def client_for(server: ReplayServer, **settings: Any) -> AnthropicChatClient:
    return AnthropicChatClient(
        "claude-sonnet-5-5", base_url=server.url, api_key="sk-ant-test", max_retries=0, **settings
    )


def recorded_request(name: str, index: int = 0) -> Any:
    return load_exchanges(RECORDINGS / f"{name}.json")[index].request_body


async def test_a_text_answer_maps_ids_usage_and_finish_reason(serve: Serve) -> None:
    server = serve("messages_text")

    response = await client_for(server).get_response("Say hello.")

    assert response.text == "Hello! How can I help you today?"
    assert response.response_id == response.messages[0].message_id == "msg_01HCDu5LRGeP2o7s2xGmxyx8"
    assert response.model == "claude-sonnet-5-5"
    assert response.finish_reason == "stop"
    assert response.usage_details == {
        "input_token_count": 14,
        "output_token_count": 12,
        "total_token_count": 26,
        "cached_input_token_count": 0,
        "cache_creation_input_token_count": 0,
    }
    assert server.bodies == [recorded_request("messages_text")]


@pytest.mark.parametrize("stream", [False, True])
async def test_thinking_blocks_go_back_unchanged_with_their_signatures(
    serve: Serve, stream: bool
) -> None:
    server = serve("messages_thinking_tools_stream" if stream else "messages_thinking_tools")
    agent = Agent(client=client_for(server), tools=[get_weather])
    options: AnthropicChatOptions = {"thinking": {"type": "enabled", "budget_tokens": 2048}}

    if stream:
        run = agent.run("What is the weather in Paris?", stream=True, options=options)
        response = await run.get_final_response()
    else:
        response = await agent.run("What is the weather in Paris?", options=options)

    first = response.messages[0].contents
    assert [c.type for c in first] == ["text_reasoning", "text_reasoning", "text", "function_call"]
    assert (first[0].text or "").startswith("The user wants the weather in Paris.")
    assert first[0].protected_data
    assert first[0].protected_data.startswith("EqQBCkgI")
    assert first[1].text == ""
    assert (first[1].protected_data or "").startswith("EmwKAhgB")
    assert response.text.endswith("It is sunny and 21°C in Paris.")
    # The second request carries the thinking blocks exactly as the API sent them.
    assert (
        server.bodies[1]["messages"] == recorded_request("messages_thinking_tools", 1)["messages"]
    )
    assert server.bodies[1]["thinking"] == THINKING
    assert response.usage_details is not None
    assert response.usage_details.get("reasoning_token_count") == 64


async def test_thinking_survives_a_session_saved_as_json(serve: Serve) -> None:
    server = serve("messages_thinking_tools")
    client = client_for(server)
    options: AnthropicChatOptions = {
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "tools": [get_weather],
    }
    question = Message("user", ["What is the weather in Paris?"])

    first = await client.get_response([question], options=options)
    saved = [Message.from_json(m.to_json()) for m in first.messages]
    result = Message(
        "tool",
        [
            Content.from_function_result(
                call_id=first.messages[0].contents[3].call_id or "", result="sunny, 21°C"
            )
        ],
    )
    await client.get_response([question, *saved, result], options=options)

    assert (
        server.bodies[1]["messages"] == recorded_request("messages_thinking_tools", 1)["messages"]
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_prompt_cache_reads_and_writes_are_counted(serve: Serve, stream: bool) -> None:
    server = serve("messages_cached")
    client = client_for(server)
    messages = [
        Message("system", [("You are a concise assistant for a travel agency. " * 3).strip()]),
        Message("user", ["Suggest one museum in Paris."]),
    ]
    options: AnthropicChatOptions = {"cache_control": {"type": "ephemeral"}}

    plain = await client.get_response(messages, options=options)
    streamed = await client.get_response(
        messages, stream=True, options=options
    ).get_final_response()

    expected = {
        "input_token_count": 9 + 1830 + 312,
        "output_token_count": 8,
        "total_token_count": 9 + 1830 + 312 + 8,
        "cached_input_token_count": 1830,
        "cache_creation_input_token_count": 312,
    }
    assert (streamed if stream else plain).usage_details == expected
    assert streamed.to_dict() == plain.to_dict()
    assert server.bodies[0] == recorded_request("messages_cached")
    assert server.bodies[1] == {**recorded_request("messages_cached"), "stream": True}


async def test_documents_and_images_become_their_blocks(serve: Serve) -> None:
    server = serve("messages_documents")
    pdf = Content.from_data(
        b"%PDF-1.4 invoice", "application/pdf", additional_properties={"filename": "invoice.pdf"}
    )
    png = Content.from_data(b"\x89PNG red square", "image/png")
    notes = Content.from_data(b"Total: 120 EUR", "text/plain")
    linked = Content.from_uri("https://example.com/scan.pdf", "application/pdf")
    photo = Content.from_uri("https://example.com/cat.jpg", "image/jpeg")

    response = await client_for(server).get_response(
        Message("user", ["What do these show?", pdf, png, notes, linked, photo])
    )

    assert response.text.startswith("The invoice totals 120 EUR")
    assert server.bodies[0]["messages"][0]["content"] == [
        {"type": "text", "text": "What do these show?"},
        {
            "type": "document",
            "source": {
                "type": "base64",
                "media_type": "application/pdf",
                "data": base64.b64encode(b"%PDF-1.4 invoice").decode(),
            },
            "title": "invoice.pdf",
        },
        {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": base64.b64encode(b"\x89PNG red square").decode(),
            },
        },
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "Total: 120 EUR"},
        },
        {"type": "document", "source": {"type": "url", "url": "https://example.com/scan.pdf"}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
    ]


async def test_structured_output_uses_the_json_output_format(serve: Serve) -> None:
    server = serve("messages_structured")
    client = client_for(server, structured_output="json_schema")

    response = await client.get_response(
        "Lyon is a city in France. Give its city and country.",
        options={"response_format": CityFacts},
    )

    assert response.value == CityFacts(city="Lyon", country="France")
    assert server.bodies[0]["output_config"] == {
        "format": {"type": "json_schema", "schema": transform_schema(CityFacts)}
    }
    assert "tools" not in server.bodies[0]
