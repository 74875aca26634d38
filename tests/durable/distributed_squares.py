"""The distributed fan-out that the worker-process tests run.

`split` sends one `Item` per index to `work`, an executor the runtime distributes over the
workers; `total` joins the `Square`s into the list of squares, in order. Each app gives
its own `work`, which notes what it does in `OutsideTables`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from typing_extensions import Never

from agentry.workflows import Workflow, WorkflowBuilder, WorkflowContext, executor

__all__ = ["ITEMS", "Item", "Square", "build_squares"]

ITEMS = 20


@dataclass
class Item:
    index: int


@dataclass
class Square:
    index: int
    value: int


Work = Callable[[Item, WorkflowContext[Square]], Awaitable[None]]


def build_squares(name: str, work: Work) -> Workflow:
    """`split` -> `work` (the app's) -> `total`, a fan-in of every `Square`."""

    @executor(id="split")
    async def split(count: int, ctx: WorkflowContext[Item]) -> None:
        for index in range(count):
            await ctx.send_message(Item(index))

    @executor(id="total")
    async def total(squares: list[Square], ctx: WorkflowContext[Never, list[int]]) -> None:
        await ctx.yield_output([s.value for s in sorted(squares, key=lambda s: s.index)])

    worker = executor(work, id="work")
    return (
        WorkflowBuilder(name=name, start_executor=split)
        .add_edge(split, worker)
        .add_fan_in_edges([worker], total)
        .build()
    )
