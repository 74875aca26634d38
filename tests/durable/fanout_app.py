"""A fan-out whose calls are spread over worker processes (for `agentry worker`).

`split` sends 20 items to `work`, a distributed executor: each call runs on whichever
worker takes it from the queue, notes its worker's pid in the table `calls`, and waits
until calls run on two workers at least (each worker takes two calls at a time, so the
first worker cannot take them all). `total` joins the results.

The databases are `$AGENTRY_DURABLE_DATABASE_URL` (the runs) and `$FANOUT_CALLS_URL` (the
table of calls), read when `create_runtime` is called.
"""

from __future__ import annotations

import asyncio
import os

from agentry.durable import DurableRuntime
from agentry.workflows import Workflow, WorkflowContext
from tests.durable.distributed_squares import ITEMS, Item, Square, build_squares
from tests.durable.outside_tables import OutsideTables

__all__ = ["CALLS_TABLE", "CALLS_URL_ENV", "ITEMS", "build_fanout", "create_runtime"]

CALLS_URL_ENV = "FANOUT_CALLS_URL"
CALLS_TABLE = "calls (key TEXT PRIMARY KEY, pid INTEGER)"


async def _two_workers(calls: OutsideTables) -> None:
    while calls.rows("SELECT count(DISTINCT pid) FROM calls")[0][0] < 2:
        await asyncio.sleep(0.05)


def build_fanout(calls: OutsideTables | None = None) -> Workflow:
    async def work(item: Item, ctx: WorkflowContext[Square]) -> None:
        if calls is not None:
            calls.note("calls", ctx.idempotency_key)
            await asyncio.wait_for(_two_workers(calls), 60)  # the timeout is a hang guard
        await ctx.send_message(Square(item.index, item.index * item.index))

    return build_squares("fanout", work)


def create_runtime() -> DurableRuntime:
    calls = OutsideTables(os.environ[CALLS_URL_ENV], [CALLS_TABLE])
    runtime = DurableRuntime(handler_concurrency=2)
    runtime.register(lambda: build_fanout(calls), distributed=["work"])
    return runtime
