"""A task that waits for approvals, on the in-process and the durable server alike: a new
message declines the approvals, an answer answers them, a malformed answer leaves the task
waiting and says what was wrong, a cancel ends it, and a subscription to it gets its
updates once it is answered.

The durable server's decision is durable: a server killed after the approvals were
declined, while the model answers the new message, is followed by another that neither
asks for the approvals again nor runs the new message twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest
from a2a.client import Client
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import UnsupportedOperationError

from agentry import Agent
from agentry.a2a._answers import DECLINED_RESULT
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import DurableRuntime
from tests.call_log import read_calls

from .conftest import a2a_client, serve
from .durable_servers import blocked, start_blocking_server, taking_over_server
from .helpers import artifact_text, send_blocking, user_message
from .test_authorization import list_repos
from .test_follow_ups import answer_what_it_saw, deleted, waiting_agent

pytestmark = pytest.mark.timeout(120)


class Server:
    """A server of the `files` agent, whose model asks to delete a.txt and then answers."""

    def __init__(
        self, url: str, model: ScriptedChatClient, client: Client, runtime: DurableRuntime | None
    ):
        self.url = url
        self.model = model
        self.client = client
        self.runtime = runtime

    async def waiting_task(self) -> Task:
        """A new task, waiting for the approval of `remove_file`."""
        task = await send_blocking(self.client, user_message("Delete a.txt"))
        assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        return task

    async def run_waits(self, task_id: str) -> list[str]:
        """The ids of the approvals the task's durable run waits on ([] in process)."""
        if self.runtime is None:
            return []
        return [str(r.id) for r in await self.runtime.agent_run(task_id).pending_requests()]


@pytest.fixture(params=["in-process", "durable-sqlite", "durable-postgresql"])
def runs_in(request: pytest.FixtureRequest, tmp_path: Path) -> str | None:
    """Where the server records its runs: nowhere (in process), or a durable database."""
    if request.param == "in-process":
        return None
    if request.param == "durable-sqlite":
        return f"sqlite:///{tmp_path / 'runs.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))


def files_server(runs_in: str | None) -> AbstractAsyncContextManager[Server]:
    deleted.clear()
    agent, model = waiting_agent()
    model.add(answer_what_it_saw)
    return agent_server(agent, model, runs_in)


@asynccontextmanager
async def agent_server(
    agent: Agent, model: ScriptedChatClient, runs_in: str | None
) -> AsyncGenerator[Server, None]:
    """A server of `agent` (whose model is `model`), durable when `runs_in` is given."""
    runtime = DurableRuntime(runs_in, takeover_after=None) if runs_in else None
    async with (
        serve(agent, durable=runtime) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        yield Server(server.url, model, client, runtime)


async def test_a_new_message_declines_the_waiting_approvals_and_is_answered(
    runs_in: str | None,
) -> None:
    async with files_server(runs_in) as server:
        waiting = await server.waiting_task()
        done = await send_blocking(
            server.client, user_message("Actually, keep it. What is 2 + 2?", task_id=waiting.id)
        )
        later = await send_blocking(
            server.client, user_message("Thanks.", context_id=waiting.context_id)
        )
    assert done.id == waiting.id
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert (
        artifact_text(done)
        == "saw ['assistant', 'tool', 'user']: Actually, keep it. What is 2 + 2?"
    )
    assert deleted == []
    tool_message = server.model.calls[1].messages[-2]
    assert [(c.type, c.call_id, c.result) for c in tool_message.contents] == [
        ("function_result", "c1", DECLINED_RESULT)
    ]
    # The context's conversation holds the declined call and the new message, once.
    assert [m.role for m in server.model.calls[2].messages] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "user",
    ]
    assert artifact_text(later) == "saw ['user', 'assistant', 'user']: Thanks."


async def test_an_approval_answer_runs_the_approved_call(runs_in: str | None) -> None:
    async with files_server(runs_in) as server:
        waiting = await server.waiting_task()
        done = await send_blocking(server.client, user_message("yes", task_id=waiting.id))
        await send_blocking(server.client, user_message("Thanks.", context_id=waiting.context_id))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert deleted == ["a.txt"]
    assert artifact_text(done) == "saw ['user', 'assistant', 'tool']: "
    assert server.model.calls[1].messages[-1].contents[0].result == "deleted a.txt"
    # The context's conversation holds the call, its result and the answer.
    roles = [m.role for m in server.model.calls[2].messages]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"approvals": {"c9": True}}, "No request with id 'c9' waits (waiting: c1)."),
        ({"approved": "maybe"}, '"approved" must be true or false, not "maybe".'),
    ],
    ids=["unknown-request", "wrong-shape"],
)
async def test_a_malformed_approval_answer_says_what_was_wrong_and_the_task_keeps_waiting(
    runs_in: str | None, answer: dict[str, object], problem: str
) -> None:
    async with files_server(runs_in) as server:
        waiting = await server.waiting_task()
        refused = await send_blocking(server.client, user_message(task_id=waiting.id, data=answer))
        stored = await server.client.get_task(GetTaskRequest(id=waiting.id))
        run_waits = await server.run_waits(waiting.id)
        done = await send_blocking(server.client, user_message("yes", task_id=waiting.id))
    text = " ".join(p.text for p in refused.status.message.parts)
    assert refused.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert problem in text
    assert 'The task still waits for approval of remove_file {"path": "a.txt"} (id c1)' in text
    assert stored.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert run_waits == ([] if runs_in is None else ["c1"])
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert deleted == ["a.txt"]
    assert len(server.model.calls) == 2


CHEAP = ["in-process", "durable-sqlite"]


@pytest.mark.parametrize("runs_in", CHEAP, indirect=True)
async def test_canceling_a_waiting_task_ends_it_and_its_run(runs_in: str | None) -> None:
    async with files_server(runs_in) as server:
        waiting = await server.waiting_task()
        canceled = await server.client.cancel_task(CancelTaskRequest(id=waiting.id))
        with pytest.raises(UnsupportedOperationError, match="terminal state"):
            await send_blocking(server.client, user_message("yes", task_id=waiting.id))
        run_status = await server.runtime.agent_run(waiting.id).status() if server.runtime else None
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    assert run_status == (None if runs_in is None else "CANCELLED")
    assert deleted == []
    assert len(server.model.calls) == 1


@pytest.mark.parametrize("runs_in", CHEAP, indirect=True)
async def test_a_subscription_to_a_waiting_task_gets_its_updates_once_it_is_answered(
    runs_in: str | None,
) -> None:
    async with files_server(runs_in) as server:
        waiting = await server.waiting_task()
        async with a2a_client(server.url) as streaming:
            events: list[StreamResponse] = []
            first = asyncio.Event()

            async def subscribe() -> None:
                async for event in streaming.subscribe(SubscribeToTaskRequest(id=waiting.id)):
                    events.append(event)
                    first.set()

            subscription = asyncio.create_task(subscribe())
            await first.wait()
            await send_blocking(server.client, user_message("yes", task_id=waiting.id))
            await subscription
    assert events[0].task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    answers = {
        "".join(p.text for p in e.artifact_update.artifact.parts)
        for e in events
        if e.HasField("artifact_update")
    }
    assert answers == {"saw ['user', 'assistant', 'tool']: "}


async def test_a_durable_task_whose_tool_asks_for_authorization_fails_with_the_reason(
    tmp_path: Path,
) -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("list_repos", {"owner": "ada"}, call_id="g1")]
    )
    agent = Agent(model, name="github", tools=[list_repos])
    async with agent_server(agent, model, f"sqlite:///{tmp_path / 'runs.sqlite'}") as server:
        failed = await send_blocking(server.client, user_message("List Ada's repositories."))
    text = " ".join(p.text for p in failed.status.message.parts)
    assert failed.status.state == TaskState.TASK_STATE_FAILED
    assert "a bearer credential for list_repos" in text
    assert "a durable server does not wait for authorizations" in text


async def _answered(client: Client, task_id: str) -> Task:
    """The task once it has left `working` (the test's timeout guards)."""
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state != TaskState.TASK_STATE_WORKING:
            return task
        await asyncio.sleep(0.1)


async def test_a_server_killed_after_declining_is_followed_without_asking_again(
    tmp_path: Path,
    databases: tuple[str, ...],
) -> None:
    calls = str(tmp_path / "calls.sqlite")
    target = "tests.a2a.durable_app:refunds"
    first = await start_blocking_server(target, databases, calls)
    try:
        async with a2a_client(first.url, streaming=False) as client:
            waiting = await send_blocking(client, user_message("Refund order 7."))
            assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
            sending = asyncio.create_task(
                send_blocking(client, user_message("No. What is my balance?", task_id=waiting.id))
            )
            await blocked(calls)
            first.kill()
            await asyncio.gather(sending, return_exceptions=True)
    finally:
        first.stop()
    killed = {pid for _, pid in read_calls(calls)}
    async with (
        taking_over_server(target, databases, calls) as second,
        a2a_client(second.url, streaming=False) as client,
    ):
        task = await _answered(client, waiting.id)
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    # The new message was run once: the model saw it once, after the declined call.
    assert (
        artifact_text(task) == "saw ['user', 'assistant', 'tool', 'user']: No. What is my balance?"
    )
    assert [kind for kind, pid in read_calls(calls) if pid in killed] == [
        "model",
        "model",
        "blocked",
    ]
    assert [kind for kind, pid in read_calls(calls) if pid not in killed] == ["model"]
