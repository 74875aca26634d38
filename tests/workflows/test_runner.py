from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable
from typing import Any

import pytest
from typing_extensions import Never

from agentry.workflows import (
    ExecutorFailedException,
    FunctionExecutor,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowConvergenceException,
    WorkflowEvent,
    WorkflowRunnerException,
    WorkflowRunState,
    executor,
)


async def collect(
    stream: AsyncIterable[WorkflowEvent[Any]], into: list[WorkflowEvent[Any]]
) -> None:
    """Gather a stream's events into `into` (kept even when the stream raises)."""
    async for event in stream:
        into.append(event)


def forwarder(name: str) -> FunctionExecutor:
    async def forward(n: int, ctx: WorkflowContext[int, int]) -> None:
        await ctx.yield_output(n)
        await ctx.send_message(n + 1)

    return executor(forward, id=name)


async def test_events_follow_the_supersteps() -> None:
    @executor
    async def first(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n + 1)

    @executor
    async def second(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    workflow = WorkflowBuilder(start_executor=first).add_edge(first, second).build()
    result = await workflow.run(1, include_status_events=True)
    assert [(e.type, e.executor_id or e.iteration or e.state) for e in result] == [
        ("started", None),
        ("status", WorkflowRunState.IN_PROGRESS),
        ("superstep_started", 1),
        ("executor_invoked", "first"),
        ("executor_completed", "first"),
        ("superstep_completed", 1),
        ("superstep_started", 2),
        ("executor_invoked", "second"),
        ("output", "second"),
        ("executor_completed", "second"),
        ("superstep_completed", 2),
        ("status", WorkflowRunState.IDLE),
    ]
    assert result.get_final_state() is WorkflowRunState.IDLE
    assert [e.state for e in result.status_timeline()] == [
        WorkflowRunState.IN_PROGRESS,
        WorkflowRunState.IDLE,
    ]
    assert [e.data for e in result if e.type == "executor_invoked"] == [1, 2]


async def test_status_events_are_left_out_of_results_unless_asked() -> None:
    workflow = WorkflowBuilder(start_executor=forwarder("only")).build()
    result = await workflow.run(1)
    assert [e for e in result if e.type == "status"] == []
    assert result.get_final_state() is WorkflowRunState.IDLE


async def test_executors_of_one_superstep_run_concurrently() -> None:
    ready = {"left": asyncio.Event(), "right": asyncio.Event()}

    def meeting(name: str, other: str) -> FunctionExecutor:
        async def meet(n: int, ctx: WorkflowContext[Never, str]) -> None:
            ready[name].set()
            # Only possible when the other executor runs at the same time.
            await asyncio.wait_for(ready[other].wait(), timeout=10)
            await ctx.yield_output(name)

        return executor(meet, id=name)

    start = forwarder("start")
    left, right = meeting("left", "right"), meeting("right", "left")
    workflow = (
        WorkflowBuilder(start_executor=start, output_from=[left, right])
        .add_fan_out_edges(start, [left, right])
        .build()
    )
    assert sorted((await workflow.run(0)).get_outputs()) == ["left", "right"]


async def test_one_executor_handles_its_messages_one_at_a_time_in_order() -> None:
    active: list[int] = []
    order: list[int] = []

    @executor
    async def spread(n: int, ctx: WorkflowContext[int]) -> None:
        for i in range(5):
            await ctx.send_message(i)

    @executor
    async def serial(n: int, ctx: WorkflowContext[Never, int]) -> None:
        active.append(n)
        assert len(active) == 1, "two messages were handled at once"
        await asyncio.sleep(0)
        order.append(n)
        active.remove(n)

    workflow = WorkflowBuilder(start_executor=spread).add_edge(spread, serial).build()
    await workflow.run(0)
    assert order == [0, 1, 2, 3, 4]


async def test_output_selection_decides_output_intermediate_or_hidden() -> None:
    a, b, c = forwarder("a"), forwarder("b"), forwarder("c")

    @executor
    async def end(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    workflow = (
        WorkflowBuilder(start_executor=a, output_from=[end], intermediate_output_from=[b])
        .add_chain([a, b, c, end])
        .build()
    )
    result = await workflow.run(0)
    assert result.get_outputs() == [3]
    assert result.get_intermediate_outputs() == [1]
    assert {e.executor_id for e in result if e.type in ("output", "intermediate")} == {"end", "b"}

    everything = (
        WorkflowBuilder(start_executor=a, output_from=[end], intermediate_output_from="all_other")
        .add_chain([a, b, c, end])
        .build()
    )
    result = await everything.run(0)
    assert result.get_outputs() == [3]
    assert result.get_intermediate_outputs() == [0, 1, 2]


async def test_an_executor_that_raises_fails_the_run_with_events_naming_it() -> None:
    @executor
    async def broken(n: int, ctx: WorkflowContext[int]) -> None:
        raise ValueError(f"cannot handle {n}")

    start = forwarder("start")
    workflow = WorkflowBuilder(start_executor=start).add_edge(start, broken).build()

    with pytest.raises(
        ExecutorFailedException, match="executor 'broken' failed: ValueError"
    ) as caught:
        await workflow.run(1)
    assert caught.value.executor_id == "broken"
    assert isinstance(caught.value.__cause__, ValueError)

    events: list[WorkflowEvent[Any]] = []
    with pytest.raises(ExecutorFailedException):
        await collect(workflow.run(1, stream=True), events)
    failed_executor = [e for e in events if e.type == "executor_failed"]
    assert len(failed_executor) == 1
    assert failed_executor[0].executor_id == "broken"
    details = failed_executor[0].details
    assert details is not None
    assert (details.error_type, details.message) == ("ValueError", "cannot handle 2")
    assert details.traceback is not None
    assert "raise ValueError" in details.traceback
    assert [e.type for e in events[-2:]] == ["failed", "status"]
    assert events[-2].details is not None
    assert events[-2].details.executor_id == "broken"
    assert events[-1].state is WorkflowRunState.FAILED


async def test_other_executors_of_the_failing_superstep_still_finish() -> None:
    finished: list[str] = []

    @executor
    async def broken(n: int, ctx: WorkflowContext[int]) -> None:
        raise RuntimeError("boom")

    @executor
    async def fine(n: int, ctx: WorkflowContext[int]) -> None:
        await asyncio.sleep(0)
        finished.append("fine")

    start = forwarder("start")
    workflow = (
        WorkflowBuilder(start_executor=start).add_fan_out_edges(start, [broken, fine]).build()
    )
    with pytest.raises(ExecutorFailedException, match="'broken'"):
        await workflow.run(0)
    assert finished == ["fine"]


async def test_a_failed_run_cannot_be_continued() -> None:
    @executor
    async def broken(n: int, ctx: WorkflowContext[int]) -> None:
        raise RuntimeError("boom")

    workflow = WorkflowBuilder(start_executor=broken).build()
    with pytest.raises(ExecutorFailedException):
        await workflow.run(0)
    with pytest.raises(WorkflowRunnerException, match="the last run failed"):
        await workflow.run(responses={"x": 1})


async def test_the_superstep_limit_stops_endless_loops() -> None:
    @executor
    async def forever(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n + 1)

    workflow = WorkflowBuilder(5, start_executor=forever).add_edge(forever, forever).build()
    with pytest.raises(WorkflowConvergenceException, match="did not finish within 5 supersteps"):
        await workflow.run(0)

    events: list[WorkflowEvent[Any]] = []
    with pytest.raises(WorkflowConvergenceException):
        await collect(workflow.run(0, stream=True), events)
    assert len([e for e in events if e.type == "superstep_completed"]) == 5
    assert events[-2].type == "failed"
    assert events[-2].details is not None
    assert events[-2].details.error_type == "WorkflowConvergenceException"


async def test_shared_state_is_seen_by_later_executors() -> None:
    @executor
    async def writer(n: int, ctx: WorkflowContext[int]) -> None:
        ctx.set_state("seen", [n])
        ctx.set_state("temp", True)
        await ctx.send_message(n)

    @executor
    async def reader(n: int, ctx: WorkflowContext[Never, Any]) -> None:
        ctx.delete_state("temp")
        await ctx.yield_output(
            (ctx.get_state("seen"), ctx.has_state("temp"), ctx.get_state("x", 0))
        )

    workflow = WorkflowBuilder(start_executor=writer).add_edge(writer, reader).build()
    assert (await workflow.run(3)).get_outputs() == [([3], False, 0)]


async def test_shared_state_starts_empty_for_each_new_run() -> None:
    @executor
    async def count(n: int, ctx: WorkflowContext[Never, int]) -> None:
        ctx.set_state("runs", ctx.get_state("runs", 0) + 1)
        await ctx.yield_output(ctx.get_state("runs"))

    workflow = WorkflowBuilder(start_executor=count).build()
    assert (await workflow.run(0)).get_outputs() == [1]
    assert (await workflow.run(0)).get_outputs() == [1]


async def test_streamed_events_arrive_while_the_run_goes_on() -> None:
    seen_by_consumer = asyncio.Event()

    @executor
    async def talk(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("first")
        # The consumer must see "first" before this handler can go on.
        await asyncio.wait_for(seen_by_consumer.wait(), timeout=10)
        await ctx.yield_output("second")

    workflow = WorkflowBuilder(start_executor=talk).build()
    stream = workflow.run(0, stream=True)
    outputs: list[str] = []
    async for event in stream:
        if event.type == "output":
            outputs.append(event.data)
            seen_by_consumer.set()
    assert outputs == ["first", "second"]
    final = await stream.get_final_response()
    assert final.get_outputs() == ["first", "second"]
    assert final.get_final_state() is WorkflowRunState.IDLE


async def test_closing_a_stream_early_cancels_the_run() -> None:
    cancelled = asyncio.Event()

    @executor
    async def slow(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("started")
        if n == 0:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise

    workflow = WorkflowBuilder(start_executor=slow).build()
    stream = workflow.run(0, stream=True)
    async for event in stream:
        if event.type == "output":
            break
    await stream.aclose()
    assert cancelled.is_set()
    # The workflow is free for the next run.
    assert (await workflow.run(1)).get_outputs() == ["started"]


async def test_one_run_at_a_time() -> None:
    release = asyncio.Event()

    @executor
    async def wait(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await asyncio.wait_for(release.wait(), timeout=10)
        await ctx.yield_output(n)

    workflow = WorkflowBuilder(start_executor=wait).build()
    first = asyncio.ensure_future(workflow.run(1))
    await asyncio.sleep(0)
    with pytest.raises(WorkflowRunnerException, match="already running"):
        await workflow.run(2)
    release.set()
    assert (await first).get_outputs() == [1]
    assert (await workflow.run(3)).get_outputs() == [3]


async def test_the_input_must_fit_the_start_executor() -> None:
    workflow = WorkflowBuilder(start_executor=forwarder("start")).build()
    with pytest.raises(
        WorkflowRunnerException, match=r"has no handler for a str input; it accepts \['int'\]"
    ):
        await workflow.run("text")


async def test_run_argument_errors() -> None:
    workflow = WorkflowBuilder(start_executor=forwarder("start")).build()
    with pytest.raises(WorkflowRunnerException, match="nothing to run"):
        await workflow.run()
    with pytest.raises(WorkflowRunnerException, match="not both"):
        await workflow.run(1, responses={"a": 1})
    with pytest.raises(WorkflowRunnerException, match="there is no run to continue"):
        await workflow.run(responses={"a": 1})
    with pytest.raises(WorkflowRunnerException, match="checkpoint_id= needs a storage"):
        await workflow.run(checkpoint_id="abc")


async def test_executors_can_emit_their_own_events() -> None:
    @executor
    async def progress(n: int, ctx: WorkflowContext) -> None:
        await ctx.add_event(WorkflowEvent("progress", {"done": n}))

    result = await WorkflowBuilder(start_executor=progress).build().run(50)
    custom = [e for e in result if e.type == "progress"]
    assert len(custom) == 1
    assert custom[0].data == {"done": 50}
    assert custom[0].executor_id == "progress"


async def test_returned_values_are_sent_on() -> None:
    @executor
    async def double(n: int, ctx: WorkflowContext[int]) -> int:
        return n * 2

    @executor
    async def show(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    workflow = WorkflowBuilder(start_executor=double).add_edge(double, show).build()
    assert (await workflow.run(21)).get_outputs() == [42]


async def test_streams_know_they_stream() -> None:
    @executor
    async def mode(n: int, ctx: WorkflowContext[Never, bool]) -> None:
        await ctx.yield_output(ctx.is_streaming)

    workflow = WorkflowBuilder(start_executor=mode).build()
    assert (await workflow.run(0)).get_outputs() == [False]
    assert (await workflow.run(0, stream=True)).get_outputs() == [True]
