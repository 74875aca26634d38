"""Three workers on one PostgreSQL; the one running a call is SIGKILLed; the others take
its work over, and the run completes with every side effect exactly once."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from agentry.durable import DurableRuntime
from agentry.workflows import WorkflowEvent, WorkflowRunState
from tests.durable.outside_tables import OutsideTables
from tests.durable.takeover_app import (
    BLOCKING_ITEM,
    EFFECTS_TABLES,
    EFFECTS_URL_ENV,
    ITEMS,
    build_ledger,
)
from tests.durable.worker_processes import durable_workers

APP = "tests.durable.takeover_app:create_runtime"
WORKERS = 3


@pytest.fixture
def workers(postgres_url: str) -> Iterator[dict[int, subprocess.Popen[str]]]:
    """Three `agentry worker` processes on one PostgreSQL database (the runs and the side
    effects), by pid, once each says it runs."""
    with durable_workers(APP, WORKERS, postgres_url, {EFFECTS_URL_ENV: postgres_url}) as run:
        yield {process.pid: process for process in run}


@pytest.fixture
def effects(postgres_url: str) -> Iterator[OutsideTables]:
    """The side effects' tables, as the test reads them."""
    tables = OutsideTables(postgres_url, EFFECTS_TABLES)
    yield tables
    tables.close()


def _blocked_worker(effects: OutsideTables) -> tuple[str, int]:
    """(key, pid) of the blocked call, once it blocks."""
    deadline = time.monotonic() + 90  # a hang guard
    while time.monotonic() < deadline:
        rows = effects.rows("SELECT key, pid FROM blocked")
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
    workers: dict[int, subprocess.Popen[str]], effects: OutsideTables, postgres_url: str
) -> None:
    runs_url = postgres_url
    client = DurableRuntime(runs_url)
    client.register(build_ledger, distributed=["work"])

    async def start() -> None:
        await client.start("ledger", ITEMS, run_id="ledger-1")

    asyncio.run(start())
    events: list[WorkflowEvent[Any]] = []
    follower = threading.Thread(target=_follow, args=(runs_url, events))
    follower.start()
    blocked_key, killed = _blocked_worker(effects)
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

    written = effects.rows("SELECT key, value FROM effects")
    assert sorted(key for key, _ in written) == sorted(f"ledger-1/2/work/{i}" for i in range(ITEMS))
    attempts: dict[str, list[int]] = {}
    for key, pid in effects.rows("SELECT key, pid FROM attempts"):
        attempts.setdefault(key, []).append(pid)
    # The call under way on the killed worker ran again elsewhere (its write was a no-op);
    # every other call ran once.
    first, second = attempts.pop(blocked_key)
    assert first == killed
    assert second != killed
    assert all(len(pids) == 1 for pids in attempts.values())
    live = [pid for pid, process in workers.items() if pid != killed and process.poll() is None]
    assert len(live) == WORKERS - 1
