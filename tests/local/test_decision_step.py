"""The decision step with the real default model: answer, ask, follow-ups.

Temperature 0, so the model's choices repeat from run to run; the prompts are ones the
default model handles.
"""

from __future__ import annotations

from typing import Annotated

import pytest

from agentry import Agent, AgentResponse, tool
from agentry.local import LocalChatClient

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # a hang guard on a busy machine

calls: list[tuple[str, str]] = []


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    calls.append(("get_weather", city))
    return f"{city}: light rain, 14 °C" if city.lower() == "paris" else f"{city}: overcast, 6 °C"


@tool
def find_contact(name: str) -> str:
    """Look up a person in the user's address book: their email address and home city."""
    calls.append(("find_contact", name))
    return f"{name} Lopez: email maria.lopez@example.com, lives in Lisbon"


@tool
def send_email(
    to: Annotated[str, "The recipient's email address"],
    subject: Annotated[str, "The subject line"],
    body: Annotated[str, "The message text"],
) -> str:
    """Send an email on the user's behalf (it is really sent)."""
    calls.append(("send_email", to))
    return f"Email sent to {to}."


@pytest.fixture(scope="module")
def agent() -> Agent:
    client = LocalChatClient(max_tokens=96)
    return Agent(
        client=client,
        instructions="You are a helpful assistant.",
        tools=[get_weather, find_contact, send_email],
    )


def _calls(response: AgentResponse) -> list[str]:
    return [
        c.name or "" for m in response.messages for c in m.contents if c.type == "function_call"
    ]


async def test_a_prompt_that_needs_no_tool_is_answered_without_a_call(agent: Agent) -> None:
    calls.clear()
    response = await agent.run("Suggest a name for a grey kitten.")
    assert calls == []
    assert _calls(response) == []
    assert response.text.strip()


async def test_a_missing_argument_is_asked_for(agent: Agent) -> None:
    calls.clear()
    response = await agent.run("What's the weather like?")
    assert calls == []
    assert "?" in response.text


async def test_a_follow_up_calls_the_tool_again_for_the_new_subject(agent: Agent) -> None:
    calls.clear()
    session = agent.create_session()
    first = await agent.run("What's the weather in Paris?", session=session)
    assert "14" in first.text
    second = await agent.run("And in Montreal?", session=session)
    assert calls == [("get_weather", "Paris"), ("get_weather", "Montreal")]
    assert "6" in second.text


async def test_a_two_step_request_looks_up_a_value_then_calls_with_it(agent: Agent) -> None:
    calls.clear()
    response = await agent.run("What's the weather like where Maria lives?")
    assert calls == [("find_contact", "Maria"), ("get_weather", "Lisbon")]
    assert "6" in response.text


async def test_an_email_to_someone_named_looks_up_the_address_then_sends(agent: Agent) -> None:
    calls.clear()
    response = await agent.run("Send Maria an email saying the report is ready.")
    assert calls == [("find_contact", "Maria"), ("send_email", "maria.lopez@example.com")]
    assert response.text.strip()
