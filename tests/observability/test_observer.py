"""A custom telemetry observer sees agent runs, model calls and tool calls."""

from __future__ import annotations

from collections.abc import Awaitable, Iterator
from typing import Any

import pytest

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import (
    TelemetryObserver,
    get_telemetry_observer,
    set_telemetry_observer,
)
from agentry.types import AgentResponse, ChatOptions, ChatResponse, Message


class RecordingObserver(TelemetryObserver):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def agent_response(
        self,
        agent: Any,
        messages: list[Message],
        session: Any,
        options: Any,
        response: Awaitable[AgentResponse],
    ) -> Awaitable[AgentResponse]:
        self.seen.append(f"agent {agent.name}")
        return response

    def chat_response(
        self,
        client: Any,
        messages: list[Message],
        options: ChatOptions,
        response: Awaitable[ChatResponse],
    ) -> Awaitable[ChatResponse]:
        self.seen.append("chat")
        return response

    def tool_calls(self, invoke_one: Any) -> Any:
        self.seen.append("tools")
        return invoke_one


@pytest.fixture
def observer() -> Iterator[RecordingObserver]:
    recording = RecordingObserver()
    set_telemetry_observer(recording)
    try:
        yield recording
    finally:
        set_telemetry_observer(None)


@tool
def get_weather(city: str) -> str:
    """The weather in `city`."""
    return f"Sunny in {city}."


async def test_an_installed_observer_sees_the_run_each_model_call_and_the_tool_calls(
    observer: RecordingObserver,
) -> None:
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("get_weather", {"city": "Oslo"}), "Sunny."]
    )
    agent = Agent(name="forecaster", client=client, tools=[get_weather])
    assert (await agent.run("Weather?")).text == "Sunny."
    assert observer.seen == ["agent forecaster", "chat", "tools", "chat"]


def test_removing_the_observer_restores_the_do_nothing_one() -> None:
    set_telemetry_observer(RecordingObserver())
    set_telemetry_observer(None)
    assert type(get_telemetry_observer()) is TelemetryObserver
