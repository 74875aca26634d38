"""A fan-out whose calls are spread over worker processes (for `agentry worker`).

`split` sends 20 items to `work`, a distributed executor: each call runs on whichever
worker takes it from the queue, notes its worker's pid in a table, and waits until calls
run on two workers at least (each worker takes two calls at a time, so the first worker
cannot take them all). `total` joins the results.

The databases are `$AGENTRY_DURABLE_DATABASE_URL` (the runs) and `$FANOUT_CALLS_URL` (the
table of calls), read when `create_runtime` is called.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

import sqlalchemy as sa
from typing_extensions import Never

from agentry.durable import DurableRuntime
from agentry.workflows import Workflow, WorkflowBuilder, WorkflowContext, executor

ITEMS = 20
CALLS_URL_ENV = "FANOUT_CALLS_URL"


@dataclass
class Item:
    index: int


@dataclass
class Square:
    index: int
    value: int


class Calls:
    """The table each call notes itself in: its idempotency key and its worker's pid."""

    def __init__(self, url: str) -> None:
        self.engine = sa.create_engine(url)
        with self.engine.begin() as connection:
            connection.execute(
                sa.text("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, pid INTEGER)")
            )

    def note(self, key: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                sa.text("INSERT INTO calls (key, pid) VALUES (:key, :pid) ON CONFLICT DO NOTHING"),
                {"key": key, "pid": os.getpid()},
            )

    def workers(self) -> int:
        with self.engine.connect() as connection:
            return int(
                connection.execute(sa.text("SELECT count(DISTINCT pid) FROM calls")).scalar_one()
            )


async def _two_workers(calls: Calls) -> None:
    while calls.workers() < 2:
        await asyncio.sleep(0.05)


def build_fanout(calls: Calls | None = None) -> Workflow:
    @executor(id="split")
    async def split(count: int, ctx: WorkflowContext[Item]) -> None:
        for index in range(count):
            await ctx.send_message(Item(index))

    @executor(id="work")
    async def work(item: Item, ctx: WorkflowContext[Square]) -> None:
        if calls is not None:
            calls.note(ctx.idempotency_key)
            await asyncio.wait_for(_two_workers(calls), 60)  # the timeout is a hang guard
        await ctx.send_message(Square(item.index, item.index * item.index))

    @executor(id="total")
    async def total(squares: list[Square], ctx: WorkflowContext[Never, list[int]]) -> None:
        await ctx.yield_output([s.value for s in sorted(squares, key=lambda s: s.index)])

    return (
        WorkflowBuilder(name="fanout", start_executor=split)
        .add_edge(split, work)
        .add_fan_in_edges([work], total)
        .build()
    )


def create_runtime() -> DurableRuntime:
    calls = Calls(os.environ[CALLS_URL_ENV])
    runtime = DurableRuntime(handler_concurrency=2)
    runtime.register(lambda: build_fanout(calls), distributed=["work"])
    return runtime
