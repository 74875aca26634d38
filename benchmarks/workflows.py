"""Workflow engine benchmark: messages per second against a bare asyncio baseline.

Two shapes, each run many times:

- chain: 10 executors in a line, each adding one to an int (10 handler calls per run);
- fan-out/fan-in: one splitter, 100 workers, one aggregator receiving the list of 100
  results (102 handler calls per run).

The baseline does the same hops with plain coroutines: awaiting the ten steps in turn, and
`asyncio.gather` over the hundred workers. The engine's overhead per hop is
(engine time - baseline time) / hops. Run with `python -m benchmarks.workflows`.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass

from agentry.workflows import (
    FunctionExecutor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)
from benchmarks._timing import best_of

__all__ = ["CHAIN_LENGTH", "build_chain", "main", "measure"]

CHAIN_LENGTH = 10
FAN_WIDTH = 100


@dataclass
class Measurement:
    """One shape's figures: seconds per run of the engine and of the baseline."""

    name: str
    hops_per_run: int
    engine_seconds: float
    baseline_seconds: float

    @property
    def engine_rate(self) -> float:
        """Messages (handler calls) per second through the engine."""
        return self.hops_per_run / self.engine_seconds

    @property
    def baseline_rate(self) -> float:
        """Messages per second through the baseline."""
        return self.hops_per_run / self.baseline_seconds

    @property
    def ratio(self) -> float:
        """Engine time over baseline time."""
        return self.engine_seconds / self.baseline_seconds

    @property
    def overhead_us_per_hop(self) -> float:
        """The engine's own cost per hop, in microseconds."""
        return (self.engine_seconds - self.baseline_seconds) / self.hops_per_run * 1e6


def build_chain(*, name: str | None = None) -> Workflow:
    """Ten executors in a line, each adding one; the last yields the result."""
    steps: list[FunctionExecutor] = []
    for index in range(CHAIN_LENGTH - 1):

        async def step(n: int, ctx: WorkflowContext[int]) -> None:
            await ctx.send_message(n + 1)

        steps.append(executor(step, id=f"step{index}"))

    async def last(n: int, ctx: WorkflowContext[None, int]) -> None:
        await ctx.yield_output(n + 1)

    steps.append(executor(last, id="last"))
    return WorkflowBuilder(name=name, start_executor=steps[0]).add_chain(steps).build()


def build_fan() -> Workflow:
    """A splitter, FAN_WIDTH workers and an aggregator joined by a fan-in."""

    async def split(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n)

    async def work(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n + 1)

    async def total(values: list[int], ctx: WorkflowContext[None, int]) -> None:
        await ctx.yield_output(sum(values))

    splitter = executor(split, id="split")
    workers = [executor(work, id=f"worker{i}") for i in range(FAN_WIDTH)]
    aggregator = executor(total, id="total")
    return (
        WorkflowBuilder(start_executor=splitter)
        .add_fan_out_edges(splitter, workers)
        .add_fan_in_edges(workers, aggregator)
        .build()
    )


async def baseline_chain(n: int) -> int:
    """The chain's hops as plain awaits."""

    async def step(value: int) -> int:
        return value + 1

    for _ in range(CHAIN_LENGTH):
        n = await step(n)
    return n


async def baseline_fan(n: int) -> int:
    """The fan-out/fan-in's hops as gather over plain coroutines."""

    async def split(value: int) -> int:
        return value

    async def work(value: int) -> int:
        return value + 1

    async def total(values: list[int]) -> int:
        return sum(values)

    value = await split(n)
    results = await asyncio.gather(*(work(value) for _ in range(FAN_WIDTH)))
    return await total(list(results))


def measure(runs_chain: int = 2000, runs_fan: int = 200, repeats: int = 7) -> list[Measurement]:
    """Time both shapes on the engine and on the baseline (best round of `repeats`)."""
    chain, fan = build_chain(), build_fan()
    chain_result = asyncio.run(chain.run(0))
    fan_result = asyncio.run(fan.run(0))
    assert chain_result.get_outputs() == [CHAIN_LENGTH], chain_result.get_outputs()
    assert fan_result.get_outputs() == [FAN_WIDTH], fan_result.get_outputs()

    async def run_chain() -> None:
        await chain.run(0)

    async def run_chain_baseline() -> None:
        await baseline_chain(0)

    async def run_fan() -> None:
        await fan.run(0)

    async def run_fan_baseline() -> None:
        await baseline_fan(0)

    return [
        Measurement(
            "chain of 10",
            CHAIN_LENGTH,
            best_of(repeats, runs_chain, run_chain),
            best_of(repeats, runs_chain, run_chain_baseline),
        ),
        Measurement(
            f"fan-out/fan-in x{FAN_WIDTH}",
            FAN_WIDTH + 2,
            best_of(repeats, runs_fan, run_fan),
            best_of(repeats, runs_fan, run_fan_baseline),
        ),
    ]


def report(measurements: list[Measurement]) -> str:
    """The figures as a table."""
    lines = [
        f"{'shape':<24}{'engine msg/s':>14}{'asyncio msg/s':>15}{'ratio':>8}{'us/hop':>9}",
    ]
    for m in measurements:
        lines.append(
            f"{m.name:<24}{m.engine_rate:>14,.0f}{m.baseline_rate:>15,.0f}"
            f"{m.ratio:>8.1f}{m.overhead_us_per_hop:>9.1f}"
        )
    return "\n".join(lines)


def main() -> None:
    """Print the workflow benchmark."""
    quick = "--quick" in sys.argv
    measurements = measure(runs_chain=200, runs_fan=20, repeats=2) if quick else measure()
    print("workflow engine vs bare asyncio (ratio = engine time / baseline time)")
    print(report(measurements))


if __name__ == "__main__":
    main()
