"""A2A load benchmark: N concurrent streaming tasks against `agentry serve a2a`.

Starts the server as a process (on a fresh SQLite file by default, or on the PostgreSQL
database `--database URL` or `$AGENTRY_BENCH_A2A_URL` names), sends N streaming messages
at once with a2a-sdk's client, and reports the tasks that failed and the server's CPU
time per task. It does the same against a plain a2a-sdk agent doing the same work
(`benchmarks.a2a_plain_server`) and prints the ratio; the target is at most 1.2x.

    python -m benchmarks.a2a_load                 # 200 tasks on SQLite
    python -m benchmarks.a2a_load --tasks 5000    # the load bar
    python -m benchmarks.a2a_load --tasks 5000 --database postgresql://user@host/db
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncGenerator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient

from .a2a_plain_server import ANSWER, CHUNK

__all__ = ["LoadResult", "agent", "main", "run_load"]

ROOT = Path(__file__).resolve().parents[1]
DATABASE_ENV = "AGENTRY_BENCH_A2A_URL"
WARM_UP = 20

agent = Agent(
    client=ScriptedChatClient(itertools.repeat(ANSWER, 1_000_000), chunk_size=CHUNK),
    name="load",
    description="Streams one answer in small chunks.",
)
"""The served agent: its model streams ANSWER in chunks of CHUNK characters."""


@dataclass
class LoadResult:
    """What N concurrent streaming tasks did to one server."""

    tasks: int
    completed: int
    errors: list[str]
    cpu_seconds: float

    @property
    def cpu_ms_per_task(self) -> float:
        return self.cpu_seconds / self.tasks * 1000


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _spawn(command: Sequence[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    return subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, env=env, stdout=subprocess.DEVNULL
    )


@asynccontextmanager
async def _server(
    command: Sequence[str], port: int
) -> AsyncGenerator[subprocess.Popen[bytes], None]:
    process = _spawn(command)
    try:
        async with httpx.AsyncClient() as http:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the server exited with status {process.returncode}")
                try:
                    await http.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


async def _one_task(client: Client, errors: list[str]) -> bool:
    request = SendMessageRequest(
        message=Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text="go")])
    )
    state = TaskState.TASK_STATE_UNSPECIFIED
    try:
        async for event in client.send_message(request):
            if event.HasField("status_update"):
                state = event.status_update.status.state
            elif event.HasField("task"):
                state = event.task.status.state
    except Exception as error:  # every failure counts, whatever it is
        errors.append(f"{type(error).__name__}: {error}")
        return False
    if state != TaskState.TASK_STATE_COMPLETED:
        errors.append(f"a task ended {TaskState.Name(state)}")
        return False
    return True


async def _send(url: str, count: int, errors: list[str]) -> int:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(timeout=httpx.Timeout(600, connect=600), limits=limits) as http:
        client = await create_client(
            url, client_config=ClientConfig(streaming=True, httpx_client=http)
        )
        try:
            done = await asyncio.gather(*(_one_task(client, errors) for _ in range(count)))
        finally:
            await client.close()
    return sum(done)


async def run_load(command: Sequence[str], port: int, tasks: int) -> LoadResult:
    """Start the server `command` starts on `port`, warm it up, and run `tasks` concurrent
    streaming tasks against it."""
    url = f"http://127.0.0.1:{port}"
    async with _server(command, port) as process:
        await _send(url, WARM_UP, [])
        before = _cpu_seconds(process.pid)
        errors: list[str] = []
        completed = await _send(url, tasks, errors)
        cpu = _cpu_seconds(process.pid) - before
    return LoadResult(tasks, completed, errors, cpu)


def _database_for(database: str | None, folder: Path, name: str) -> str:
    return database if database else str(folder / f"{name}.sqlite")


async def compare(
    tasks: int, database: str | None, *, baseline: bool = True
) -> tuple[LoadResult, LoadResult | None]:
    """The agentry server's and (with `baseline`) the plain a2a-sdk server's results for
    `tasks` tasks."""
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        agentry_command = [
            "-m", "agentry.cli", "serve", "a2a", "benchmarks.a2a_load:agent",
            "--port", str(port), "--log-level", "warning",
            "--database", _database_for(database, Path(folder), "agentry"),
        ]  # fmt: skip
        agentry = await run_load(agentry_command, port, tasks)
        if not baseline:
            return agentry, None
        port = _free_port()
        plain_command = [
            "-m", "benchmarks.a2a_plain_server", str(port),
            _database_for(database, Path(folder), "plain"),
        ]  # fmt: skip
        plain = await run_load(plain_command, port, tasks)
    return agentry, plain


def report(agentry: LoadResult, plain: LoadResult | None, where: str) -> None:
    """One line per server, and the ratio of their CPU per task."""
    results = [("agentry", agentry)] + ([("plain a2a-sdk", plain)] if plain else [])
    for name, result in results:
        print(
            f"A2A load, {result.tasks} concurrent streams on {where}, {name}: "
            f"{result.completed} completed, {len(result.errors)} errors, "
            f"{result.cpu_ms_per_task:.1f} ms server CPU per task"
        )
        for error in sorted(set(result.errors))[:5]:
            print(f"    {error}")
    if plain is None:
        return
    ratio = agentry.cpu_seconds / plain.cpu_seconds if plain.cpu_seconds else float("inf")
    print(f"A2A load: agentry/plain CPU per task {ratio:.2f}x (target <= 1.2x)")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.a2a_load")
    parser.add_argument("--tasks", type=int, default=200, help="concurrent streams (default 200)")
    parser.add_argument(
        "--database",
        default=os.environ.get(DATABASE_ENV),
        help=f"a PostgreSQL URL (default: ${DATABASE_ENV}, else a fresh SQLite file)",
    )
    parser.add_argument("--no-baseline", action="store_true", help="load the agentry server only")
    arguments = parser.parse_args(argv)
    agentry, plain = asyncio.run(
        compare(arguments.tasks, arguments.database, baseline=not arguments.no_baseline)
    )
    report(agentry, plain, "PostgreSQL" if arguments.database else "SQLite")


if __name__ == "__main__":
    main()
