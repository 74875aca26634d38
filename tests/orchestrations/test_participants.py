"""What every orchestration's participants share: privacy of tool calls, tool approvals."""

from __future__ import annotations

from agentry import Agent, Content, Message, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import GroupChatOrchestrator, SequentialOrchestrator
from agentry.orchestrations._participants import shareable_messages, to_conversation
from agentry.workflows import InMemoryCheckpointStorage, WorkflowRunState

from ._helpers import client_of, scripted, seen, texts

removed: list[str] = []


@tool(approval_mode="always_require")
def remove(path: str) -> str:
    """Remove a file."""
    removed.append(path)
    return f"removed {path}"


def operator(*extra: str) -> Agent:
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("remove", {"path": "/tmp/old"}), "Removed it.", *extra]
    )
    return Agent(client=client, name="ops", tools=[remove])


async def test_a_tool_approval_pauses_the_turn_until_answered() -> None:
    removed.clear()
    reporter = scripted("reporter", "Report: removed.")
    workflow = SequentialOrchestrator(participants=[operator(), reporter]).build()

    first = await workflow.run("Clean up /tmp/old.")

    assert first.get_final_state() == WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    (request,) = first.get_request_info_events()
    assert isinstance(request.data, Content)
    assert request.data.type == "function_approval_request"
    assert removed == []
    assert not client_of(reporter).calls

    answer = request.data.to_function_approval_response(True)
    second = await workflow.run(responses={request.request_id or "": answer})

    assert removed == ["/tmp/old"]
    assert texts(second.get_outputs()[0]) == ["Removed it.", "Report: removed."]
    assert seen(reporter) == [("user", "Clean up /tmp/old."), ("assistant", "Removed it.")]


async def test_a_pending_approval_survives_a_checkpoint() -> None:
    removed.clear()
    storage = InMemoryCheckpointStorage()
    first = GroupChatOrchestrator(
        participants=[operator()], termination=1, checkpoint_storage=storage
    ).build()
    (request,) = (await first.run("Clean up.")).get_request_info_events()
    latest = await storage.get_latest(workflow_name=first.name)
    assert latest is not None
    assert isinstance(request.data, Content)

    # a new process: the operator's model only has its last answer left to give
    again = Agent(client=ScriptedChatClient(["Removed it."]), name="ops", tools=[remove])
    second = GroupChatOrchestrator(participants=[again], termination=1).build()
    resumed = await second.run(
        checkpoint_id=latest.checkpoint_id,
        checkpoint_storage=storage,
        responses={request.request_id or "": request.data.to_function_approval_response(True)},
    )

    assert removed == ["/tmp/old"]
    assert texts(resumed.get_outputs()[0]) == ["Removed it."]
    sent = client_of(again).calls[0].messages
    assert [m.role for m in sent if m.role != "system"] == ["user", "assistant", "tool"]


def test_only_what_was_said_is_shared() -> None:
    messages = [
        Message("assistant", [Content.from_text_reasoning("hmm"), Content.from_text("Hi.")]),
        Message("assistant", [Content.from_function_call(call_id="1", name="f", arguments={})]),
        Message("tool", [Content.from_function_result(call_id="1", result="x")]),
    ]
    (shared,) = shareable_messages(messages, "bot")
    assert shared.text == "Hi."
    assert shared.author_name == "bot"
    assert [c.type for c in shared.contents] == ["text"]
    assert shared.message_id


def test_inputs_become_a_conversation() -> None:
    assert [(m.role, m.text) for m in to_conversation("hi")] == [("user", "hi")]
    message = Message("user", ["x"])
    assert to_conversation(message) == [message]
    assert to_conversation((message, message)) == [message, message]


def test_the_package_loads_pydantic_only_for_the_manager_models() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src"
    code = (
        "import sys\n"
        "import agentry.orchestrations as o\n"
        "print('pydantic' in sys.modules)\n"
        "print(o.MagenticPlan.__name__, 'pydantic' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.split() == ["False", "MagenticPlan", "True"]
