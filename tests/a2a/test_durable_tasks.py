"""`agentry serve a2a --durable`: a task whose server is killed goes on on another server,
and a durable task waits for approvals and keeps its context's conversation.

Each task runs as a durable agent run (its model and tool calls are recorded steps).
Server 1 is killed with SIGKILL after the agent's tool ran, while its final model call is
under way; server 2, on the same task store and durable database, takes the run over,
resumes the task, and completes it: the tool is not called again, the model once more.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from a2a.client import Client
from a2a.types import CancelTaskRequest, GetTaskRequest, Task, TaskState

from agentry import Agent
from agentry.a2a._durable_tasks import RESUMED_TASK_MESSAGE
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import DurableRuntime
from agentry.types import ChatOptions, Message
from tests.call_log import read_calls

from .conftest import a2a_client, serve
from .durable_servers import blocked, start_blocking_server, taking_over_server
from .helpers import artifact_text, delete_file, send_blocking, user_message
from .test_scale_out import Stream

pytestmark = pytest.mark.timeout(120)

TARGET = "tests.a2a.durable_app:agent"


async def _completed(client: Client, task_id: str) -> Task:
    """The task once it has ended (the test's timeout guards)."""
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state not in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING):
            return task
        await asyncio.sleep(0.1)


async def test_a_durable_task_of_a_killed_server_completes_on_another_without_calling_the_tool_again(
    tmp_path: Path, databases: tuple[str, ...]
) -> None:
    calls = str(tmp_path / "calls.sqlite")
    first = await start_blocking_server(TARGET, databases, calls)
    try:
        async with a2a_client(first.url) as client:
            stream = Stream(client, user_message("Charge the customer 12 dollars."))
            await stream.working.wait()
            await blocked(calls)
            first.kill()
            await asyncio.gather(stream.runner, return_exceptions=True)
    finally:
        first.stop()
    killed = {pid for _, pid in read_calls(calls)}
    async with (
        taking_over_server(TARGET, databases, calls) as second,
        a2a_client(second.url) as client,
    ):
        task = await _completed(client, stream.task_id)
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(task) == "Done: charged 1200 cents."
    assert RESUMED_TASK_MESSAGE in [p.text for m in task.history for p in m.parts]
    after = [(kind, pid) for kind, pid in read_calls(calls) if pid not in killed]
    before = [kind for kind, pid in read_calls(calls) if pid in killed]
    assert before == ["model", "tool", "model", "blocked"]
    # The tool ran once, before the kill; the model was called once more, for the answer.
    assert [kind for kind, _ in after] == ["model"]
    assert len(killed) == 1


async def test_a_durable_task_waits_for_approval_and_its_context_keeps_the_conversation(
    tmp_path: Path,
) -> None:
    def user_messages(messages: list[Message], options: ChatOptions) -> str:
        del options
        return f"{sum(m.role == 'user' for m in messages)} user messages so far"

    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}, call_id="c1"),
            lambda messages, options: f"Result: {messages[-1].contents[0].result}",
            user_messages,
        ]
    )
    agent = Agent(model, name="files", tools=[delete_file])
    runtime = DurableRuntime(f"sqlite:///{tmp_path / 'runs.sqlite'}", takeover_after=None)
    async with (
        serve(agent, durable=runtime) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        run = runtime.agent_run(waiting.id)
        assert [r.id for r in await run.pending_requests()] == ["c1"]
        done = await send_blocking(client, user_message("yes", task_id=waiting.id))
        assert done.status.state == TaskState.TASK_STATE_COMPLETED
        assert artifact_text(done) == "Result: deleted a.txt"
        assert await run.status() == "SUCCESS"
        again = await send_blocking(
            client, user_message("How many messages?", context_id=done.context_id)
        )
    assert artifact_text(again) == "2 user messages so far"
    assert len(model.calls) == 3


async def test_canceling_a_durable_task_cancels_its_run(tmp_path: Path) -> None:
    asked = asyncio.Event()

    async def slow_model(messages: list[Message], options: ChatOptions) -> str:
        del messages, options
        asked.set()
        await asyncio.sleep(3600)  # until the run is canceled
        return "never"

    agent = Agent(ScriptedChatClient([slow_model]), name="slow")
    runtime = DurableRuntime(f"sqlite:///{tmp_path / 'runs.sqlite'}", takeover_after=None)
    async with serve(agent, durable=runtime) as server, a2a_client(server.url) as client:
        stream = Stream(client, user_message("Take your time."))
        await stream.working.wait()
        await asked.wait()
        canceled = await client.cancel_task(CancelTaskRequest(id=stream.task_id))
        await asyncio.gather(stream.runner, return_exceptions=True)
        status = await runtime.agent_run(stream.task_id).status()
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    assert status == "CANCELLED"
