"""Agents answer Responses API requests of the `openai` SDK, and continue stored ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar, cast

import httpx
import pytest
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFailedEvent,
    ResponseIncompleteEvent,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
)

import openai
from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ChatClientError
from agentry.openai import OpenAIChatClient
from agentry.openai.server import InMemoryResponseStore, SQLResponseStore, StoredResponse
from agentry.types import ChatResponse, Message, UsageDetails
from tests.openai_server.conftest import openai_client, serve


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def weather_agent(*answers: Any, chunk_size: int | None = None) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient(answers, chunk_size=chunk_size)
    return Agent(client=client, name="weather", tools=[get_weather]), client


EventT = TypeVar("EventT")


def last(events: list[ResponseStreamEvent], kind: type[EventT]) -> EventT:
    """The last event, which must be a `kind`."""
    final = events[-1]
    assert isinstance(final, kind), final
    return final


def text_deltas(events: list[ResponseStreamEvent]) -> list[str]:
    return [e.delta for e in events if isinstance(e, ResponseTextDeltaEvent)]


def answer(text: str) -> ChatResponse:
    usage = cast(UsageDetails, {"input_token_count": 20, "output_token_count": 6})
    cast(dict[str, int], usage)["cached_input_token_count"] = 4
    return ChatResponse(messages=[Message("assistant", [text])], usage_details=usage)


def sent(model: ScriptedChatClient, call: int) -> list[tuple[str, str]]:
    """(role, what) of each message of a model call: its text, or its tool call or result."""
    rows: list[tuple[str, str]] = []
    for message in model.calls[call].messages:
        for content in message.contents:
            if content.type == "text":
                rows.append((message.role, content.text or ""))
            elif content.type == "function_call":
                rows.append((message.role, f"call {content.name}"))
            elif content.type == "function_result":
                rows.append((message.role, f"result {content.result}"))
    return rows


async def test_a_response_is_the_agents_answer_with_its_usage() -> None:
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"})
    agent, model = weather_agent(call, answer("Sunny in Paris."))
    async with serve(agent) as url, openai_client(url) as o:
        response = await o.responses.create(
            model="weather", input="Weather in Paris?", instructions="Be brief."
        )

    assert response.output_text == "Sunny in Paris."
    assert (response.status, response.model, response.instructions) == (
        "completed",
        "weather",
        "Be brief.",
    )
    assert response.id.startswith("resp_")
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (20, 6)
    assert response.usage.input_tokens_details.cached_tokens == 4
    assert sent(model, 1)[-2:] == [
        ("assistant", "call get_weather"),
        ("tool", "result Sunny in Paris"),
    ]
    assert sent(model, 0)[0] == ("system", "Be brief.")


async def test_a_response_continues_the_stored_conversation_it_names() -> None:
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"})
    agent, model = weather_agent(call, "Sunny in Paris.", "Rome too.", "Other branch.")
    async with serve(agent) as url, openai_client(url) as o:
        first = await o.responses.create(
            model="weather", input="Weather in Paris?", instructions="Be brief."
        )
        second = await o.responses.create(
            model="weather", input="And Rome?", previous_response_id=first.id
        )
        branch = await o.responses.create(
            model="weather", input="And Oslo?", previous_response_id=first.id
        )

    assert second.previous_response_id == first.id
    assert sent(model, 2) == [
        ("user", "Weather in Paris?"),
        ("assistant", "call get_weather"),
        ("tool", "result Sunny in Paris"),
        ("assistant", "Sunny in Paris."),
        ("user", "And Rome?"),
    ]
    assert sent(model, 3)[-2:] == [("assistant", "Sunny in Paris."), ("user", "And Oslo?")]
    assert branch.output_text == "Other branch."


async def test_a_response_not_stored_cannot_be_continued_or_read() -> None:
    agent, _ = weather_agent("Hi.")
    async with serve(agent) as url, openai_client(url) as o:
        unstored = await o.responses.create(model="weather", input="Hello", store=False)
        with pytest.raises(openai.BadRequestError, match="no stored response") as caught:
            await o.responses.create(model="weather", input="Hi", previous_response_id=unstored.id)
        with pytest.raises(openai.NotFoundError):
            await o.responses.retrieve(unstored.id)

    assert caught.value.param == "previous_response_id"


async def test_a_stored_response_is_read_back_and_deleted() -> None:
    agent, _ = weather_agent("One.", "Two.")
    async with serve(agent) as url, openai_client(url) as o:
        first = await o.responses.create(model="weather", input="1")
        second = await o.responses.create(model="weather", input="2", previous_response_id=first.id)
        read = await o.responses.retrieve(second.id)
        await o.responses.delete(first.id)
        with pytest.raises(openai.NotFoundError):
            await o.responses.retrieve(first.id)
        with pytest.raises(openai.BadRequestError, match=f"continues '{first.id}', which is no"):
            await o.responses.create(model="weather", input="3", previous_response_id=second.id)
        with pytest.raises(openai.NotFoundError):
            await o.responses.delete(first.id)

    assert read.model_dump() == second.model_dump()


async def test_a_stream_sends_the_events_of_the_api_and_is_stored_too() -> None:
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"})
    agent, model = weather_agent(
        ChatResponse(messages=[Message("assistant", ["Looking.", *call.messages[0].contents])]),
        "Sunny in Paris, 24 degrees.",
        "Noted.",
        chunk_size=5,
    )
    async with serve(agent) as url, openai_client(url) as o:
        events = [
            e
            async for e in await o.responses.create(model="weather", input="Weather?", stream=True)
        ]
        done = last(events, ResponseCompletedEvent)
        await o.responses.create(
            model="weather", input="Thanks", previous_response_id=done.response.id
        )

    kinds = [e.type for e in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = text_deltas(events)
    assert len(deltas) > 4
    assert "".join(deltas) == done.response.output_text == "Looking.\nSunny in Paris, 24 degrees."
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert sent(model, 2)[-2:] == [("assistant", "Sunny in Paris, 24 degrees."), ("user", "Thanks")]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_json_schema_answer_is_validated_and_asked_again(stream: bool) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    agent, model = weather_agent('{"n": "two"}', '{"n": 2}', chunk_size=3)
    text: Any = {"format": {"type": "json_schema", "name": "count", "schema": schema}}
    async with serve(agent) as url, openai_client(url) as o:
        if stream:
            events = [
                e
                async for e in await o.responses.create(
                    model="weather", input="Count", text=text, stream=True
                )
            ]
            deltas = text_deltas(events)
            final = last(events, ResponseCompletedEvent).response
        else:
            final = await o.responses.create(model="weather", input="Count", text=text)
            deltas = [final.output_text]

    assert len(model.calls) == 2
    assert len(deltas) == 1
    assert json.loads(deltas[0]) == json.loads(final.output_text) == {"n": 2}


async def test_input_items_reach_the_model_as_messages() -> None:
    agent, model = weather_agent("Seen.")
    pixel = "data:image/png;base64,iVBORw0KGgo="
    items: Any = [
        {"role": "developer", "content": "Answer in French."},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Weather here?"},
                {"type": "input_image", "image_url": pixel},
            ],
        },
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": "Sunny in Paris"},
        {
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
        },
        {"role": "user", "content": "Thanks"},
    ]
    async with serve(agent) as url, openai_client(url) as o:
        await o.responses.create(model="weather", input=items)

    assert sent(model, 0) == [
        ("system", "Answer in French."),
        ("user", "Weather here?"),
        ("assistant", "call get_weather"),
        ("tool", "result Sunny in Paris"),
        ("assistant", "Sunny."),
        ("user", "Thanks"),
    ]
    image = model.calls[0].messages[1].contents[1]
    assert (image.type, image.media_type) == ("data", "image/png")


REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"tools": [{"type": "web_search"}]}, "tools.0.type: Input should be 'function'"),
    ({"reasoning": {"effort": "low"}}, "reasoning: not supported by this server"),
    (
        {"input": [{"type": "reasoning", "id": "r1", "summary": []}]},
        "input.0: an input item's type must be",
    ),
]


@pytest.mark.parametrize(("extra", "says"), REFUSED)
async def test_a_request_the_agent_cannot_honour_is_refused_by_name(
    extra: dict[str, Any], says: str
) -> None:
    agent, model = weather_agent("Hi.")
    async with serve(agent) as url, httpx.AsyncClient() as http:
        refused = await http.post(
            f"{url}/responses", json={"model": "weather", "input": "Hi", **extra}
        )

    assert refused.status_code == 400
    assert says in refused.json()["error"]["message"]
    assert model.calls == []


async def test_a_model_failure_is_a_status_or_a_failed_event() -> None:
    failure = ChatClientError("upstream broke", status_code=500)
    late = [ScriptedChatClient.function_call("get_weather", {"city": "Paris"}), failure]
    early = Agent(client=ScriptedChatClient([failure], retry=None), name="early")
    agent = Agent(client=ScriptedChatClient(late, retry=None), name="late", tools=[get_weather])
    async with serve({"early": early, "late": agent}) as url, openai_client(url) as o:
        with pytest.raises(openai.APIStatusError) as caught:
            await o.responses.create(model="early", input="Hi", stream=True)
        events = [e async for e in await o.responses.create(model="late", input="Hi", stream=True)]

    assert caught.value.status_code == 502
    failed = last(events, ResponseFailedEvent)
    assert failed.response.error is not None
    assert "the agent's model failed: upstream broke" in failed.response.error.message


async def test_agentrys_responses_client_continues_a_served_conversation() -> None:
    served_agent, model = weather_agent("Hello Ada.", "Your name is Ada.")
    async with (
        serve(served_agent) as url,
        OpenAIChatClient("weather", base_url=url, api_key="unused") as remote,
    ):
        front = Agent(client=remote)
        session = front.create_session()
        await front.run("I am Ada.", session=session, options={"store": True})
        reply = await front.run("Who am I?", session=session, options={"store": True})

    assert reply.text == "Your name is Ada."
    assert sent(model, 1) == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "Who am I?"),
    ]


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'responses.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))


async def test_servers_sharing_a_database_continue_each_others_responses(database: str) -> None:
    one, _ = weather_agent("Noted, Ada.")
    other, model = weather_agent("You are Ada.")
    store_one, store_other = SQLResponseStore(database), SQLResponseStore(database)
    async with serve(one, response_store=store_one) as url_one, openai_client(url_one) as o:
        first = await o.responses.create(model="weather", input="I am Ada.")
    async with serve(other, response_store=store_other) as url_other, openai_client(url_other) as o:
        second = await o.responses.create(
            model="weather", input="Who am I?", previous_response_id=first.id
        )
        read_back = await o.responses.retrieve(first.id)

    assert second.output_text == "You are Ada."
    assert sent(model, 0) == [
        ("user", "I am Ada."),
        ("assistant", "Noted, Ada."),
        ("user", "Who am I?"),
    ]
    assert read_back.output_text == "Noted, Ada."


async def test_the_memory_store_forgets_the_least_recently_used_past_its_size() -> None:
    store = InMemoryResponseStore(max_responses=2)
    for name in ("a", "b"):
        await store.put(StoredResponse(name, None, [], {"id": name}))
    assert await store.get("a") is not None  # "a" is now the most recent
    await store.put(StoredResponse("c", None, [], {"id": "c"}))

    assert [await store.get(n) is not None for n in ("a", "b", "c")] == [True, False, True]
    with pytest.raises(ValueError, match="max_responses must be at least 1"):
        InMemoryResponseStore(max_responses=0)


async def test_an_answer_cut_at_the_token_limit_is_incomplete() -> None:
    cut = ChatResponse(messages=[Message("assistant", ["Sunny in Pa"])], finish_reason="length")
    agent, _ = weather_agent(cut, cut)
    async with serve(agent) as url, openai_client(url) as o:
        whole = await o.responses.create(model="weather", input="Weather?", max_output_tokens=4)
        events = [
            e
            async for e in await o.responses.create(model="weather", input="Weather?", stream=True)
        ]

    assert (whole.status, whole.output_text) == ("incomplete", "Sunny in Pa")
    assert whole.incomplete_details is not None
    assert whole.incomplete_details.reason == "max_output_tokens"
    assert last(events, ResponseIncompleteEvent).response.status == "incomplete"
