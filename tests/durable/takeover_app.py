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

import sqlalchemy as sa

from agentry.durable import DurableRuntime
from agentry.workflows import Workflow, WorkflowContext
from tests.durable.distributed_squares import ITEMS, Item, Square, build_squares
from tests.durable.outside_tables import OutsideTables

__all__ = [
    "BLOCKING_ITEM",
    "EFFECTS_TABLES",
    "EFFECTS_URL_ENV",
    "ITEMS",
    "build_ledger",
    "create_runtime",
]

BLOCKING_ITEM = 7
EFFECTS_URL_ENV = "TAKEOVER_EFFECTS_URL"
EFFECTS_TABLES = (
    "effects (key TEXT PRIMARY KEY, value INTEGER)",
    "attempts (key TEXT, pid INTEGER)",
    "blocked (key TEXT, pid INTEGER)",
)
TAKEOVER_AFTER = 3.0


def _write_effect(effects: OutsideTables, key: str, value: int) -> int:
    """Note an attempt and write the effect once; how many attempts the key has had."""
    row = {"key": key, "value": value, "pid": os.getpid()}
    with effects.engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO attempts VALUES (:key, :pid)"), row)
        connection.execute(
            sa.text("INSERT INTO effects VALUES (:key, :value) ON CONFLICT (key) DO NOTHING"), row
        )
        attempts = connection.execute(
            sa.text("SELECT count(*) FROM attempts WHERE key = :key"), row
        ).scalar_one()
        return int(attempts)


def build_ledger(effects: OutsideTables | None = None) -> Workflow:
    async def work(item: Item, ctx: WorkflowContext[Square]) -> None:
        value = item.index * item.index
        if effects is not None:
            attempts = _write_effect(effects, ctx.idempotency_key, value)
            if item.index == BLOCKING_ITEM and attempts == 1:
                effects.note("blocked", ctx.idempotency_key)
                await asyncio.Event().wait()  # under way until its worker is killed
        await ctx.send_message(Square(item.index, value))

    return build_squares("ledger", work)


def create_runtime() -> DurableRuntime:
    effects = OutsideTables(os.environ[EFFECTS_URL_ENV], EFFECTS_TABLES)
    runtime = DurableRuntime(handler_concurrency=1, takeover_after=TAKEOVER_AFTER)
    runtime.register(lambda: build_ledger(effects), distributed=["work"])
    return runtime
