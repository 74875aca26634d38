"""A workflow used as an agent keeps one conversation per session."""

from __future__ import annotations

import asyncio
from typing import Any

from typing_extensions import Never

from agentry.sessions import AgentSession
from agentry.types import Content, Message
from agentry.workflows import (
    Executor,
    WorkflowBuilder,
    WorkflowContext,
    handler,
    response_handler,
)
from agentry.workflows._workflow_agent import REQUEST_INFO_FUNCTION, WorkflowAgent


class Counter(Executor):
    """Counts the turns of its conversation, and asks for a name on the first one."""

    def __init__(self) -> None:
        super().__init__(id="counter")
        self.turns = 0
        self.name = ""

    @handler
    async def on_messages(self, messages: list[Message], ctx: WorkflowContext[Never, str]) -> None:
        self.turns += 1
        if not self.name:
            await ctx.request_info(messages[-1].text, str)
            return
        await ctx.yield_output(f"{self.name}, turn {self.turns}: {messages[-1].text}")

    @response_handler
    async def on_name(self, question: str, name: str, ctx: WorkflowContext[Never, str]) -> None:
        self.name = name
        await ctx.yield_output(f"hello {name} ({question})")

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {"turns": self.turns, "name": self.name}

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self.turns = state["turns"]
        self.name = state["name"]


def counter_agent() -> WorkflowAgent:
    return WorkflowBuilder(start_executor=Counter(), name="counter").build().as_agent()


def answer_to(response: Any, name: str) -> Message:
    (call,) = [c for m in response.messages for c in m.contents if c.type == "function_call"]
    assert call.name == REQUEST_INFO_FUNCTION
    return Message("user", [Content.from_function_result(call_id=call.call_id, result=name)])


async def test_each_session_has_its_own_run_and_executor_state() -> None:
    agent = counter_agent()
    ada, bob = agent.create_session(), agent.create_session()

    first_ada = await agent.run("hi", session=ada)
    first_bob = await agent.run("hey", session=bob)
    assert (await agent.run(answer_to(first_bob, "Bob"), session=bob)).text == "hello Bob (hey)"
    assert (await agent.run(answer_to(first_ada, "Ada"), session=ada)).text == "hello Ada (hi)"

    assert (await agent.run("again", session=ada)).text == "Ada, turn 2: again"
    assert (await agent.run("more", session=ada)).text == "Ada, turn 3: more"
    assert (await agent.run("once", session=bob)).text == "Bob, turn 2: once"


async def test_a_new_session_starts_from_the_initial_state() -> None:
    agent = counter_agent()
    used = agent.create_session()
    response = await agent.run("hi", session=used)
    await agent.run(answer_to(response, "Ada"), session=used)

    fresh = await agent.run("who am I?", session=agent.create_session())

    (call,) = [c for m in fresh.messages for c in m.contents if c.type == "function_call"]
    assert call.arguments == {"request_id": call.call_id, "data": "who am I?"}


async def test_a_serialised_session_continues_its_run_in_another_agent() -> None:
    session = counter_agent().create_session()
    first_agent = counter_agent()
    response = await first_agent.run("hi", session=session)

    restored = AgentSession.from_dict(session.to_dict())
    later_agent = counter_agent()

    answered = await later_agent.run(answer_to(response, "Ada"), session=restored)
    assert answered.text == "hello Ada (hi)"
    assert (await later_agent.run("next", session=restored)).text == "Ada, turn 2: next"


async def test_concurrent_sessions_take_turns() -> None:
    agent = counter_agent()
    sessions = [agent.create_session() for _ in range(5)]
    asked = await asyncio.gather(*(agent.run(f"q{i}", session=s) for i, s in enumerate(sessions)))

    answered = await asyncio.gather(
        *(
            agent.run(answer_to(response, f"user{i}"), session=session)
            for i, (response, session) in enumerate(zip(asked, sessions, strict=True))
        )
    )

    assert [r.text for r in answered] == [f"hello user{i} (q{i})" for i in range(5)]


async def test_a_stream_left_early_still_keeps_the_session() -> None:
    agent = counter_agent()
    session = agent.create_session()
    response = await agent.run("hi", session=session)
    await agent.run(answer_to(response, "Ada"), session=session)

    stream = agent.run("streamed", stream=True, session=session)
    async for _ in stream:
        break
    await stream.aclose()

    assert (await agent.run("after", session=session)).text.startswith("Ada, turn ")
