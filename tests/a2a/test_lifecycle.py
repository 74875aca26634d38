"""Input-required for tool approvals, cancellation, and failures."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any, cast

import pytest
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import UnsupportedOperationError

from agentry import Agent, ContextProvider
from agentry.a2a._parts import data_of
from agentry.clients.scripted import ScriptedChatClient

from .conftest import BINDINGS, a2a_client, serve
from .helpers import artifact_text, collect, delete_file, send_blocking, user_message

pytestmark = pytest.mark.timeout(30)


def approval_agent() -> tuple[Agent, ScriptedChatClient]:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}, call_id="c1"),
            lambda messages, options: f"Result: {messages[-1].contents[0].result}",
        ]
    )
    return Agent(client=model, name="files", tools=[delete_file]), model


def approval_request(task: Task) -> dict[str, object]:
    data = [data_of(p) for p in task.status.message.parts if p.HasField("data")]
    assert len(data) == 1, task.status.message
    return data[0]


@pytest.mark.parametrize("binding", BINDINGS)
async def test_tool_approval_is_input_required_then_resumes(binding: str) -> None:
    agent, model = approval_agent()
    async with serve(agent) as server, a2a_client(server.url, binding, streaming=False) as client:
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        request = approval_request(waiting)
        assert request == {
            "kind": "function_approval_request",
            "id": "c1",
            "call_id": "c1",
            "name": "delete_file",
            "arguments": {"path": "a.txt"},
        }
        assert "yes" in " ".join(p.text for p in waiting.status.message.parts)
        done = await send_blocking(
            client,
            user_message(
                task_id=waiting.id, context_id=waiting.context_id, data={"approved": True}
            ),
        )
    assert done.id == waiting.id
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Result: deleted a.txt"
    assert len(model.calls) == 2


async def test_rejected_approval_tells_the_model_the_tool_did_not_run() -> None:
    agent, model = approval_agent()
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        done = await send_blocking(client, user_message("no", task_id=waiting.id))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert "did not approve" in artifact_text(done)
    assert len(model.calls) == 2


async def test_unclear_answer_keeps_the_task_waiting() -> None:
    agent, model = approval_agent()
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        still = await send_blocking(
            client, user_message(task_id=waiting.id, data={"id": "c2", "approved": True})
        )
        assert still.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert approval_request(still)["id"] == "c1"
        assert "still waits for" in " ".join(p.text for p in still.status.message.parts)
        done = await send_blocking(
            client, user_message(task_id=waiting.id, data={"approvals": {"c1": True}})
        )
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Result: deleted a.txt"
    assert len(model.calls) == 2


async def test_input_required_over_streaming() -> None:
    agent, _ = approval_agent()
    async with serve(agent) as server, a2a_client(server.url) as client:
        events = await collect(client, user_message("Delete a.txt"))
        last = events[-1].status_update
        assert last.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        resumed = await collect(client, user_message("yes", task_id=last.task_id))
    states = [e.status_update.status.state for e in resumed if e.HasField("status_update")]
    assert states[-1] == TaskState.TASK_STATE_COMPLETED


@pytest.mark.parametrize("binding", BINDINGS)
async def test_cancel_stops_a_slow_task(binding: str) -> None:
    started = asyncio.Event()

    async def slow(messages: object, options: object) -> str:
        started.set()
        await asyncio.sleep(30)
        return "too late"

    agent = Agent(client=ScriptedChatClient([slow]), name="slow")
    async with serve(agent) as server, a2a_client(server.url, binding) as client:
        stream = client.send_message(user_message("take your time"))
        first = await anext(stream)
        task_id = first.task.id
        await asyncio.wait_for(started.wait(), 5)
        canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
        await cast("AsyncGenerator[StreamResponse, None]", stream).aclose()
        fetched = await client.get_task(GetTaskRequest(id=task_id))
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    assert fetched.status.state == TaskState.TASK_STATE_CANCELED


async def test_cancel_a_task_waiting_for_input() -> None:
    agent, _ = approval_agent()
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        canceled = await client.cancel_task(CancelTaskRequest(id=waiting.id))
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED


@pytest.mark.parametrize("binding", BINDINGS)
async def test_agent_failure_ends_the_task_failed_with_the_reason(binding: str) -> None:
    model = ScriptedChatClient([RuntimeError("the model is down")])
    agent = Agent(client=model, name="broken")
    async with serve(agent) as server, a2a_client(server.url, binding, streaming=False) as client:
        failed = await send_blocking(client, user_message("hi"))
        fetched = await client.get_task(GetTaskRequest(id=failed.id))
        model.add("back again")
        later = await send_blocking(client, user_message("hi again"))
    assert failed.status.state == TaskState.TASK_STATE_FAILED
    reason = failed.status.message.parts[0].text
    assert reason == "The agent failed: RuntimeError: the model is down"
    assert fetched.status.state == TaskState.TASK_STATE_FAILED
    assert later.status.state == TaskState.TASK_STATE_COMPLETED


async def test_streamed_failure_ends_in_failed_state() -> None:
    agent = Agent(client=ScriptedChatClient([ValueError("bad answer")]), name="broken")
    async with serve(agent) as server, a2a_client(server.url) as client:
        events = await collect(client, user_message("hi"))
    last = events[-1].status_update
    assert last.status.state == TaskState.TASK_STATE_FAILED
    assert "bad answer" in last.status.message.parts[0].text


async def test_session_that_cannot_be_saved_fails_the_task_with_the_reason() -> None:
    class Unstorable(ContextProvider):
        async def after_run(self, *, agent: Any, session: Any, context: Any, state: Any) -> None:
            state["handle"] = object()  # not JSON: the session cannot be stored

    agent = Agent(
        client=ScriptedChatClient(["fine"]), name="leaky", context_providers=[Unstorable("x")]
    )
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        task = await send_blocking(client, user_message("hi"))
    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert "SerializationError" in task.status.message.parts[0].text
    assert "register_state_type" in task.status.message.parts[0].text


@pytest.mark.parametrize("binding", BINDINGS)
async def test_finished_task_refuses_more_messages(binding: str) -> None:
    agent = Agent(client=ScriptedChatClient(["done"]), name="once")
    async with serve(agent) as server, a2a_client(server.url, binding, streaming=False) as client:
        task = await send_blocking(client, user_message("hi"))
        with pytest.raises(UnsupportedOperationError, match="terminal state"):
            await send_blocking(client, user_message("more", task_id=task.id))


@pytest.mark.parametrize("binding", BINDINGS)
async def test_return_immediately_then_subscribe_to_the_running_task(binding: str) -> None:
    release = asyncio.Event()

    async def waits(messages: object, options: object) -> str:
        await release.wait()
        return "released"

    agent = Agent(client=ScriptedChatClient([waits]), name="waiter")
    async with serve(agent) as server, a2a_client(server.url, binding) as client:
        request = user_message("wait for it")
        request.configuration.return_immediately = True
        async with a2a_client(server.url, binding, streaming=False) as plain:
            [first] = await collect(plain, request)
        task_id = first.task.id
        assert first.task.status.state in (
            TaskState.TASK_STATE_SUBMITTED,
            TaskState.TASK_STATE_WORKING,
        )
        subscription = client.subscribe(SubscribeToTaskRequest(id=task_id))
        snapshot = await anext(subscription)
        assert snapshot.task.id == task_id
        release.set()
        rest = [event async for event in subscription]
        fetched = await client.get_task(GetTaskRequest(id=task_id))
    assert rest[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(fetched) == "released"


async def test_contexts_run_side_by_side() -> None:
    arrived: list[str] = []
    gate = asyncio.Event()

    async def meets(messages: list[Any], options: object) -> str:
        arrived.append(messages[-1].text)
        if len(arrived) == 2:
            gate.set()
        await asyncio.wait_for(gate.wait(), 5)
        return f"answered {messages[-1].text}"

    agent = Agent(client=ScriptedChatClient([meets, meets]), name="pair")
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        first, second = await asyncio.gather(
            send_blocking(client, user_message("a")), send_blocking(client, user_message("b"))
        )
    assert sorted(arrived) == ["a", "b"]
    assert {artifact_text(first), artifact_text(second)} == {"answered a", "answered b"}


def states_of(events: list[StreamResponse]) -> list[str]:
    """The task states a stream went through, in order, without repeats."""
    states: list[str] = []
    for event in events:
        if event.HasField("task"):
            state = event.task.status.state
        elif event.HasField("status_update"):
            state = event.status_update.status.state
        else:
            continue
        name = TaskState.Name(state).removeprefix("TASK_STATE_").lower()
        if not states or states[-1] != name:
            states.append(name)
    return states


@pytest.mark.parametrize("binding", BINDINGS)
async def test_task_state_transitions(binding: str) -> None:
    from .demo_agent import build

    async with serve(build()) as server, a2a_client(server.url, binding) as client:
        completed = await collect(client, user_message("add 1 and 2"))
        waiting = await collect(client, user_message("delete a.txt"))
        task_id = waiting[0].task.id
        resumed = await collect(client, user_message("yes", task_id=task_id))
        still_waiting = await collect(client, user_message("delete b.txt"))
        task_id = still_waiting[0].task.id
        unclear = await collect(client, user_message(task_id=task_id, data={"approvals": {}}))
        new_message = await collect(client, user_message("hmm", task_id=task_id))
    assert states_of(completed) == ["submitted", "working", "completed"]
    assert states_of(waiting) == ["submitted", "working", "input_required"]
    assert states_of(resumed) == ["working", "completed"]
    assert states_of(unclear) == ["input_required"]
    assert states_of(new_message) == ["working", "completed"]


@pytest.mark.parametrize("binding", BINDINGS)
async def test_failed_and_canceled_transitions(binding: str) -> None:
    from .demo_agent import build

    failing = Agent(client=ScriptedChatClient([RuntimeError("down")]), name="down")
    async with serve(failing) as server, a2a_client(server.url, binding) as client:
        failed = await collect(client, user_message("hi"))
    assert states_of(failed) == ["submitted", "working", "failed"]
    async with serve(build()) as server, a2a_client(server.url, binding) as client:
        stream = client.send_message(user_message("slow"))
        events = [await anext(stream), await anext(stream)]
        await client.cancel_task(CancelTaskRequest(id=events[0].task.id))
        events.extend([event async for event in stream])
        fetched = await client.get_task(GetTaskRequest(id=events[0].task.id))
    assert states_of(events)[:2] == ["submitted", "working"]
    assert fetched.status.state == TaskState.TASK_STATE_CANCELED


async def test_idle_waiting_task_is_released_and_still_resumes() -> None:
    agent, _ = approval_agent()
    async with (
        serve(agent, idle_task_timeout=0.05) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        # The release is invisible on the wire; only the SDK's registry of live tasks,
        # which it does not make public, shows it.
        registry = server.app.request_handler._active_task_registry  # pyright: ignore[reportPrivateUsage]
        for _ in range(100):
            if await registry.get(waiting.id) is None:
                break
            await asyncio.sleep(0.02)
        assert await registry.get(waiting.id) is None
        done = await send_blocking(client, user_message("yes", task_id=waiting.id))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Result: deleted a.txt"


async def test_canceling_a_waiting_task_forgets_its_requests() -> None:
    agent, _ = approval_agent()
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        sessions = server.app.executor.sessions

        async def pending() -> dict[str, object]:
            session = await sessions.load(waiting.context_id)
            assert session is not None
            return session.state["agentry.a2a"]["pending"]

        assert list(await pending()) == [waiting.id]
        await client.cancel_task(CancelTaskRequest(id=waiting.id))
        for _ in range(100):
            if not await pending():
                break
            await asyncio.sleep(0.02)
        assert await pending() == {}
