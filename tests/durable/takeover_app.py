"""A distributed fan-out for the takeover test (for `agentry worker`).

`split` sends 20 items to `work`, a distributed executor whose calls spread over the
workers, one call at a time per worker. Each call notes its attempt, and writes its side
effect under its idempotency key (a second write with the same key does nothing). The
first attempt of item 7 then notes itself in `blocked` and never returns: the test kills
the worker running it, and a live worker takes the call over.

The databases are `$AGENTRY_DURABLE_DATABASE_URL` (the runs) and `$TAKEOVER_EFFECTS_URL`
(the side effects), read when `create_runtime` is called.
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
BLOCKING_ITEM = 7
EFFECTS_URL_ENV = "TAKEOVER_EFFECTS_URL"
TAKEOVER_AFTER = 3.0


@dataclass
class Item:
    index: int


@dataclass
class Square:
    index: int
    value: int


class Effects:
    """The outside system: side effects by idempotency key, every attempt, the blocked call."""

    def __init__(self, url: str) -> None:
        self.engine = sa.create_engine(url)
        with self.engine.begin() as connection:
            for table in (
                "effects (key TEXT PRIMARY KEY, value INTEGER)",
                "attempts (key TEXT, pid INTEGER)",
                "blocked (key TEXT, pid INTEGER)",
            ):
                connection.execute(sa.text(f"CREATE TABLE IF NOT EXISTS {table}"))

    def write(self, key: str, value: int) -> int:
        """Note an attempt and write the effect once; how many attempts the key has had."""
        row = {"key": key, "value": value, "pid": os.getpid()}
        with self.engine.begin() as connection:
            connection.execute(sa.text("INSERT INTO attempts VALUES (:key, :pid)"), row)
            connection.execute(
                sa.text("INSERT INTO effects VALUES (:key, :value) ON CONFLICT (key) DO NOTHING"),
                row,
            )
            attempts = connection.execute(
                sa.text("SELECT count(*) FROM attempts WHERE key = :key"), row
            ).scalar_one()
            return int(attempts)

    def block(self, key: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                sa.text("INSERT INTO blocked VALUES (:key, :pid)"),
                {"key": key, "pid": os.getpid()},
            )


def build_ledger(effects: Effects | None = None) -> Workflow:
    @executor(id="split")
    async def split(count: int, ctx: WorkflowContext[Item]) -> None:
        for index in range(count):
            await ctx.send_message(Item(index))

    @executor(id="work")
    async def work(item: Item, ctx: WorkflowContext[Square]) -> None:
        value = item.index * item.index
        if effects is not None:
            attempts = effects.write(ctx.idempotency_key, value)
            if item.index == BLOCKING_ITEM and attempts == 1:
                effects.block(ctx.idempotency_key)
                await asyncio.Event().wait()  # under way until its worker is killed
        await ctx.send_message(Square(item.index, value))

    @executor(id="total")
    async def total(squares: list[Square], ctx: WorkflowContext[Never, list[int]]) -> None:
        await ctx.yield_output([s.value for s in sorted(squares, key=lambda s: s.index)])

    return (
        WorkflowBuilder(name="ledger", start_executor=split)
        .add_edge(split, work)
        .add_fan_in_edges([work], total)
        .build()
    )


def create_runtime() -> DurableRuntime:
    effects = Effects(os.environ[EFFECTS_URL_ENV])
    runtime = DurableRuntime(handler_concurrency=1, takeover_after=TAKEOVER_AFTER)
    runtime.register(lambda: build_ledger(effects), distributed=["work"])
    return runtime
