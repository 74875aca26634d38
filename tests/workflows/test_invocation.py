"""Idempotency keys, the `ExecutorInvoker` seam, and `WorkflowRun` driven by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from typing_extensions import Never

from agentry.workflows import (
    Executor,
    ExecutorFailedException,
    InMemoryCheckpointStorage,
    Invocation,
    RunHooks,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    WorkflowRun,
    WorkflowRunnerException,
    WorkflowRunState,
    executor,
    handler,
    response_handler,
)


@executor(id="split")
async def split(count: int, ctx: WorkflowContext[str]) -> None:
    for index in range(count):
        await ctx.send_message(f"item{index}", target_id="even" if index % 2 == 0 else "odd")


def keyed_workflow(seen: list[str]) -> Workflow:
    @executor(id="even")
    async def even(item: str, ctx: WorkflowContext[Never, str]) -> None:
        seen.append(ctx.idempotency_key)
        await ctx.yield_output(item)

    @executor(id="odd")
    async def odd(item: str, ctx: WorkflowContext[Never, str]) -> None:
        seen.append(ctx.idempotency_key)
        await ctx.yield_output(item)

    return (
        WorkflowBuilder(name="keyed", start_executor=split)
        .add_edge(split, even)
        .add_edge(split, odd)
        .build()
    )


async def test_each_handler_call_gets_its_own_idempotency_key() -> None:
    seen: list[str] = []
    result = await keyed_workflow(seen).run(5)
    assert len(result.get_outputs()) == 5
    assert len(set(seen)) == 5
    run_ids = {key.split("/")[0] for key in seen}
    assert len(run_ids) == 1
    assert sorted(key.split("/", 1)[1] for key in seen) == [
        "2/even/0",
        "2/even/1",
        "2/even/2",
        "2/odd/0",
        "2/odd/1",
    ]


async def test_a_call_run_again_after_a_resume_gets_the_same_key() -> None:
    storage = InMemoryCheckpointStorage()
    first: list[str] = []
    await keyed_workflow(first).run(3, checkpoint_storage=storage)
    after_split = [
        c for c in await storage.list_checkpoints(workflow_name="keyed") if c.iteration_count == 1
    ]
    again: list[str] = []
    await keyed_workflow(again).run(
        checkpoint_id=after_split[0].checkpoint_id, checkpoint_storage=storage
    )
    assert sorted(again) == sorted(first)


async def test_a_new_run_gets_new_keys() -> None:
    first: list[str] = []
    second: list[str] = []
    await keyed_workflow(first).run(2)
    await keyed_workflow(second).run(2)
    assert not set(first) & set(second)


class RecordingInvoker:
    """Runs each call itself, and notes what the runner announced and asked."""

    def __init__(self) -> None:
        self.supersteps: list[list[str]] = []
        self.invoked: list[str] = []

    def begin_superstep(self, invocations: Sequence[Invocation], hooks: RunHooks) -> None:
        assert hooks.iteration == invocations[0].iteration
        self.supersteps.append([f"{i.executor_id}:{i.index}" for i in invocations])

    async def invoke(
        self, invocation: Invocation, hooks: RunHooks, outbox: list[tuple[Any, str | None]]
    ) -> Any:
        self.invoked.append(invocation.idempotency_key)
        ctx: WorkflowContext[Any, Any] = WorkflowContext(
            hooks, invocation.executor_id, invocation.source, outbox, index=invocation.index
        )
        return await invocation.run(ctx)


async def test_an_invoker_sees_every_superstep_in_a_fixed_order_and_runs_every_call() -> None:
    seen: list[str] = []
    invoker = RecordingInvoker()
    run = WorkflowRun(keyed_workflow(seen), 3, run_id="run-1", invoker=invoker)
    assert await run.execute() is WorkflowRunState.IDLE
    assert sorted(map(str, run.outputs)) == ["item0", "item1", "item2"]
    assert invoker.supersteps == [["split:0"], ["even:0", "even:1", "odd:0"]]
    assert sorted(invoker.invoked) == sorted(["run-1/1/split/0", *seen])
    assert sorted(seen) == ["run-1/2/even/0", "run-1/2/even/1", "run-1/2/odd/0"]


async def test_a_handler_failure_inside_an_invoker_fails_the_run() -> None:
    @executor(id="broken")
    async def broken(n: int, ctx: WorkflowContext) -> None:
        raise ValueError("no")

    run = WorkflowRun(WorkflowBuilder(start_executor=broken).build(), 1, invoker=RecordingInvoker())
    events: list[WorkflowEvent[Any]] = []
    with pytest.raises(ExecutorFailedException, match="no"):
        await run.execute(sink=events.append)
    assert [e.executor_id for e in events if e.type == "executor_failed"] == ["broken"]
    with pytest.raises(WorkflowRunnerException, match="failed and cannot go on"):
        await run.execute()


@executor(id="ask")
async def ask(question: str, ctx: WorkflowContext) -> None:
    await ctx.request_info(question, int, request_id="q1")


async def test_a_driven_run_waits_for_answers_and_goes_on() -> None:
    class Asker(Executor):
        @handler
        async def ask(self, question: str, ctx: WorkflowContext) -> None:
            await ctx.request_info(question, int, request_id="q1")

        @response_handler
        async def on_answer(self, question: str, answer: int, ctx: WorkflowContext[Never, str]):
            await ctx.yield_output(f"{question} {answer}")

    run = WorkflowRun(WorkflowBuilder(start_executor=Asker()).build(), "how many?")
    assert await run.execute() is WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    (request,) = run.pending_requests
    assert (request.request_id, request.data, request.response_type) == ("q1", "how many?", int)
    WorkflowRun.check_answer(request, 3)
    with pytest.raises(WorkflowRunnerException, match="must be a int, not a str"):
        WorkflowRun.check_answer(request, "three")
    with pytest.raises(WorkflowRunnerException, match="no pending request has id 'q2'"):
        run.answer({"q2": 3})
    run.answer({"q1": 3})
    assert await run.execute() is WorkflowRunState.IDLE
    assert run.outputs == ["how many? 3"]
    assert run.pending_requests == []


def test_a_driven_run_refuses_an_input_its_start_executor_cannot_handle() -> None:
    with pytest.raises(WorkflowRunnerException, match="has no handler for a int input"):
        WorkflowRun(WorkflowBuilder(start_executor=ask).build(), 5)
