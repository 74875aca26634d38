from __future__ import annotations

import asyncio

from agentry import ChatOptions, Message
from agentry.orchestrations import AGENT_TURN_EVENT, AgentReply, ConcurrentOrchestrator
from agentry.workflows import InMemoryCheckpointStorage

from ._helpers import checkpoint_after, client_of, events_of, scripted, seen, texts


def meeting(count: int) -> tuple[list[str], object]:
    """A script function that answers only once `count` agents are all waiting in it.

    If the agents ran one after another, the first would wait forever (the test then
    fails on its timeout): finishing proves they were all running at the same time.
    """
    arrived: list[str] = []
    everyone = asyncio.Event()

    def answer(name: str):  # type: ignore[no-untyped-def]
        async def respond(messages: list[Message], options: ChatOptions) -> str:
            arrived.append(name)
            if len(arrived) == count:
                everyone.set()
            await asyncio.wait_for(everyone.wait(), timeout=5)
            return f"{name} answers {messages[-1].text}"

        return respond

    return arrived, answer


async def test_all_agents_run_at_the_same_time() -> None:
    arrived, answer = meeting(3)
    agents = [scripted(n, answer(n)) for n in ("a", "b", "c")]  # type: ignore[operator]
    workflow = ConcurrentOrchestrator(participants=agents).build()

    result = await workflow.run("Q?")

    assert sorted(arrived) == ["a", "b", "c"]
    assert texts(result.get_outputs()[0]) == ["a answers Q?", "b answers Q?", "c answers Q?"]
    assert sorted(events_of(result, AGENT_TURN_EVENT)) == ["a", "b", "c"]


async def test_every_agent_gets_the_same_input_only() -> None:
    a, b = scripted("a", "A."), scripted("b", "B.")
    await ConcurrentOrchestrator(participants=[a, b]).build().run("Same.")
    assert seen(a) == seen(b) == [("user", "Same.")]


async def test_default_aggregation_keeps_participant_order() -> None:
    slow = scripted("slow", "Slow.")
    slow.client.delay = 0.05  # type: ignore[attr-defined]
    fast = scripted("fast", "Fast.")
    result = await ConcurrentOrchestrator(participants=[slow, fast]).build().run("Go.")
    assert [(m.author_name, m.text) for m in result.get_outputs()[0]] == [
        ("slow", "Slow."),
        ("fast", "Fast."),
    ]


async def test_a_custom_aggregator_combines_the_replies() -> None:
    async def vote(replies: list[AgentReply]) -> str:
        yes = sum("yes" in r.text.lower() for r in replies)
        return f"{yes} of {len(replies)} said yes ({', '.join(r.agent for r in replies)})"

    agents = [scripted("a", "Yes."), scripted("b", "No."), scripted("c", "yes!")]
    orchestration = ConcurrentOrchestrator(participants=agents).with_aggregator(vote)

    result = await orchestration.build().run("Ship it?")

    assert result.get_outputs() == ["2 of 3 said yes (a, b, c)"]


async def test_as_agent_returns_the_aggregated_answer() -> None:
    agents = [scripted("a", "A."), scripted("b", "B.")]
    agent = ConcurrentOrchestrator(
        participants=agents, aggregator=lambda rs: "|".join(r.text for r in rs)
    ).as_agent()  # pyright: ignore[reportUnknownLambdaType, reportUnknownMemberType, reportUnknownArgumentType]
    assert (await agent.run("Go.")).text == "A.|B."


async def test_resumes_when_only_the_aggregation_is_left() -> None:
    storage = InMemoryCheckpointStorage()
    first = ConcurrentOrchestrator(
        participants=[scripted("a", "A."), scripted("b", "B.")], checkpoint_storage=storage
    ).build()
    await first.run("Go.")

    checkpoint_id = await checkpoint_after(storage, first, 2)
    idle_a, idle_b = scripted("a"), scripted("b")
    second = ConcurrentOrchestrator(participants=[idle_a, idle_b]).build()
    resumed = await second.run(checkpoint_id=checkpoint_id, checkpoint_storage=storage)

    assert texts(resumed.get_outputs()[0]) == ["A.", "B."]
    assert not client_of(idle_a).calls
    assert not client_of(idle_b).calls
