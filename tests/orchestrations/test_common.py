"""What all five orchestrations share: streaming, outputs, as_agent, the builder options."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentry import AgentResponseUpdate
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import (
    AGENT_TURN_EVENT,
    ConcurrentOrchestrator,
    GroupChatOrchestrator,
    HandoffOrchestrator,
    MagenticOrchestrator,
    Orchestrator,
    SequentialOrchestrator,
)
from agentry.workflows import InMemoryCheckpointStorage, Workflow

from ._helpers import as_json, scripted, texts


def sequential() -> Orchestrator:
    return SequentialOrchestrator(participants=[scripted("a", "A says."), scripted("b", "B says.")])


def concurrent() -> Orchestrator:
    return ConcurrentOrchestrator(participants=[scripted("a", "A says."), scripted("b", "B says.")])


def group_chat() -> Orchestrator:
    return GroupChatOrchestrator(
        participants=[scripted("a", "A says."), scripted("b", "B says.")], termination=2
    )


def magentic() -> Orchestrator:
    manager = scripted(
        "m",
        as_json(facts=[], plan=["a", "b"]),
        as_json(is_request_satisfied=False, next_speaker="a", instruction="Go, a."),
        as_json(is_request_satisfied=False, next_speaker="b", instruction="Go, b."),
        as_json(is_request_satisfied=True),
        "A and B said it.",
    )
    return MagenticOrchestrator(
        participants=[scripted("a", "A says."), scripted("b", "B says.")], manager=manager
    )


def handoff() -> Orchestrator:
    a = scripted("a", ScriptedChatClient.function_call("handoff_to_b"))
    return HandoffOrchestrator(participants=[a, scripted("b", "B says.")], interactive=False)


CASES: dict[str, tuple[Callable[[], Orchestrator], list[str], list[str]]] = {
    "sequential": (sequential, ["a", "b"], ["A says.", "B says."]),
    "concurrent": (concurrent, ["a", "b"], ["A says.", "B says."]),
    "group_chat": (group_chat, ["a", "b"], ["A says.", "B says."]),
    "magentic": (magentic, ["a", "b"], ["A and B said it."]),
    "handoff": (handoff, ["a", "b"], ["B says."]),
}


@pytest.fixture(params=list(CASES))
def case(request: pytest.FixtureRequest) -> tuple[Callable[[], Orchestrator], list[str], list[str]]:
    return CASES[request.param]


async def test_streaming_names_each_speaker_and_streams_its_updates(
    case: tuple[Callable[[], Orchestrator], list[str], list[str]],
) -> None:
    make, speakers, expected = case
    workflow = make().build()
    turns: list[str] = []
    updated: set[str] = set()
    outputs: list[object] = []
    async for event in workflow.run("Start.", stream=True):
        if event.type == AGENT_TURN_EVENT:
            turns.append(str(event.data))
        elif event.type == "intermediate" and isinstance(event.data, AgentResponseUpdate):
            updated.add(str(event.executor_id))
        elif event.type == "output":
            outputs.append(event.data)
    assert sorted(turns) == speakers
    assert updated == set(speakers)
    (output,) = outputs
    assert texts(output) == expected  # type: ignore[arg-type]


async def test_as_agent_answers_with_the_output(
    case: tuple[Callable[[], Orchestrator], list[str], list[str]],
) -> None:
    make, _, expected = case
    agent = make().as_agent(name="team")
    assert agent.name == "team"
    assert [m.text for m in (await agent.run("Start.")).messages] == expected


async def test_as_agent_streams_each_speakers_reply_as_it_comes_and_ends_with_the_output(
    case: tuple[Callable[[], Orchestrator], list[str], list[str]],
) -> None:
    make, speakers, expected = case
    stream = make().as_agent().run("Start.", stream=True)
    updates = [u async for u in stream]
    final = await stream.get_final_response()

    assert set(speakers) <= {u.author_name for u in updates}
    said = [m.text for m in final.messages if m.text]
    assert said[-len(expected) :] == expected
    # an output message already streamed is not repeated
    assert len(said) == len(set(said))


def test_the_builder_options_are_the_same_everywhere(
    case: tuple[Callable[[], Orchestrator], list[str], list[str]],
) -> None:
    make, _, _ = case
    storage = InMemoryCheckpointStorage()
    orchestration = make().with_checkpointing(storage)
    orchestration.name = "renamed"
    orchestration.description = "A team."
    workflow = orchestration.build()
    assert isinstance(workflow, Workflow)
    assert workflow.name == "renamed"
    assert workflow.description == "A team."
    assert workflow.checkpoint_storage is storage
    assert set(orchestration.participant_names) <= set(workflow.executors)
