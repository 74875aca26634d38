"""Durable throughput: 1,000 short durable workflows run by 1, 2 and 4 worker processes.

Each count of workers gets a new database. The workers are real `agentry worker`
processes; once they run, a client (a runtime that is not launched) queues 1,000 runs of
a one-step workflow and the benchmark times them from the first queued to the last
finished, as workflows per second. The database is PostgreSQL when the machine has its
binaries (a throwaway server, as the tests start it), else a SQLite file, and the
benchmark says why. Run with `python -m benchmarks.durable_throughput` (`--quick`: 200
runs).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.durable.worker_processes import durable_workers

from agentry.durable import DurableRuntime
from agentry.workflows import Workflow, WorkflowBuilder, WorkflowContext, executor

__all__ = ["Throughput", "create_runtime", "databases", "main", "measure_throughput"]

RUNS = 1000
WORKER_COUNTS = (1, 2, 4)
RUN_CONCURRENCY = 50
"""How many queued runs each worker takes at once (without a limit, one takes them all)."""
APP = "benchmarks.durable_throughput:create_runtime"
_WORKFLOW_NAME = "agentry.workflow"


def build_increment() -> Workflow:
    """One handler call: yield the input plus one."""

    @executor(id="increment")
    async def increment(n: int, ctx: WorkflowContext[None, int]) -> None:
        await ctx.yield_output(n + 1)

    return WorkflowBuilder(name="bench-increment", start_executor=increment).build()


def create_runtime() -> DurableRuntime:
    """The app of the benchmark's workers (its database from the environment)."""
    runtime = DurableRuntime(run_concurrency=RUN_CONCURRENCY, takeover_after=None)
    runtime.register(build_increment)
    return runtime


@dataclass
class Throughput:
    """How long `workers` workers took to run `runs` queued workflows."""

    database: str
    workers: int
    runs: int
    seconds: float

    @property
    def per_second(self) -> float:
        """Workflows finished per second."""
        return self.runs / self.seconds


@contextmanager
def databases() -> Generator[tuple[Callable[[str], str], str]]:
    """(a function that makes a new database by name and returns its URL, what kind of
    database it is and why)."""
    try:
        from tests.postgres import PostgresServer

        server = PostgresServer.start()
    except (ImportError, RuntimeError, OSError) as error:
        reason = f"SQLite (no PostgreSQL server to start here: {error})"
        with tempfile.TemporaryDirectory() as directory:
            yield (lambda name: f"sqlite:///{Path(directory) / name}.sqlite"), reason
        return
    try:
        yield server.create_database, "PostgreSQL (a local throwaway server, fsync off)"
    finally:
        server.stop()


async def _queue_and_wait(database_url: str, runs: int) -> float:
    client = DurableRuntime(database_url)
    client.register(build_increment)
    dbos = client.client()
    try:
        started = time.perf_counter()
        for first in range(0, runs, 100):
            batch = range(first, min(first + 100, runs))
            await asyncio.gather(*(client.start("bench-increment", n) for n in batch))
        while True:
            done = await dbos.list_workflows_async(
                status=["SUCCESS", "ERROR"], name=_WORKFLOW_NAME, load_input=False
            )
            if len(done) >= runs:
                seconds = time.perf_counter() - started
                break
            await asyncio.sleep(0.05)
        failed = [w for w in done if w.status != "SUCCESS" or w.output is None]
        outputs = {w.output["outputs"][0]["data"] for w in done if w.output is not None}
        if failed or outputs != set(range(1, runs + 1)):
            raise RuntimeError(f"{len(failed)} benchmark runs failed or gave wrong outputs")
        return seconds
    finally:
        client.shutdown()


def measure_throughput(workers: int, database_url: str, *, runs: int = RUNS) -> Throughput:
    """Time `runs` queued workflows on `workers` new worker processes."""
    with durable_workers(APP, workers, database_url):
        seconds = asyncio.run(_queue_and_wait(database_url, runs))
    return Throughput(database_url.split(":", 1)[0], workers, runs, seconds)


def main() -> None:
    """Print the throughput for each count of workers."""
    runs = 200 if "--quick" in sys.argv else RUNS
    with databases() as (new_database, kind):
        print(f"durable throughput: {runs} one-step workflows, queued by a client; {kind}")
        for workers in WORKER_COUNTS:
            measured = measure_throughput(workers, new_database(f"throughput_{workers}"), runs=runs)
            print(
                f"  {workers} worker process{'es' if workers > 1 else '  '}: "
                f"{measured.per_second:7.1f} workflows/s ({measured.seconds:.1f} s)"
            )


if __name__ == "__main__":
    main()
