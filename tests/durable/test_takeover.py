"""Three workers on one PostgreSQL; the one running a call is SIGKILLed; the others take
its work over, and the run completes with every side effect exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from agentry.durable import DurableRuntime
from agentry.workflows import WorkflowEvent, WorkflowRunState
from tests.durable.takeover_app import BLOCKING_ITEM, EFFECTS_URL_ENV, ITEMS, build_ledger
from tests.durable.worker_processes import worker_processes
from tests.postgres import PostgresServer

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3


@pytest.fixture
def databases(postgres_server: PostgresServer) -> tuple[str, str]:
    """(runs URL, side-effects URL): one PostgreSQL database for both."""
    url = postgres_server.create_database(f"takeover_{os.getpid()}")
    return url, url.replace("postgresql://", "postgresql+psycopg://")


@pytest.fixture
def workers(databases: tuple[str, str]) -> Iterator[dict[int, subprocess.Popen[str]]]:
    """Three `agentry worker` processes, by pid, once each says it runs."""
    runs_url, effects_url = databases
    environment = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}",
        "AGENTRY_DURABLE_DATABASE_URL": runs_url,
        EFFECTS_URL_ENV: effects_url,
    }
    ids = [f"worker-{number}" for number in range(WORKERS)]
    with worker_processes("tests.durable.takeover_app:create_runtime", ids, environment) as run:
        yield {process.pid: process for process in run}


def _rows(url: str, query: str) -> list[tuple[Any, ...]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sa.text(query))]
    finally:
        engine.dispose()


def _blocked_worker(effects_url: str) -> tuple[str, int]:
    """(key, pid) of the blocked call, once it blocks."""
    deadline = time.monotonic() + 90  # a hang guard
    while time.monotonic() < deadline:
        rows = _rows(effects_url, "SELECT key, pid FROM blocked")
        if rows:
            return str(rows[0][0]), int(rows[0][1])
        time.sleep(0.1)
    raise AssertionError("no call blocked")


def _follow(runs_url: str, events: list[WorkflowEvent[Any]]) -> None:
    """Follow the run from its start to its end (in a thread), collecting its events."""

    async def follow() -> None:
        follower = DurableRuntime(runs_url)
        follower.register(build_ledger, distributed=["work"])
        try:
            async for event in follower.run("ledger-1").stream():
                events.append(event)
        finally:
            follower.shutdown()

    asyncio.run(follow())


def test_the_live_workers_take_over_the_work_of_a_killed_one(
    workers: dict[int, subprocess.Popen[str]], databases: tuple[str, str]
) -> None:
    runs_url, effects_url = databases
    client = DurableRuntime(runs_url)
    client.register(build_ledger, distributed=["work"])

    async def start() -> None:
        await client.start("ledger", ITEMS, run_id="ledger-1")

    asyncio.run(start())
    events: list[WorkflowEvent[Any]] = []
    follower = threading.Thread(target=_follow, args=(runs_url, events))
    follower.start()
    blocked_key, killed = _blocked_worker(effects_url)
    assert blocked_key == f"ledger-1/2/work/{BLOCKING_ITEM}"
    workers[killed].send_signal(signal.SIGKILL)
    assert workers[killed].wait(timeout=30) == -signal.SIGKILL

    async def result() -> list[Any]:
        try:
            return (await client.run("ledger-1").result(timeout=120)).get_outputs()
        finally:
            client.shutdown()

    outputs = asyncio.run(result())
    assert outputs == asyncio.run(build_ledger().run(ITEMS)).get_outputs()
    follower.join(timeout=60)  # a hang guard
    # The follower saw each call once, the killed one too (once, when it completed on
    # the worker that took it over), and the output once.
    seen = Counter((e.type, e.executor_id) for e in events)
    assert seen[("executor_completed", "work")] == seen[("executor_invoked", "work")] == ITEMS
    assert seen[("executor_completed", "split")] == seen[("executor_completed", "total")] == 1
    assert [e.data for e in events if e.type == "output"] == outputs
    assert events[-1].state == WorkflowRunState.IDLE

    effects = _rows(effects_url, "SELECT key, value FROM effects")
    assert sorted(key for key, _ in effects) == sorted(f"ledger-1/2/work/{i}" for i in range(ITEMS))
    attempts: dict[str, list[int]] = {}
    for key, pid in _rows(effects_url, "SELECT key, pid FROM attempts"):
        attempts.setdefault(key, []).append(pid)
    # The call under way on the killed worker ran again elsewhere (its write was a no-op);
    # every other call ran once.
    first, second = attempts.pop(blocked_key)
    assert first == killed
    assert second != killed
    assert all(len(pids) == 1 for pids in attempts.values())
    live = [pid for pid, process in workers.items() if pid != killed and process.poll() is None]
    assert len(live) == WORKERS - 1
