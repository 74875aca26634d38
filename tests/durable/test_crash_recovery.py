"""Durable runs survive a SIGKILLed worker, on the embedded SQLite default and on PostgreSQL.

One worker process starts two runs: a fan-out whose handlers write side effects under
their idempotency keys, killed while one handler call is under way, and a run waiting
for a person's answer. The test answers from its own process while no worker is alive,
(after answers that do not fit were refused), then starts a new worker: both runs
finish, every side effect is recorded exactly once, no completed call runs again, and the
output is that of an uninterrupted run.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from agentry.durable import DATABASE_URL_ENV, DEFAULT_DATABASE_URL, DurableRunError
from agentry.workflows import WorkflowRunnerException
from tests.durable import crash_worker
from tests.postgres import PostgresServer

WORKER = Path(__file__).with_name("crash_worker.py")
ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    environment = {**os.environ, "PYTHONPATH": path}
    environment.pop(DATABASE_URL_ENV, None)  # "default" means the embedded default
    return environment


def _start_and_kill(durable_url: str, effects_url: str, cwd: Path) -> list[dict[str, Any]]:
    """Run a `start` worker until it reports both runs where the test wants them; kill it."""
    process = subprocess.Popen(
        [sys.executable, str(WORKER), durable_url, effects_url, "start"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        cwd=cwd,
    )
    assert process.stdout is not None
    lines: list[dict[str, Any]] = []
    try:
        for raw in process.stdout:
            lines.append(json.loads(raw))
            if lines[-1]["event"] == "ready":
                process.send_signal(signal.SIGKILL)
                break
    finally:
        if process.poll() is None:
            process.kill()
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL, f"the worker was not killed: {stderr}"
    return lines


def _resume(durable_url: str, effects_url: str, cwd: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(WORKER), durable_url, effects_url, "resume"],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=cwd,
        timeout=110,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


async def _answer_while_no_worker_runs(durable_url: str, effects_url: str) -> str:
    """Answer the approval from this process (which runs no workflow), after answers that
    do not fit were refused with clear errors and left the run waiting."""
    effects = crash_worker.SideEffects(effects_url)
    client = crash_worker.runtime_for(durable_url, effects, block=False)
    try:
        run = client.run(crash_worker.APPROVAL_RUN)
        (request,) = await run.pending_requests()
        assert request.data == crash_worker.Order(7)
        assert request.request_id is not None
        with pytest.raises(WorkflowRunnerException, match="must be a bool, not a str"):
            await run.send_response(request.request_id, "yes")
        with pytest.raises(DurableRunError, match="does not wait on a request 'nope'"):
            await run.send_response("nope", True)
        with pytest.raises(DurableRunError, match="no durable run with id 'missing'"):
            await client.run("missing").pending_requests()
        assert [r.request_id for r in await run.pending_requests()] == [request.request_id]
        assert await run.status() == "PENDING"
        await run.send_response(request.request_id, True)
        return request.request_id
    finally:
        client.shutdown()
        effects.close()


def _uninterrupted_ledger(tmp_path: Path) -> list[dict[str, Any]]:
    effects = crash_worker.SideEffects(f"sqlite:///{tmp_path / 'reference.sqlite'}")
    try:
        workflow = crash_worker.build_ledger(effects, block=False)
        result = asyncio.run(workflow.run(crash_worker.ITEMS))
    finally:
        effects.close()
    return [vars(o) for o in result.get_outputs()]


def _table(effects_url: str, query: str) -> list[tuple[Any, ...]]:
    engine = sa.create_engine(effects_url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sa.text(query))]
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str, str]:
    """(the workers' durable database, the same as a URL, the side-effects database URL)
    on one backend. On SQLite, the workers use the embedded default (no setting, a file
    in their working directory)."""
    if request.param == "sqlite":
        return (
            crash_worker.DEFAULT,
            f"sqlite:///{tmp_path / DEFAULT_DATABASE_URL.removeprefix('sqlite:///')}",
            f"sqlite:///{tmp_path / 'effects.sqlite'}",
        )
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.create_database(f"crash_{os.getpid()}_{len(os.listdir(tmp_path))}")
    return url, url, url.replace("postgresql://", "postgresql+psycopg://")


def test_killed_runs_resume_with_every_side_effect_exactly_once(
    databases: tuple[str, str, str], tmp_path: Path
) -> None:
    workers_database, durable_url, effects_url = databases
    before = _start_and_kill(workers_database, effects_url, tmp_path)
    (blocking,) = [line for line in before if line["event"] == "blocking"]
    (waiting,) = [line for line in before if line["event"] == "waiting"]
    blocked_key = blocking["key"]
    assert blocked_key.startswith(f"{crash_worker.LEDGER_RUN}/")
    killed_pid = {pid for (pid,) in _table(effects_url, "SELECT DISTINCT pid FROM attempts")}

    answered = asyncio.run(_answer_while_no_worker_runs(durable_url, effects_url))
    assert answered == waiting["request_id"]

    finished = _resume(workers_database, effects_url, tmp_path)

    # The same output as without the crash, executor state included (w2 counted the two
    # items it handled before the crash: its saved state was restored).
    assert finished["ledger"] == _uninterrupted_ledger(tmp_path)
    assert finished["ledger"][0]["seen"] == [1 + i // crash_worker.WORKERS for i in range(20)]
    assert finished["approval"] == ["order 7: shipped"]
    # The agent's tool ran once, before the kill; after it, the model was called once
    # more (for the answer that was under way), and not for the turn that had completed.
    assert finished["agent"] == "Done: charged 1200 cents."
    calls = _table(effects_url, "SELECT kind, pid FROM agent_calls")
    assert sorted(kind for kind, pid in calls if pid in killed_pid) == ["model", "model", "tool"]
    assert [kind for kind, pid in calls if pid not in killed_pid] == ["model"]
    effects = _table(effects_url, "SELECT key, value FROM effects")
    assert len(effects) == crash_worker.ITEMS
    assert sorted(value for _, value in effects) == sorted(i * i for i in range(crash_worker.ITEMS))
    attempts = _table(effects_url, "SELECT key, pid FROM attempts")
    by_key: dict[str, list[int]] = {}
    for key, pid in attempts:
        by_key.setdefault(key, []).append(pid)
    assert set(by_key) == {key for key, _ in effects}
    # The call under way when the worker died ran again (its write was a no-op); the
    # calls completed before the kill never ran again; the rest ran once, after it.
    assert len(by_key.pop(blocked_key)) == 2
    assert all(len(pids) == 1 for pids in by_key.values())
    resumed = [key for key, pids in by_key.items() if pids[0] not in killed_pid]
    assert sorted(int(key.rsplit("/", 1)[1]) for key in resumed) == [3, 4]
    assert all("/w2/" in key for key in resumed)
