"""Calls of a distributed executor go through a queue and run on several workers."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator

import pytest

from agentry.durable import DurableRuntime
from tests.durable.fanout_app import CALLS_TABLE, CALLS_URL_ENV, ITEMS, build_fanout
from tests.durable.outside_tables import OutsideTables
from tests.durable.worker_processes import durable_workers

APP = "tests.durable.fanout_app:create_runtime"
WORKERS = 3


@pytest.fixture
def workers(postgres_url: str) -> Iterator[list[subprocess.Popen[str]]]:
    """Three `agentry worker` processes on one PostgreSQL database (the runs and the table
    of calls), once each says it runs."""
    with durable_workers(APP, WORKERS, postgres_url, {CALLS_URL_ENV: postgres_url}) as run:
        yield run


async def _run_from_a_client(runs_url: str) -> list[list[int]]:
    client = DurableRuntime(runs_url)
    client.register(build_fanout, distributed=["work"])
    try:
        run = await client.start("fanout", ITEMS, run_id="fanout-1")
        return (await run.result(timeout=90)).get_outputs()
    finally:
        client.shutdown()


def test_the_calls_of_a_fan_out_run_on_several_workers(
    workers: list[subprocess.Popen[str]], postgres_url: str
) -> None:
    outputs = asyncio.run(_run_from_a_client(postgres_url))
    assert outputs == asyncio.run(build_fanout().run(ITEMS)).get_outputs()
    tables = OutsideTables(postgres_url, [CALLS_TABLE])
    calls = tables.rows("SELECT key, pid FROM calls")
    tables.close()
    assert len(calls) == ITEMS
    assert sorted(key for key, _ in calls) == sorted(f"fanout-1/2/work/{i}" for i in range(ITEMS))
    worker_pids = {process.pid for process in workers}
    assert {pid for _, pid in calls} <= worker_pids
    assert len({pid for _, pid in calls}) >= 2
    for process in workers:
        assert process.poll() is None, "a worker stopped"
