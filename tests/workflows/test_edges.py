from __future__ import annotations

from collections.abc import AsyncIterable, Sequence
from typing import Any

import pytest
from typing_extensions import Never

from agentry.workflows import (
    Case,
    Default,
    ExecutorFailedException,
    FunctionExecutor,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    executor,
)


async def collect(
    stream: AsyncIterable[WorkflowEvent[Any]], into: list[WorkflowEvent[Any]]
) -> None:
    """Gather a stream's events into `into` (kept even when the stream raises)."""
    async for event in stream:
        into.append(event)


def collector(name: str) -> FunctionExecutor:
    """An executor that yields what it receives, tagged with its id."""

    async def collect(value: Any, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{name}:{value}")

    return executor(collect, id=name)


def forwarder(name: str) -> FunctionExecutor:
    async def forward(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n)

    return executor(forward, id=name)


async def test_single_edge_carries_every_message() -> None:
    start, end = forwarder("start"), collector("end")
    result = await WorkflowBuilder(start_executor=start).add_edge(start, end).build().run(7)
    assert result.get_outputs() == ["end:7"]


async def test_conditional_edges_route_by_predicate() -> None:
    start, small, big = forwarder("start"), collector("small"), collector("big")
    workflow = (
        WorkflowBuilder(start_executor=start)
        .add_edge(start, small, condition=lambda n: n < 10)
        .add_edge(start, big, condition=lambda n: n >= 10)
        .build()
    )
    assert (await workflow.run(3)).get_outputs() == ["small:3"]
    assert (await workflow.run(30)).get_outputs() == ["big:30"]


async def test_async_conditions_are_awaited() -> None:
    async def is_even(n: int) -> bool:
        return n % 2 == 0

    start, even = forwarder("start"), collector("even")
    workflow = (
        WorkflowBuilder(start_executor=start).add_edge(start, even, condition=is_even).build()
    )
    assert (await workflow.run(4)).get_outputs() == ["even:4"]
    result = await workflow.run(5)
    assert result.get_outputs() == []
    assert [e.data for e in result if e.type == "warning"] == [
        "a int message from 'start' reached no executor: none of its edges took it (their "
        "conditions, selections and the targets' handler types decide)"
    ]


async def test_sends_of_an_executor_without_edges_are_dropped_quietly() -> None:
    end = forwarder("end")
    result = await WorkflowBuilder(start_executor=end).build().run(1)
    assert [e for e in result if e.type == "warning"] == []


async def test_fan_out_delivers_to_every_target_in_one_superstep() -> None:
    start = forwarder("start")
    targets = [collector(f"t{i}") for i in range(3)]
    result = (
        await WorkflowBuilder(start_executor=start).add_fan_out_edges(start, targets).build().run(1)
    )
    assert sorted(result.get_outputs()) == ["t0:1", "t1:1", "t2:1"]
    supersteps = [e.iteration for e in result if e.type == "superstep_started"]
    assert supersteps == [1, 2]


async def test_fan_out_with_a_selection_function_picks_targets() -> None:
    def pick(n: int, target_ids: list[str]) -> Sequence[str]:
        return target_ids[:n]

    start = forwarder("start")
    targets = [collector(f"t{i}") for i in range(3)]
    workflow = WorkflowBuilder(start_executor=start).add_fan_out_edges(start, targets, pick).build()
    assert sorted((await workflow.run(2)).get_outputs()) == ["t0:2", "t1:2"]


async def test_multi_selection_with_an_async_selector() -> None:
    async def odd_or_even(n: int, target_ids: list[str]) -> list[str]:
        return [target_ids[n % 2]]

    start, even, odd = forwarder("start"), collector("even"), collector("odd")
    workflow = (
        WorkflowBuilder(start_executor=start)
        .add_multi_selection_edge_group(start, [even, odd], odd_or_even)
        .build()
    )
    assert (await workflow.run(3)).get_outputs() == ["odd:3"]
    assert (await workflow.run(8)).get_outputs() == ["even:8"]


async def test_a_selection_naming_an_unknown_target_fails_the_run() -> None:
    start, a = forwarder("start"), collector("a")
    workflow = (
        WorkflowBuilder(start_executor=start)
        .add_multi_selection_edge_group(start, [a], lambda n, ids: ["nope"])
        .build()
    )
    events: list[WorkflowEvent[Any]] = []
    with pytest.raises(ExecutorFailedException, match=r"chose 'nope', which is not one of its"):
        await collect(workflow.run(1, stream=True), events)
    failed = [e for e in events if e.type == "failed"]
    assert len(failed) == 1
    assert failed[0].details is not None
    assert failed[0].details.executor_id == "start"


async def test_switch_case_takes_the_first_matching_case_else_the_default() -> None:
    start = forwarder("start")
    negative, small, other = collector("negative"), collector("small"), collector("other")
    workflow = (
        WorkflowBuilder(start_executor=start)
        .add_switch_case_edge_group(
            start,
            [
                Case(condition=lambda n: n < 0, target=negative),
                Case(condition=lambda n: n < 10, target=small),
                Default(target=other),
            ],
        )
        .build()
    )
    assert (await workflow.run(-1)).get_outputs() == ["negative:-1"]
    assert (await workflow.run(5)).get_outputs() == ["small:5"]
    assert (await workflow.run(50)).get_outputs() == ["other:50"]


async def test_switch_case_with_async_conditions() -> None:
    async def is_big(n: int) -> bool:
        return n > 100

    start, big, other = forwarder("start"), collector("big"), collector("other")
    workflow = (
        WorkflowBuilder(start_executor=start)
        .add_switch_case_edge_group(start, [Case(is_big, big), Default(other)])
        .build()
    )
    assert (await workflow.run(500)).get_outputs() == ["big:500"]
    assert (await workflow.run(5)).get_outputs() == ["other:5"]


async def test_fan_in_delivers_one_list_of_everything_in_source_order() -> None:
    start = forwarder("start")

    def scaled(name: str, factor: int) -> FunctionExecutor:
        async def scale(n: int, ctx: WorkflowContext[int]) -> None:
            await ctx.send_message(n * factor)
            await ctx.send_message(n * factor + 1)

        return executor(scale, id=name)

    first, second = scaled("first", 10), scaled("second", 100)

    @executor
    async def join(values: list[int], ctx: WorkflowContext[Never, list[int]]) -> None:
        await ctx.yield_output(values)
        await ctx.yield_output(ctx.source_executor_ids)  # type: ignore[arg-type]

    workflow = (
        WorkflowBuilder(start_executor=start)
        .add_fan_out_edges(start, [second, first])
        .add_fan_in_edges([first, second], join)
        .build()
    )
    result = await workflow.run(1)
    assert result.get_outputs() == [[10, 11, 100, 101], ["first", "second"]]


async def test_fan_in_waits_for_sources_that_arrive_in_later_supersteps() -> None:
    start = forwarder("start")
    quick, slow1 = forwarder("quick"), forwarder("slow1")
    slow2 = forwarder("slow2")

    @executor
    async def join(values: list[int], ctx: WorkflowContext[Never, list[int]]) -> None:
        await ctx.yield_output(values)

    workflow = (
        WorkflowBuilder(start_executor=start)
        .add_fan_out_edges(start, [quick, slow1])
        .add_edge(slow1, slow2)
        .add_fan_in_edges([quick, slow2], join)
        .build()
    )
    result = await workflow.run(5)
    assert result.get_outputs() == [[5, 5]]
    invoked = [(e.executor_id) for e in result if e.type == "executor_invoked"]
    assert invoked == ["start", "quick", "slow1", "slow2", "join"]


async def test_chain_connects_in_order() -> None:
    stages = [forwarder(f"s{i}") for i in range(4)]
    end = collector("end")
    result = (
        await WorkflowBuilder(start_executor=stages[0]).add_chain([*stages, end]).build().run(9)
    )
    assert result.get_outputs() == ["end:9"]
    assert [e.executor_id for e in result if e.type == "executor_invoked"] == [
        "s0",
        "s1",
        "s2",
        "s3",
        "end",
    ]


async def test_send_message_to_a_target_id_reaches_only_that_target() -> None:
    @executor
    async def start(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n, target_id="b")

    a, b = collector("a"), collector("b")
    workflow = WorkflowBuilder(start_executor=start).add_fan_out_edges(start, [a, b]).build()
    assert (await workflow.run(1)).get_outputs() == ["b:1"]


async def test_typed_routing_delivers_only_to_targets_that_accept_the_type() -> None:
    @executor
    async def start(n: int, ctx: WorkflowContext[int | str]) -> None:
        await ctx.send_message(n)
        await ctx.send_message(str(n))

    @executor
    async def numbers(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"number {n}")

    @executor
    async def texts(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"text {text}")

    workflow = (
        WorkflowBuilder(start_executor=start).add_fan_out_edges(start, [numbers, texts]).build()
    )
    result = await workflow.run(3)
    assert sorted(result.get_outputs()) == ["number 3", "text 3"]
    assert [e for e in result if e.type == "warning"] == []


async def test_loops_run_until_a_condition_stops_them() -> None:
    @executor
    async def count(n: int, ctx: WorkflowContext[int, int]) -> None:
        if n < 5:
            await ctx.send_message(n + 1)
        else:
            await ctx.yield_output(n)

    workflow = WorkflowBuilder(start_executor=count).add_edge(count, count).build()
    result = await workflow.run(0)
    assert result.get_outputs() == [5]
    assert len([e for e in result if e.type == "superstep_started"]) == 6
