"""Calls of a distributed executor go through a queue and run on several workers."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from agentry.durable import DurableRuntime
from tests.durable.fanout_app import CALLS_URL_ENV, ITEMS, build_fanout
from tests.durable.worker_processes import worker_processes
from tests.postgres import PostgresServer

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3


@pytest.fixture
def databases(postgres_server: PostgresServer) -> tuple[str, str]:
    """(runs URL, calls-table URL): one PostgreSQL database for both."""
    url = postgres_server.create_database(f"fanout_{os.getpid()}")
    return url, url.replace("postgresql://", "postgresql+psycopg://")


@pytest.fixture
def workers(databases: tuple[str, str]) -> Iterator[list[subprocess.Popen[str]]]:
    """Three `agentry worker` processes on the database, once each says it runs."""
    runs_url, calls_url = databases
    environment = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}",
        "AGENTRY_DURABLE_DATABASE_URL": runs_url,
        CALLS_URL_ENV: calls_url,
    }
    ids = [f"worker-{number}" for number in range(WORKERS)]
    with worker_processes("tests.durable.fanout_app:create_runtime", ids, environment) as run:
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
    workers: list[subprocess.Popen[str]], databases: tuple[str, str]
) -> None:
    runs_url, calls_url = databases
    outputs = asyncio.run(_run_from_a_client(runs_url))
    assert outputs == asyncio.run(build_fanout().run(ITEMS)).get_outputs()
    engine = sa.create_engine(calls_url)
    with engine.connect() as connection:
        calls = connection.execute(sa.text("SELECT key, pid FROM calls")).all()
    engine.dispose()
    assert len(calls) == ITEMS
    assert sorted(key for key, _ in calls) == sorted(f"fanout-1/2/work/{i}" for i in range(ITEMS))
    worker_pids = {process.pid for process in workers}
    assert {pid for _, pid in calls} <= worker_pids
    assert len({pid for _, pid in calls}) >= 2
    for process in workers:
        assert process.poll() is None, "a worker stopped"
