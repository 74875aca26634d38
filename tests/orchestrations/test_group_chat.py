from __future__ import annotations

import pytest

from agentry import Message
from agentry.orchestrations import (
    AGENT_TURN_EVENT,
    TERMINATED_EVENT,
    GroupChatOrchestrator,
    GroupChatState,
    KeywordTermination,
    MaxRounds,
    TerminationContext,
)
from agentry.workflows import InMemoryCheckpointStorage

from ._helpers import as_json, checkpoint_after, client_of, events_of, scripted, seen, texts


async def test_round_robin_by_default_until_the_round_limit() -> None:
    alice = scripted("alice", "A1", "A2")
    bob = scripted("bob", "B1")
    chat = GroupChatOrchestrator(participants=[alice, bob], termination=MaxRounds(3))

    result = await chat.build().run("Discuss.")

    assert texts(result.get_outputs()[0]) == ["A1", "B1", "A2"]
    assert events_of(result, AGENT_TURN_EVENT) == ["alice", "bob", "alice"]
    assert events_of(result, TERMINATED_EVENT) == ["reached the limit of 3 rounds"]
    assert seen(alice) == [
        ("user", "Discuss."),
        ("assistant", "A1"),
        ("assistant", "B1"),
    ]


async def test_the_default_limit_is_ten_rounds() -> None:
    talker = scripted("talker", *[f"line {i}" for i in range(12)])
    result = await GroupChatOrchestrator(participants=[talker]).build().run("Go.")
    assert len(result.get_outputs()[0]) == 10


async def test_a_keyword_ends_the_chat() -> None:
    writer = scripted("writer", "Draft one.", "Draft two.")
    reviewer = scripted("reviewer", "Again.", "APPROVED.")
    chat = GroupChatOrchestrator(
        participants=[writer, reviewer], termination=KeywordTermination("approved") | MaxRounds(9)
    )
    result = await chat.build().run("Write.")
    assert texts(result.get_outputs()[0]) == ["Draft one.", "Again.", "Draft two.", "APPROVED."]
    assert events_of(result, TERMINATED_EVENT) == ["the keyword 'approved' was said"]


async def test_a_predicate_ends_the_chat() -> None:
    def two_from_bob(ctx: TerminationContext) -> bool:
        return sum(m.author_name == "bob" for m in ctx.conversation) == 2

    chat = GroupChatOrchestrator(
        participants=[scripted("alice", "A1", "A2"), scripted("bob", "B1", "B2")],
        termination=two_from_bob,
    )
    result = await chat.build().run("Go.")
    assert texts(result.get_outputs()[0]) == ["A1", "B1", "A2", "B2"]
    assert events_of(result, TERMINATED_EVENT) == ["two_from_bob held"]


async def test_a_selector_function_picks_speakers_and_can_end_the_chat() -> None:
    picks: list[GroupChatState] = []

    async def selector(state: GroupChatState) -> str | None:
        picks.append(state)
        return ["bob", "bob", "alice", None][state.rounds]

    chat = GroupChatOrchestrator(
        participants=[scripted("alice", "A1"), scripted("bob", "B1", "B2", description="Bob.")],
        manager=selector,
    )
    result = await chat.build().run("Go.")

    assert texts(result.get_outputs()[0]) == ["B1", "B2", "A1"]
    assert events_of(result, TERMINATED_EVENT) == ["the manager ended the conversation"]
    assert picks[0].participants == {"alice": "", "bob": "Bob."}
    assert picks[0].last_speaker is None
    assert picks[2].last_speaker == "bob"
    assert texts(picks[3].conversation) == ["Go.", "B1", "B2", "A1"]


async def test_an_agent_manager_picks_speakers() -> None:
    manager = scripted(
        "manager",
        as_json(next_speaker="bob"),
        as_json(next_speaker="alice"),
        as_json(next_speaker=None, reason="done"),
    )
    chat = GroupChatOrchestrator(
        participants=[scripted("alice", "A1"), scripted("bob", "B1", description="Bob knows.")]
    ).with_manager(manager)

    result = await chat.build().run("Go.")

    assert texts(result.get_outputs()[0]) == ["B1", "A1"]
    prompt = seen(manager, 0)[-1][1]
    assert "- bob: Bob knows." in prompt
    assert "next_speaker" in prompt
    assert seen(manager, 1)[:2] == [("user", "Go."), ("assistant", "B1")]
    assert client_of(manager).calls[0].options.get("response_format") is not None


async def test_an_unknown_pick_falls_back_to_round_robin_with_a_warning() -> None:
    manager = scripted("manager", as_json(next_speaker="zed"), as_json(next_speaker=None))
    chat = GroupChatOrchestrator(participants=[scripted("alice", "A1")], manager=manager)
    result = await chat.build().run("Go.")
    assert texts(result.get_outputs()[0]) == ["A1"]
    (warning,) = events_of(result, "warning")
    assert "'zed', who is not a participant (alice); 'alice' speaks instead" in warning


async def test_resumes_mid_chat_from_a_checkpoint() -> None:
    storage = InMemoryCheckpointStorage()
    first = GroupChatOrchestrator(
        participants=[scripted("alice", "A1", "A2"), scripted("bob", "B1")],
        termination=3,
        checkpoint_storage=storage,
    ).build()
    expected = texts((await first.run("Go.")).get_outputs()[0])

    # Superstep 4 ends after bob's turn: alice has one turn left.
    checkpoint_id = await checkpoint_after(storage, first, 4)
    alice, bob = scripted("alice", "A2"), scripted("bob")
    second = GroupChatOrchestrator(participants=[alice, bob], termination=3).build()
    resumed = await second.run(checkpoint_id=checkpoint_id, checkpoint_storage=storage)

    assert texts(resumed.get_outputs()[0]) == expected == ["A1", "B1", "A2"]
    assert seen(alice) == [("user", "Go."), ("assistant", "A1"), ("assistant", "B1")]
    assert not client_of(bob).calls


def test_the_manager_must_be_a_selector_or_an_agent() -> None:
    with pytest.raises(TypeError, match="speaker selector or an agent"):
        GroupChatOrchestrator(participants=[scripted("a")], manager="a")  # type: ignore[arg-type]


async def test_as_agent_returns_the_chat() -> None:
    chat = GroupChatOrchestrator(
        participants=[scripted("a", "Hi."), scripted("b", "Hello.")], termination=2
    )
    response = await chat.as_agent(name="room").run([Message("user", ["Greet."])])
    assert [(m.author_name, m.text) for m in response.messages] == [("a", "Hi."), ("b", "Hello.")]
