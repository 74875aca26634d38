"""A run's answer is validated against its response format, streamed or not: the model is
asked again with the validation errors, then the run fails with the raw text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import assert_type

from agentry import Agent, AgentResponse, AgentSession, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import OutputValidationError, StructuredOutputError
from agentry.types import ChatResponse, UsageDetails


class Person(BaseModel):
    name: str
    age: int


NOT_JSON = "Sure! Ann is 31."
WRONG_SHAPE = '{"name": "Ann"}'
VALID = '{"name": "Ann", "age": 31}'
PERSON_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


def _reply(text: str, tokens: int = 10) -> ChatResponse:
    usage: UsageDetails = {
        "input_token_count": tokens,
        "output_token_count": 1,
        "total_token_count": tokens + 1,
    }
    return ScriptedChatClient.reply(text, usage_details=usage)


async def _run_person(
    agent: Agent,
    *,
    stream: bool,
    session: AgentSession | None = None,
    output_retries: int | None = None,
) -> AgentResponse[Person]:
    if not stream:
        return await agent.run(
            "Who is Ann?",
            response_format=Person,
            session=session,
            output_retries=output_retries,
        )
    updates = agent.run(
        "Who is Ann?",
        stream=True,
        response_format=Person,
        session=session,
        output_retries=output_retries,
    )
    async for _ in updates:
        pass
    return await updates.get_final_response()


@pytest.mark.parametrize("stream", [False, True])
async def test_the_model_is_asked_again_until_its_answer_validates(stream: bool) -> None:
    client = ScriptedChatClient([_reply(NOT_JSON), _reply(WRONG_SHAPE), _reply(VALID)])
    agent = Agent(client=client, output_retries=2)

    response = await _run_person(agent, stream=stream)

    person: Person = response.value
    assert_type(response.value, Person)
    assert person == Person(name="Ann", age=31)
    assert len(client.calls) == 3
    first_feedback = client.calls[1].messages[-1]
    assert first_feedback.role == "user"
    assert "Invalid JSON" in first_feedback.text
    second_feedback = client.calls[2].messages[-1]
    assert "age: Field required" in second_feedback.text
    assert client.calls[2].messages[-2].text == WRONG_SHAPE
    assert [m.role for m in response.messages] == [
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert response.usage_details == {
        "input_token_count": 30,
        "output_token_count": 3,
        "total_token_count": 33,
    }


@pytest.mark.parametrize("stream", [False, True])
async def test_the_run_fails_with_the_raw_text_when_the_retries_are_spent(stream: bool) -> None:
    client = ScriptedChatClient([NOT_JSON, WRONG_SHAPE, VALID])
    agent = Agent(client=client)  # one output retry by default
    session = AgentSession()

    with pytest.raises(OutputValidationError, match="after 2 answers") as caught:
        await _run_person(agent, stream=stream, session=session)

    assert caught.value.text == WRONG_SHAPE
    assert caught.value.errors == ["age: Field required"]
    assert caught.value.attempts == 2
    assert isinstance(caught.value, StructuredOutputError)
    assert client.remaining == 1

    # the failed run left no half-written turn in the session
    client.add("Hello again.")
    await agent.run("Hi", session=session)
    assert [m.text for m in client.calls[-1].messages] == ["Hi"]


@pytest.mark.parametrize("stream", [False, True])
async def test_output_retries_of_a_run_replace_the_agents(stream: bool) -> None:
    client = ScriptedChatClient([NOT_JSON, VALID])
    agent = Agent(client=client, output_retries=3)

    with pytest.raises(OutputValidationError) as caught:
        await _run_person(agent, stream=stream, output_retries=0)

    assert caught.value.text == NOT_JSON
    assert caught.value.attempts == 1
    assert len(client.calls) == 1


@pytest.mark.parametrize("stream", [False, True])
async def test_a_json_schema_is_checked_and_its_value_is_the_json(stream: bool) -> None:
    client = ScriptedChatClient([WRONG_SHAPE, VALID])
    agent = Agent(client=client)

    if stream:
        response = await agent.run("Who?", stream=True, response_format=PERSON_SCHEMA)
    else:
        response = await agent.run("Who?", response_format=PERSON_SCHEMA)

    assert response.value == {"name": "Ann", "age": 31}
    assert "'age' is a required property" in client.calls[1].messages[-1].text


async def test_a_response_format_in_the_options_is_validated_the_same_way() -> None:
    client = ScriptedChatClient([WRONG_SHAPE, VALID])
    agent = Agent(client=client, default_options={"response_format": Person})

    response = await agent.run("Who?")

    assert response.value == Person(name="Ann", age=31)
    assert client.calls[0].options.get("response_format") is Person


async def test_streamed_and_plain_runs_give_the_same_response() -> None:
    def script() -> list[str]:
        return [NOT_JSON, VALID]

    plain = await Agent(client=ScriptedChatClient(script())).run("Who?", response_format=Person)
    streamed = await Agent(client=ScriptedChatClient(script(), chunk_size=4)).run(
        "Who?", stream=True, response_format=Person
    )

    assert [(m.role, m.text) for m in streamed.messages] == [
        (m.role, m.text) for m in plain.messages
    ]
    assert streamed.value == plain.value == Person(name="Ann", age=31)


async def test_the_answer_after_tool_calls_is_what_validates() -> None:
    looked_up: list[str] = []

    @tool
    def find_person(name: str) -> str:
        """Find a person by name."""
        looked_up.append(name)
        return "Ann, 31 years old"

    lookup = ScriptedChatClient.function_call("find_person", {"name": "Ann"})
    lookup.messages[0].contents.insert(
        0, ScriptedChatClient.reply("Let me look.").messages[0].contents[0]
    )
    client = ScriptedChatClient([lookup, VALID])
    agent = Agent(client=client, tools=[find_person])

    response = await agent.run("How old is Ann?", response_format=Person)

    assert looked_up == ["Ann"]
    assert response.value.age == 31
    assert len(client.calls) == 2


def test_output_retries_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="output_retries must be 0 or more"):
        Agent(client=ScriptedChatClient(), output_retries=-1)


async def test_a_run_without_response_format_has_an_untyped_value() -> None:
    response = await Agent(client=ScriptedChatClient(["plain"])).run("Hi")
    assert_type(response.value, Any)
    schema: Mapping[str, object] = PERSON_SCHEMA
    assert_type(
        await Agent(client=ScriptedChatClient([VALID])).run("Hi", response_format=schema),
        AgentResponse[Any],
    )
    assert response.value is None
