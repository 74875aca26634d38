"""Durable workflow benchmark: agentry's cost per durable step over DBOS's own.

The same work both ways, on one launched DBOS (a SQLite file by default, or the database
`$AGENTRY_BENCH_DURABLE_URL` names):

- agentry: a durable workflow run of a chain of 10 executors, each adding one (10 handler
  calls, each one recorded DBOS step);
- DBOS: a DBOS workflow awaiting 10 DBOS steps in turn, each adding one.

Both include starting the run and waiting for its result. The two are timed in
alternating rounds (agentry first in one round, DBOS first in the next), and each figure
is the median of its rounds, so that the machine's other work and the database's growth
weigh on both alike. agentry's overhead per step is (agentry time - DBOS time) / 10; the
target is under 10% of DBOS's own time per step. The CPU time of the process (all its
threads) is compared too: on a busy machine it is the steadier figure. Without
`$AGENTRY_BENCH_DURABLE_URL`, a second line measures the same on PostgreSQL, on a
throwaway server started from the machine's PostgreSQL binaries (the test suite's); the
line says why when there are none. Run with `python -m benchmarks.durable`.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from dbos import DBOS

from agentry.durable import DurableRuntime
from agentry.workflows import Workflow
from benchmarks.workflows import CHAIN_LENGTH, build_chain

__all__ = ["DurableMeasurement", "main", "measure", "measure_on_postgres", "report"]

STEPS = CHAIN_LENGTH
DATABASE_ENV = "AGENTRY_BENCH_DURABLE_URL"


@dataclass
class DurableMeasurement:
    """Seconds per run (median of the rounds) of the agentry durable workflow and of the
    bare DBOS workflow, in wall time and in the process's CPU time."""

    database: str
    agentry_seconds: float
    dbos_seconds: float
    agentry_cpu_seconds: float = 0.0
    dbos_cpu_seconds: float = 0.0

    @property
    def ratio(self) -> float:
        """agentry time over DBOS time."""
        return self.agentry_seconds / self.dbos_seconds

    @property
    def cpu_ratio(self) -> float:
        """agentry's CPU time over DBOS's."""
        return self.agentry_cpu_seconds / self.dbos_cpu_seconds if self.dbos_cpu_seconds else 0.0

    @property
    def overhead_us_per_step(self) -> float:
        """What agentry adds to each step, in microseconds."""
        return (self.agentry_seconds - self.dbos_seconds) / STEPS * 1e6


def build_bench_chain() -> Workflow:
    """The workflow benchmark's chain of ten, named so that it can be registered."""
    return build_chain(name="bench-chain")


async def _add_one(value: int) -> int:
    return value + 1


@DBOS.workflow(name="agentry.bench.dbos_chain")
async def dbos_chain(value: int) -> int:
    """The same ten steps as bare DBOS steps."""
    for _ in range(STEPS):
        value = await DBOS.run_step_async({"name": "bench.add_one"}, _add_one, value)
    return value


RunOnce = Callable[[], Awaitable[None]]


async def _time_alternately(
    runs: int, repeats: int, agentry_run: RunOnce, dbos_run: RunOnce
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(wall, CPU) seconds per run of each round, agentry's and DBOS's, in alternating
    order."""
    for _ in range(3):  # warm up
        await agentry_run()
        await dbos_run()
    agentry_rounds: list[tuple[float, float]] = []
    dbos_rounds: list[tuple[float, float]] = []
    pair = [(agentry_run, agentry_rounds), (dbos_run, dbos_rounds)]
    for round_number in range(repeats):
        for run_once, rounds in pair if round_number % 2 == 0 else pair[::-1]:
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(runs):
                await run_once()
            rounds.append(((time.perf_counter() - wall) / runs, (time.process_time() - cpu) / runs))
    return agentry_rounds, dbos_rounds


async def _measure(database: str, runs: int, repeats: int) -> DurableMeasurement:
    runtime = DurableRuntime(database, takeover_after=None)
    runtime.register(build_bench_chain)
    async with runtime:

        async def agentry_run() -> None:
            run = await runtime.start("bench-chain", 0)
            outputs = (await run.result()).get_outputs()
            assert outputs == [STEPS], outputs

        async def dbos_run() -> None:
            handle = await DBOS.start_workflow_async(dbos_chain, 0)
            assert await handle.get_result() == STEPS

        agentry_rounds, dbos_rounds = await _time_alternately(runs, repeats, agentry_run, dbos_run)
    return DurableMeasurement(
        runtime.safe_database_url,
        median(wall for wall, _ in agentry_rounds),
        median(wall for wall, _ in dbos_rounds),
        median(cpu for _, cpu in agentry_rounds),
        median(cpu for _, cpu in dbos_rounds),
    )


def measure(runs: int = 10, repeats: int = 15, database: str | None = None) -> DurableMeasurement:
    """Time both workflows (the median of `repeats` alternating rounds of `runs` runs)."""
    database = database or os.environ.get(DATABASE_ENV)
    if database is not None:
        return asyncio.run(_measure(database, runs, repeats))
    with tempfile.TemporaryDirectory() as directory:
        return asyncio.run(_measure(str(Path(directory) / "bench.sqlite"), runs, repeats))


def report(measurement: DurableMeasurement) -> str:
    """The figures, on one line."""
    m = measurement
    per_step = m.dbos_seconds / STEPS * 1e6
    return (
        f"durable step ({m.database.split(':', 1)[0]}): agentry {m.agentry_seconds * 1e3:7.2f} "
        f"ms/run   DBOS {m.dbos_seconds * 1e3:7.2f} ms/run   ratio {m.ratio:5.2f}x   "
        f"overhead {m.overhead_us_per_step:7.1f} us/step ({m.overhead_us_per_step / per_step:.0%} "
        f"of DBOS's step; target < 10%)   CPU ratio {m.cpu_ratio:5.2f}x"
    )


def measure_on_postgres(runs: int = 10, repeats: int = 15) -> DurableMeasurement | str:
    """Both workflows on a throwaway PostgreSQL server; why not, when it cannot start."""
    from tests.postgres import PostgresServer

    try:
        server = PostgresServer.start()
    except RuntimeError as error:
        return str(error).splitlines()[0]
    try:
        database = server.create_database("bench_durable")
        return asyncio.run(_measure(database, runs, repeats))
    finally:
        server.stop()


def main() -> None:
    """Print the durable benchmark: on SQLite, then on PostgreSQL."""
    quick = "--quick" in sys.argv
    runs, repeats = (5, 4) if quick else (10, 15)
    print("durable workflow: 10 handler calls vs 10 bare DBOS steps")
    print(report(measure(runs=runs, repeats=repeats)))
    if os.environ.get(DATABASE_ENV):
        return
    on_postgres = measure_on_postgres(runs=runs, repeats=repeats)
    if isinstance(on_postgres, str):
        print(f"durable step (postgresql): skipped: {on_postgres}")
    else:
        print(report(on_postgres))


if __name__ == "__main__":
    main()
