"""The spec's five orchestrators, imported from the package root."""

from __future__ import annotations

import json
from typing import Any

from agentry import (
    Agent,
    ConcurrentOrchestrator,
    GroupChatOrchestrator,
    HandoffOrchestrator,
    MagenticOrchestrator,
    Message,
    SequentialOrchestrator,
    Workflow,
)
from agentry.clients.scripted import ScriptedChatClient, ScriptItem


def agent(name: str, *answers: ScriptItem, description: str | None = None) -> Agent:
    return Agent(client=ScriptedChatClient(answers), name=name, description=description)


def prompts_of(participant: Agent) -> list[str]:
    """The texts the participant's model was sent in its last call (system left out)."""
    client = participant.client
    assert isinstance(client, ScriptedChatClient)
    return [m.text for m in client.calls[-1].messages if m.role != "system"]


def spoken(messages: list[Message]) -> list[tuple[str | None, str]]:
    return [(m.author_name, m.text) for m in messages]


async def test_sequential_passes_the_conversation_along() -> None:
    writer = agent("writer", "Fresh bread, every morning.")
    editor = agent("editor", "Fresh bread daily.")
    workflow = SequentialOrchestrator(participants=[writer, editor]).build()
    result = await workflow.run("A slogan for a bakery.")

    assert isinstance(workflow, Workflow)
    (conversation,) = result.get_outputs()
    assert spoken(conversation) == [
        ("writer", "Fresh bread, every morning."),
        ("editor", "Fresh bread daily."),
    ]
    assert prompts_of(editor) == [
        "A slogan for a bakery.",
        "Fresh bread, every morning.",
    ]


async def test_concurrent_asks_everyone_and_aggregates() -> None:
    voters = [agent(f"voter{i}", answer) for i, answer in enumerate(["Yes.", "No.", "Yes!"])]

    def tally(replies: list[Any]) -> str:
        return f"{sum(r.text.startswith('Yes') for r in replies)} of {len(replies)} say yes"

    workflow = ConcurrentOrchestrator(participants=voters, aggregator=tally).build()
    result = await workflow.run("Open on Sundays?")

    assert result.get_outputs() == ["2 of 3 say yes"]


async def test_group_chat_lets_the_manager_pick_speakers() -> None:
    writer = agent("writer", "Draft one.", "Draft two.")
    critic = agent("critic", "Too long.", "APPROVED")

    def manager(state: Any) -> str | None:
        if state.conversation and state.conversation[-1].text == "APPROVED":
            return None
        return "critic" if state.last_speaker == "writer" else "writer"

    workflow = GroupChatOrchestrator(participants=[writer, critic], manager=manager).build()
    result = await workflow.run("Write a haiku.")

    (conversation,) = result.get_outputs()
    assert spoken(conversation) == [
        ("writer", "Draft one."),
        ("critic", "Too long."),
        ("writer", "Draft two."),
        ("critic", "APPROVED"),
    ]


async def test_magentic_plans_delegates_and_answers() -> None:
    def ledger(**fields: Any) -> str:
        return json.dumps(fields)

    manager = agent(
        "manager",
        ledger(facts=["the tower is in Paris"], plan=["researcher finds the year"]),
        ledger(
            is_request_satisfied=False,
            is_progress_being_made=True,
            is_in_loop=False,
            next_speaker="researcher",
            instruction="Find the year.",
        ),
        ledger(is_request_satisfied=True),
        "It opened in 1889.",
    )
    researcher = agent("researcher", "1889.", description="Looks things up.")
    workflow = MagenticOrchestrator(participants=[researcher], manager=manager).build()
    result = await workflow.run("When did the Eiffel Tower open?")

    (answer,) = result.get_outputs()
    assert spoken(answer) == [("manager", "It opened in 1889.")]
    turns = [e.data for e in result if e.type == "agent_turn_started"]
    assert turns == ["researcher"]


async def test_handoff_moves_the_conversation_to_another_agent() -> None:
    triage = agent(
        "triage", ScriptedChatClient.function_call("handoff_to_billing", {}), description="Triage."
    )
    billing = agent("billing", "Your refund is on its way.", description="Refunds.")
    workflow = HandoffOrchestrator(
        participants=[triage, billing], start_agent=triage, interactive=False
    ).build()
    result = await workflow.run("I want my money back.")

    said = [(m.author_name, m.text) for output in result.get_outputs() for m in output if m.text]
    assert said[-1] == ("billing", "Your refund is on its way.")
    handoffs = [e.data for e in result if e.type == "handoff"]
    assert handoffs == [("triage", "billing")]


async def test_an_orchestration_runs_as_an_agent() -> None:
    writer = agent("writer", "Fresh bread, every morning.")
    editor = agent("editor", "Fresh bread daily.")
    team = SequentialOrchestrator(participants=[writer, editor]).as_agent(name="slogans")
    response = await team.run("A slogan for a bakery.")

    assert [m.text for m in response.messages] == [
        "Fresh bread, every morning.",
        "Fresh bread daily.",
    ]
