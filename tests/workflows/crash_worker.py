"""A workflow process for the crash-resume test (run as a script, not collected by pytest).

    python crash_worker.py DB start --crash-at ROUND:ITEM   # blocks at that item, to be killed
    python crash_worker.py DB resume                         # resumes from the newest checkpoint

The workflow runs ROUNDS rounds. In each, `split` sends ITEMS items to two workers (by
parity), a fan-in `collect` joins their results, yields one `RoundDone`, and starts the
next round. Every line printed is JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from typing import Any

from agentry.workflows import (
    Executor,
    SQLiteCheckpointStorage,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    handler,
)

ROUNDS = 4
ITEMS = 6
NAME = "crash-pipeline"


@dataclass
class Batch:
    round: int


@dataclass
class Item:
    round: int
    index: int


@dataclass
class Done:
    round: int
    index: int
    worker: str


@dataclass
class RoundDone:
    round: int
    indexes: list[int]
    total_seen: int


def emit(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


class Split(Executor):
    @handler
    async def split(self, batch: Batch, ctx: WorkflowContext[Item]) -> None:
        for index in range(ITEMS):
            await ctx.send_message(Item(batch.round, index))


class Worker(Executor):
    def __init__(self, id: str, crash_at: tuple[int, int] | None) -> None:
        super().__init__(id=id)
        self.crash_at = crash_at

    @handler
    async def work(self, item: Item, ctx: WorkflowContext[Done]) -> None:
        if (item.round, item.index) == self.crash_at:
            emit(event="blocking", worker=self.id, round=item.round, index=item.index)
            await asyncio.Event().wait()  # stay here until the test kills the process
        emit(event="handled", worker=self.id, round=item.round, index=item.index)
        await ctx.send_message(Done(item.round, item.index, self.id))


class Collect(Executor):
    def __init__(self) -> None:
        super().__init__(id="collect")
        self.total_seen = 0

    @handler
    async def collect(self, done: list[Done], ctx: WorkflowContext[Batch, RoundDone]) -> None:
        self.total_seen += len(done)
        round_number = done[0].round
        await ctx.yield_output(
            RoundDone(round_number, sorted(d.index for d in done), self.total_seen)
        )
        if round_number + 1 < ROUNDS:
            await ctx.send_message(Batch(round_number + 1))

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {"total_seen": self.total_seen}

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self.total_seen = state["total_seen"]


def by_parity(item: Item, target_ids: list[str]) -> list[str]:
    return [target_ids[item.index % 2]]


def build(crash_at: tuple[int, int] | None) -> Workflow:
    split = Split(id="split")
    even, odd = Worker("even", None), Worker("odd", crash_at)
    collect = Collect()
    return (
        WorkflowBuilder(name=NAME, start_executor=split)
        .add_multi_selection_edge_group(split, [even, odd], by_parity)
        .add_fan_in_edges([even, odd], collect)
        .add_edge(collect, split)
        .build()
    )


def describe(outputs: list[Any]) -> list[dict[str, Any]]:
    return [{"round": o.round, "indexes": o.indexes, "total_seen": o.total_seen} for o in outputs]


async def main(database: str, mode: str, crash_at: tuple[int, int] | None) -> None:
    storage = SQLiteCheckpointStorage(database)
    try:
        if mode == "start":
            result = await build(crash_at).run(Batch(0), checkpoint_storage=storage)
            emit(event="finished", outputs=describe(result.get_outputs()))
            return
        latest = await storage.get_latest(workflow_name=NAME)
        assert latest is not None, "no checkpoint to resume from"
        emit(event="resuming", checkpoint_id=latest.checkpoint_id, iteration=latest.iteration_count)
        result = await build(None).run(
            checkpoint_id=latest.checkpoint_id, checkpoint_storage=storage
        )
        emit(
            event="finished",
            restored=describe(result.restored_outputs),
            outputs=describe(result.get_outputs()),
        )
    finally:
        await storage.close()


if __name__ == "__main__":
    database_path, run_mode = sys.argv[1], sys.argv[2]
    crash: tuple[int, int] | None = None
    if "--crash-at" in sys.argv:
        round_text, index_text = sys.argv[sys.argv.index("--crash-at") + 1].split(":")
        crash = (int(round_text), int(index_text))
    asyncio.run(main(database_path, run_mode, crash))
