"""Human approval with a checkpoint, resumed in a fresh process.

An expense claim goes to an approval step that asks a person (`ctx.request_info`). The run
ends idle with the request pending, and its state sits in a SQLite checkpoint. A new
Python process (started here, as a person's answer might come hours later on another
machine) loads the checkpoint, answers the request and finishes the run.

    python examples/workflows/human_approval.py            # both steps
    python examples/workflows/human_approval.py --reject   # the person says no
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from typing_extensions import Never

from agentry.workflows import (
    Executor,
    SQLiteCheckpointStorage,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)


@dataclass
class Expense:
    employee: str
    amount: float
    reason: str


@dataclass
class Decision:
    approved: bool
    note: str = ""


class Approval(Executor):
    """Small claims pass; larger ones wait for a person."""

    @handler
    async def review(self, expense: Expense, ctx: WorkflowContext[Expense, str]) -> None:
        if expense.amount <= 50:
            await ctx.send_message(expense)
            return
        await ctx.yield_output(f"waiting for approval of {expense.amount:.2f} EUR")
        await ctx.request_info(expense, Decision)

    @response_handler
    async def decided(
        self, expense: Expense, decision: Decision, ctx: WorkflowContext[Expense, str]
    ) -> None:
        if decision.approved:
            await ctx.send_message(expense)
        else:
            await ctx.yield_output(f"rejected: {decision.note}")


@executor(id="pay")
async def pay(expense: Expense, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"paid {expense.amount:.2f} EUR to {expense.employee}")


def build(storage: SQLiteCheckpointStorage) -> Workflow:
    approval = Approval(id="approval")
    return (
        WorkflowBuilder(name="expenses", start_executor=approval, checkpoint_storage=storage)
        .add_edge(approval, pay)
        .build()
    )


async def submit(database: Path) -> tuple[str, str]:
    """Step 1: submit a claim; returns (checkpoint id, request id)."""
    storage = SQLiteCheckpointStorage(database)
    result = await build(storage).run(Expense("Ada", 120.0, "conference ticket"))
    for output in result.get_outputs():
        print(f"[first process] {output}")
    (request,) = result.get_request_info_events()
    print(f"[first process] pending request {request.request_id}: {request.data}")
    latest = await storage.get_latest(workflow_name="expenses")
    await storage.close()
    assert latest is not None
    assert request.request_id is not None
    return latest.checkpoint_id, request.request_id


async def answer(database: Path, checkpoint_id: str, request_id: str, approved: bool) -> None:
    """Step 2, in a fresh process: restore the checkpoint and answer the request."""
    storage = SQLiteCheckpointStorage(database)
    decision = Decision(approved, "" if approved else "not in this year's budget")
    result = await build(storage).run(checkpoint_id=checkpoint_id, responses={request_id: decision})
    for output in result.get_outputs():
        print(f"[second process] {output}")
    print(f"[second process] final state: {result.get_final_state().value}")
    await storage.close()


def main() -> None:
    if sys.argv[1:2] == ["--answer"]:
        database, checkpoint_id, request_id, verdict = sys.argv[2:6]
        asyncio.run(answer(Path(database), checkpoint_id, request_id, verdict == "approve"))
        return
    verdict = "reject" if "--reject" in sys.argv else "approve"
    with tempfile.TemporaryDirectory() as directory:
        database = Path(directory) / "checkpoints.db"
        checkpoint_id, request_id = asyncio.run(submit(database))
        print(f"[first process] a person answers: {verdict}")
        command = [sys.executable, __file__, "--answer", str(database), checkpoint_id, request_id]
        subprocess.run([*command, verdict], check=True)


if __name__ == "__main__":
    main()
