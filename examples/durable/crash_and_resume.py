"""A durable workflow whose worker is killed mid-run, and a new worker that finishes it.

An invoice's lines are charged one by one; each charge goes to a ledger (a SQLite table)
under the handler call's idempotency key. The first worker process kills itself
(SIGKILL) right after writing the second charge, before DBOS recorded that call. A second
worker starts on the same database (the embedded default, `agentry-durable.sqlite`),
resumes the run from its last completed step, runs the interrupted call again (its
charge is not written twice: same key) and finishes. Everything happens in a temporary
directory.

    python examples/durable/crash_and_resume.py
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from typing_extensions import Never

from agentry.durable import DurableRuntime
from agentry.workflows import Workflow, WorkflowBuilder, WorkflowContext, executor

RUN_ID = "invoice-1"


@dataclass
class Line:
    number: int
    item: str
    cents: int


@dataclass
class Invoice:
    lines: list[Line]


INVOICE = Invoice([Line(1, "ink", 1200), Line(2, "paper", 800), Line(3, "stamps", 500)])


def ledger() -> sqlite3.Connection:
    connection = sqlite3.connect("ledger.sqlite")
    connection.execute(
        "CREATE TABLE IF NOT EXISTS charges (key TEXT PRIMARY KEY, item TEXT, cents INTEGER)"
    )
    return connection


def build_invoice(*, crash: bool = False) -> Workflow:
    @executor(id="split")
    async def split(invoice: Invoice, ctx: WorkflowContext[Line]) -> None:
        for line in invoice.lines:
            await ctx.send_message(line)

    @executor(id="charge")
    async def charge(line: Line, ctx: WorkflowContext[int]) -> None:
        with ledger() as book:
            written = book.execute(
                "INSERT INTO charges VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING",
                (ctx.idempotency_key, line.item, line.cents),
            ).rowcount
        note = "charged" if written else "already charged (the ledger kept one charge)"
        print(f"  worker {os.getpid()}: line {line.number}, {line.item}: {note}", flush=True)
        if crash and line.number == 2:
            os.kill(os.getpid(), signal.SIGKILL)  # dies before DBOS records this call
        await ctx.send_message(line.cents)

    @executor(id="total")
    async def total(cents: list[int], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{RUN_ID}: {len(cents)} lines, {sum(cents)} cents")

    return (
        WorkflowBuilder(name="invoice", start_executor=split)
        .add_edge(split, charge)
        .add_fan_in_edges([charge], total)
        .build()
    )


async def worker(*, crash: bool) -> None:
    runtime = DurableRuntime()  # the embedded default: agentry-durable.sqlite, here
    runtime.register(lambda: build_invoice(crash=crash))
    async with runtime:  # launching resumes the runs this worker left unfinished
        if crash:
            run = await runtime.start("invoice", INVOICE, run_id=RUN_ID)
        else:
            run = runtime.run(RUN_ID)  # resumed at launch: wait for it
        print(f"  {(await run.result()).get_outputs()[0]}", flush=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        os.chdir(directory)
        me = os.path.abspath(__file__)
        print("worker 1 starts the run:", flush=True)
        first = subprocess.run([sys.executable, me, "--worker", "--crash"], check=False)
        print(f"worker 1 died ({signal.Signals(-first.returncode).name})")
        print("worker 2 resumes it:", flush=True)
        subprocess.run([sys.executable, me, "--worker"], check=True)
        with ledger() as book:
            rows = book.execute("SELECT item, cents FROM charges ORDER BY rowid").fetchall()
        print(f"ledger: {len(rows)} charges: {', '.join(f'{i} {c}' for i, c in rows)}")
        os.chdir(os.path.dirname(me))


if __name__ == "__main__":
    if "--worker" in sys.argv:
        asyncio.run(worker(crash="--crash" in sys.argv))
    else:
        main()
