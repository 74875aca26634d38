"""What a run skips when nothing needs it, and what it still does when something does.

A run without middleware, context providers, tool sources or a telemetry observer of chat
calls asks its client directly and checks the options once; these tests hold each of the
parts it can skip to still working when present (tests/observability holds observers).
"""

from __future__ import annotations

from typing import Any

import pytest

from agentry import (
    Agent,
    AgentContext,
    AgentSession,
    ChatContext,
    ContextProvider,
    SessionContext,
    agent_middleware,
    chat_middleware,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import ChatOptions


@tool(run_inline=True)
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def _round_trip_client(**kwargs: Any) -> ScriptedChatClient:
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="c1")
    return ScriptedChatClient([call, "It is sunny."], **kwargs)


async def test_a_client_that_overrides_get_response_is_asked_through_it() -> None:
    asked: list[int] = []

    class CountingClient(ScriptedChatClient):
        def get_response(  # pyright: ignore[reportIncompatibleMethodOverride]
            self, messages: Any, *, stream: bool = False, options: ChatOptions | None = None
        ) -> Any:
            asked.append(len(messages))
            return super().get_response(messages, stream=stream, options=options)

    client = CountingClient([ScriptedChatClient.function_call("get_weather", {"city": "Paris"})])
    client.add("It is sunny.")
    response = await Agent(client=client, tools=[get_weather]).run("Weather in Paris?")

    assert response.text.endswith("It is sunny.")
    assert asked == [1, 3]  # the question; then the question, the call and its result


async def test_options_an_agent_middleware_sets_are_checked_before_the_model_is_asked() -> None:
    @agent_middleware
    async def misspell(context: AgentContext, call_next: Any) -> None:
        context.options = {"temprature": 0}  # pyright: ignore[reportAttributeAccessIssue]
        await call_next()

    client = ScriptedChatClient(["never sent"])
    agent = Agent(client=client, middleware=[misspell])

    with pytest.raises(TypeError, match=r"'temprature' \(did you mean 'temperature'\?\)"):
        await agent.run("hi")
    assert client.calls == []


async def test_client_middleware_sees_every_model_call_of_a_run() -> None:
    seen: list[str] = []

    @chat_middleware
    async def spy(context: ChatContext, call_next: Any) -> None:
        seen.append(context.messages[-1].role)
        await call_next()

    client = _round_trip_client(middleware=[spy])
    await Agent(client=client, tools=[get_weather]).run("Weather in Paris?")

    assert seen == ["user", "tool"]


async def test_a_run_without_a_session_still_consults_providers_that_keep_no_history() -> None:
    events: list[str] = []

    class Notes(ContextProvider):
        async def before_run(
            self, *, agent: Any, session: AgentSession, context: SessionContext, state: Any
        ) -> None:
            events.append("before")
            context.extend_instructions(self.source_id, "Answer in French.")

        async def after_run(
            self, *, agent: Any, session: AgentSession, context: SessionContext, state: Any
        ) -> None:
            assert context.response is not None
            events.append(f"after: {context.response.text}")

    client = ScriptedChatClient(["Il fait beau."])
    response = await Agent(client=client, context_providers=[Notes("notes")]).run("Weather?")

    assert response.text == "Il fait beau."
    assert events == ["before", "after: Il fait beau."]
    assert client.calls[0].messages[0].text == "Answer in French."
