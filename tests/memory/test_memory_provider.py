"""MemoryContextProvider: memories the model keeps, per session, through real agent runs."""

from __future__ import annotations

import pytest

from agentry import Agent, AgentSession, MemoryContextProvider
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import SessionError

call = ScriptedChatClient.function_call


def system_text(model: ScriptedChatClient, turn: int) -> str:
    first = model.calls[turn].messages[0]
    assert first.role == "system"
    return first.text


async def test_a_remembered_fact_is_in_the_next_runs_instructions() -> None:
    memory = MemoryContextProvider()
    model = ScriptedChatClient(
        [call("memory_remember", {"text": "The user is called Ada."}), "Hello Ada.", "Ada."]
    )
    agent = Agent(client=model, instructions="Be brief.", context_providers=[memory])
    session = AgentSession()

    await agent.run("I am Ada.", session=session)
    await agent.run("Who am I?", session=session)

    assert "You remember nothing yet." in system_text(model, 0)
    assert last_result_of_turn(model, 1) == "Remembered as number 1."
    assert system_text(model, 2).startswith("Be brief.\n")
    assert "What you remember:\n1. The user is called Ada." in system_text(model, 2)
    assert memory.memories(session) == ["The user is called Ada."]
    assert [t.name for t in model.calls[0].options.get("tools", [])] == [
        "memory_remember",
        "memory_forget",
    ]


def last_result_of_turn(model: ScriptedChatClient, turn: int) -> str:
    return next(
        str(c.result)
        for c in model.calls[turn].messages[-1].contents
        if c.type == "function_result"
    )


async def test_memories_stay_in_their_session_and_travel_with_it() -> None:
    memory = MemoryContextProvider()
    model = ScriptedChatClient([call("memory_remember", {"text": "Likes tea."}), "Noted."])
    agent = Agent(client=model, context_providers=[memory])
    tea_drinker = AgentSession()
    await agent.run("I like tea.", session=tea_drinker)

    stranger = AgentSession()
    model.add("Hi.")
    await agent.run("Hi.", session=stranger)
    assert "You remember nothing yet." in system_text(model, -1)

    restored = AgentSession.from_dict(tea_drinker.to_dict())
    model.add("Tea.")
    await agent.run("What do I like?", session=restored)
    assert "1. Likes tea." in system_text(model, -1)


async def test_forgetting_and_the_errors_the_model_can_act_on() -> None:
    memory = MemoryContextProvider(max_memories=2, max_chars=20)
    model = ScriptedChatClient([])
    agent = Agent(client=model, context_providers=[memory])
    session = AgentSession()

    async def tool_says(name: str, arguments: dict[str, object]) -> str:
        model.add(call(name, arguments), "ok")
        await agent.run("go", session=session)
        return last_result_of_turn(model, -1)

    assert await tool_says("memory_remember", {"text": "One."}) == "Remembered as number 1."
    assert await tool_says("memory_remember", {"text": "One."}) == "Already remembered as number 1."
    assert await tool_says("memory_remember", {"text": "x" * 21}) == (
        "Error: a memory holds at most 20 characters; shorten it."
    )
    assert await tool_says("memory_remember", {"text": "Two."}) == "Remembered as number 2."
    assert await tool_says("memory_remember", {"text": "Three."}) == (
        "Error: the memory is full (2 memories); forget one with memory_forget first."
    )
    assert await tool_says("memory_forget", {"number": 3}) == (
        "Error: there is no memory number 3 (numbers: 1 to 2)."
    )
    assert await tool_says("memory_forget", {"number": 1}) == "Forgot: One."
    assert memory.memories(session) == ["Two."]


async def test_memory_state_changed_outside_the_provider_is_a_clear_error() -> None:
    agent = Agent(client=ScriptedChatClient(["hi"]), context_providers=[MemoryContextProvider()])
    session = AgentSession()
    session.state["memory"] = {"memories": "not a list"}
    with pytest.raises(SessionError, match="memory state is not a list of texts"):
        await agent.run("hi", session=session)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_memories must be at least 1, not 0"):
        MemoryContextProvider(max_memories=0)
