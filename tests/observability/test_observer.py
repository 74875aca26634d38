"""A custom telemetry observer sees agent runs, model calls and tool calls."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from typing import Any, Literal, TypeVar

import pytest

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import (
    TelemetryObserver,
    get_telemetry_observer,
    set_telemetry_observer,
)
from agentry.types import AgentResponse, ChatOptions, ChatResponse, Message
from tests.mcp.conftest import basic_stdio

T = TypeVar("T")


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


class RemoteCallRecorder(TelemetryObserver):
    """Records each remote call with the attributes an observer of its kind records."""

    def __init__(self, *, sensitive: bool) -> None:
        self.sensitive = sensitive
        self.calls: dict[str, Mapping[str, object]] = {}

    @property
    def records_sensitive_data(self) -> bool:
        return self.sensitive

    def remote_call(
        self,
        name: str,
        attributes: Mapping[str, object],
        call: Coroutine[Any, Any, T],
        *,
        side: Literal["client", "server"] = "client",
        sensitive_attributes: Callable[[], Mapping[str, object]] | None = None,
    ) -> Coroutine[Any, Any, T]:
        self.calls[name] = self.remote_call_attributes(attributes, sensitive_attributes)
        return call


@pytest.mark.parametrize("sensitive", [False, True])
async def test_a_custom_observer_gets_a_remote_calls_arguments_only_when_it_records_user_data(
    sensitive: bool,
) -> None:
    recorder = RemoteCallRecorder(sensitive=sensitive)
    set_telemetry_observer(recorder)
    try:
        async with basic_stdio() as server:
            result = await server.call_tool("add", {"a": 2, "b": 3})
    finally:
        set_telemetry_observer(None)

    assert result.structured_content == {"result": 5}
    attributes = recorder.calls["tools/call add"]
    assert attributes["gen_ai.tool.name"] == "add"
    assert attributes.get("gen_ai.tool.call.arguments") == (
        '{"a": 2, "b": 3}' if sensitive else None
    )
