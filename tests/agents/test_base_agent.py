from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from agentry import (
    AgentContext,
    AgentResponse,
    AgentResponseUpdate,
    AgentSession,
    BaseAgent,
    Content,
    Message,
    SupportsAgentRun,
    agent_middleware,
)


class EchoAgent(BaseAgent):
    """A custom agent: one coroutine `run`."""

    async def run(
        self, messages: list[Message], *, session: AgentSession | None = None, **kwargs: Any
    ) -> str:
        return f"You said: {messages[-1].text}"


class CountingAgent(BaseAgent):
    """A custom agent: one async-generator `run` that emits events and asks for approval."""

    async def run(
        self, messages: list[Message], *, session: AgentSession | None = None, **kwargs: Any
    ) -> AsyncIterator[AgentResponseUpdate]:
        for number in range(3):
            yield AgentResponseUpdate(role="assistant", contents=[f"{number} "])
        call = Content.from_function_call(call_id="x", name="launch", arguments={})
        yield AgentResponseUpdate(
            role="assistant",
            contents=[Content.from_function_approval_request(id="x", function_call=call)],
        )


async def test_a_coroutine_run_supports_plain_and_streaming_calls() -> None:
    agent = cast(SupportsAgentRun, EchoAgent(name="echo"))
    assert isinstance(agent, SupportsAgentRun)
    response = await agent.run("hi")
    assert isinstance(response, AgentResponse)
    assert response.text == "You said: hi"
    assert response.agent_id == agent.id
    assert [u.text async for u in agent.run("yo", stream=True)] == ["You said: yo"]


async def test_a_generator_run_streams_events_and_folds_them() -> None:
    agent = cast(SupportsAgentRun, CountingAgent())
    updates = [u async for u in agent.run("count", stream=True)]
    assert [u.text for u in updates[:3]] == ["0 ", "1 ", "2 "]
    response = await agent.run("count")
    assert response.text == "0 1 2 "
    assert [r.id for r in response.user_input_requests] == ["x"]


async def test_agent_middleware_applies_to_custom_agents() -> None:
    seen: list[str] = []

    @agent_middleware
    async def spy(context: AgentContext, call_next: Any) -> None:
        seen.append(context.messages[-1].text)
        await call_next()

    agent = cast(SupportsAgentRun, EchoAgent(middleware=[spy]))
    await agent.run("a")
    [_ async for _ in agent.run("b", stream=True)]
    assert seen == ["a", "b"]


async def test_custom_agents_are_tools_too() -> None:
    echo_tool = EchoAgent(name="echo", description="Echoes.").as_tool()
    assert echo_tool.description == "Echoes."
    assert await echo_tool.invoke(arguments={"task": "ping"}) == "You said: ping"


def test_a_run_that_is_not_async_is_refused_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match=r"SyncAgent.run must be async: write `async def run"):

        class SyncAgent(BaseAgent):  # pyright: ignore[reportUnusedClass]
            def run(self, messages: list[Message], *, session: Any = None) -> str:  # type: ignore[override]
                return "hi"
