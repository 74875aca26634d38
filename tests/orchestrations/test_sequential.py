from __future__ import annotations

import pytest

from agentry import Agent, AgentResponse, AgentResponseUpdate, Message
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import (
    AGENT_TURN_EVENT,
    OrchestrationError,
    SequentialOrchestrator,
)
from agentry.workflows import InMemoryCheckpointStorage, WorkflowAgent

from ._helpers import checkpoint_after, client_of, events_of, scripted, seen, texts


async def test_agents_speak_in_order_and_each_sees_what_came_before() -> None:
    writer = scripted("writer", "A draft.")
    editor = scripted("editor", "An edit.")
    critic = scripted("critic", "A verdict.")
    workflow = SequentialOrchestrator(participants=[writer, editor, critic]).build()

    result = await workflow.run("Write a line.")

    (output,) = result.get_outputs()
    assert texts(output) == ["A draft.", "An edit.", "A verdict."]
    assert [m.author_name for m in output] == ["writer", "editor", "critic"]
    assert seen(writer) == [("user", "Write a line.")]
    assert seen(editor) == [("user", "Write a line."), ("assistant", "A draft.")]
    assert seen(critic) == [
        ("user", "Write a line."),
        ("assistant", "A draft."),
        ("assistant", "An edit."),
    ]
    assert events_of(result, AGENT_TURN_EVENT) == ["writer", "editor", "critic"]
    responses = result.get_intermediate_outputs()
    assert all(isinstance(r, AgentResponse) for r in responses)
    assert [r.text for r in responses] == ["A draft.", "An edit.", "A verdict."]


async def test_the_input_can_be_a_conversation() -> None:
    reader = scripted("reader", "Noted.")
    workflow = SequentialOrchestrator(participants=[reader]).build()
    history = [Message("user", ["First."]), Message("assistant", ["Ok."]), Message("user", ["X"])]

    result = await workflow.run(history)

    assert texts(result.get_outputs()[0]) == ["Noted."]
    assert seen(reader) == [("user", "First."), ("assistant", "Ok."), ("user", "X")]


async def test_tool_calls_stay_private_to_the_agent_that_made_them() -> None:
    def lookup(city: str) -> str:
        """Look up a city."""
        return f"{city}: sunny"

    from agentry import Agent

    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("lookup", {"city": "Oslo"}), "Oslo is sunny."]
    )
    researcher = Agent(client=client, name="researcher", tools=[lookup])
    writer = scripted("writer", "Report: sunny.")
    workflow = SequentialOrchestrator(participants=[researcher, writer]).build()

    result = await workflow.run("Weather?")

    assert texts(result.get_outputs()[0]) == ["Oslo is sunny.", "Report: sunny."]
    assert seen(writer) == [("user", "Weather?"), ("assistant", "Oslo is sunny.")]


async def test_streaming_shows_who_speaks_and_their_updates() -> None:
    writer = scripted("writer")
    writer.client = ScriptedChatClient(["A long draft."], chunk_size=4)
    editor = scripted("editor", "Fine.")
    workflow = SequentialOrchestrator(participants=[writer, editor]).build()

    speakers: list[str] = []
    updates: list[tuple[str | None, str]] = []
    async for event in workflow.run("Go.", stream=True):
        if event.type == AGENT_TURN_EVENT:
            speakers.append(str(event.data))
        elif event.type == "intermediate":
            assert isinstance(event.data, AgentResponseUpdate)
            updates.append((event.executor_id, event.data.text))

    assert speakers == ["writer", "editor"]
    assert [u for u in updates if u[1]] == [
        ("writer", "A lo"),
        ("writer", "ng d"),
        ("writer", "raft"),
        ("writer", "."),
        ("editor", "Fine."),
    ]


async def test_as_agent_answers_with_the_agents_messages() -> None:
    orchestration = SequentialOrchestrator(
        participants=[scripted("a", "One."), scripted("b", "Two.")], name="pipeline"
    )
    agent = orchestration.as_agent()

    assert isinstance(agent, WorkflowAgent)
    assert agent.name == "pipeline"
    response = await agent.run("Count.")
    assert [(m.author_name, m.text) for m in response.messages] == [("a", "One."), ("b", "Two.")]


async def test_resumes_from_a_checkpoint_between_two_agents() -> None:
    storage = InMemoryCheckpointStorage()
    first = SequentialOrchestrator(
        participants=[scripted("a", "One."), scripted("b", "Two.")], checkpoint_storage=storage
    ).build()
    expected = (await first.run("Count.")).get_outputs()

    # After superstep 2, "a" has spoken and "b" has not: a fresh process would resume here.
    checkpoint_id = await checkpoint_after(storage, first, 2)
    late_a, late_b = scripted("a"), scripted("b", "Two.")
    second = SequentialOrchestrator(participants=[late_a, late_b]).build()
    resumed = await second.run(checkpoint_id=checkpoint_id, checkpoint_storage=storage)

    assert texts(resumed.get_outputs()[0]) == texts(expected[0])
    assert not client_of(late_a).calls
    assert seen(late_b) == [("user", "Count."), ("assistant", "One.")]


def test_needs_participants_that_are_agents_with_unique_names() -> None:
    with pytest.raises(OrchestrationError, match="at least 1 participant"):
        SequentialOrchestrator().build()
    with pytest.raises(TypeError, match="participants must be agents"):
        SequentialOrchestrator(participants=["writer"])  # type: ignore[list-item]
    with pytest.raises(OrchestrationError, match="two participants are named 'a'"):
        SequentialOrchestrator(participants=[scripted("a"), scripted("a")])
    with pytest.raises(OrchestrationError, match="uses for itself"):
        SequentialOrchestrator(participants=[scripted("output")])


async def test_each_build_is_independent() -> None:
    orchestration = SequentialOrchestrator(participants=[scripted("a", "One.", "Again.")])
    first, second = orchestration.build(), orchestration.build()
    assert first is not second
    assert texts((await first.run("x")).get_outputs()[0]) == ["One."]
    assert texts((await second.run("y")).get_outputs()[0]) == ["Again."]


async def test_as_agent_keeps_each_sessions_conversation_apart() -> None:
    helper = scripted("helper", "First answer.", "Second answer.", "Third answer.")
    agent = SequentialOrchestrator(participants=[helper]).as_agent()
    ada, bob = agent.create_session(), agent.create_session()

    await agent.run("Ada's first question", session=ada)
    await agent.run("Bob's question", session=bob)
    await agent.run("Ada's second question", session=ada)

    assert seen(helper, 1) == [("user", "Bob's question")]
    assert seen(helper, 2) == [
        ("user", "Ada's first question"),
        ("assistant", "First answer."),
        ("user", "Ada's second question"),
    ]


async def test_as_agent_streams_the_agents_tokens_as_they_come() -> None:
    a = Agent(client=ScriptedChatClient(["Hello from a."], chunk_size=4), name="a")
    b = Agent(client=ScriptedChatClient(["Then b."], chunk_size=4), name="b")
    stream = SequentialOrchestrator(participants=[a, b]).as_agent().run("Go.", stream=True)

    chunks = [(u.author_name, u.text) async for u in stream]

    assert chunks == [
        ("a", "Hell"),
        ("a", "o fr"),
        ("a", "om a"),
        ("a", "."),
        ("b", "Then"),
        ("b", " b."),
    ]
    final = await stream.get_final_response()
    assert [(m.author_name, m.text) for m in final.messages] == [
        ("a", "Hello from a."),
        ("b", "Then b."),
    ]
