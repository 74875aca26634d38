"""A2A load benchmark: N concurrent streaming tasks against `agentry serve a2a`.

Starts the server as a process, on a fresh SQLite file and on a throwaway PostgreSQL
server it starts itself (or on the database `--database URL` or `$AGENTRY_BENCH_A2A_URL`
names), sends N streaming messages at once with a2a-sdk's client, and reports the tasks
that failed and the server's CPU time per task. It does the same against a plain a2a-sdk
agent doing the same work (`benchmarks.a2a_plain_server`) and prints the ratio; the
target is at most 1.2x.

    python -m benchmarks.a2a_load                            # 200 tasks, both stores
    python -m benchmarks.a2a_load --tasks 5000 --store sqlite --no-baseline  # the load bar
    python -m benchmarks.a2a_load --tasks 5000 --database postgresql://user@host/db
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState, TaskStatus

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient

from .a2a_plain_server import ANSWER, CHUNK

__all__ = ["LoadResult", "agent", "compare", "main", "run_load", "run_on_postgres", "run_on_sqlite"]

ROOT = Path(__file__).resolve().parents[1]
DATABASE_ENV = "AGENTRY_BENCH_A2A_URL"
WARM_UP = 20
STREAMS_PER_CLIENT = 1000
"""Streams one client process sends: more are spread over several, so that the client is
never what holds the load back (one a2a-sdk client spends more CPU a stream than the
server)."""
STREAM_TIMEOUT = 1800.0
"""Seconds the client waits on a stream: a hang guard, well past a loaded machine's run."""

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
    first_event_seconds: list[float]

    @property
    def cpu_ms_per_task(self) -> float:
        return self.cpu_seconds / self.tasks * 1000

    def first_event_percentile(self, percent: int) -> float:
        """Seconds from sending a message to its stream's first event, at `percent`."""
        if len(self.first_event_seconds) < 2:
            return self.first_event_seconds[0] if self.first_event_seconds else float("nan")
        return statistics.quantiles(self.first_event_seconds, n=100)[percent - 1]


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


async def _one_task(client: Client, errors: list[str], first_events: list[float]) -> bool:
    request = SendMessageRequest(
        message=Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text="go")])
    )
    status = TaskStatus()
    sent = time.perf_counter()
    first = True
    try:
        async for event in client.send_message(request):
            if first:
                first_events.append(time.perf_counter() - sent)
                first = False
            if event.HasField("status_update"):
                status = event.status_update.status
            elif event.HasField("task"):
                status = event.task.status
    except Exception as error:  # every failure counts, whatever it is
        errors.append(f"{type(error).__name__}: {error}")
        return False
    if status.state != TaskState.TASK_STATE_COMPLETED:
        why = " ".join(part.text for part in status.message.parts)
        errors.append(f"a task ended {TaskState.Name(status.state)}: {why}")
        return False
    return True


async def _send(url: str, count: int, errors: list[str], first_events: list[float]) -> int:
    # One connection a stream, no pool limit, and timeouts only as hang guards: the
    # client must not be what fails or waits.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    timeout = httpx.Timeout(STREAM_TIMEOUT, pool=None)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as http:
        client = await create_client(
            url, client_config=ClientConfig(streaming=True, httpx_client=http)
        )
        try:
            done = await asyncio.gather(
                *(_one_task(client, errors, first_events) for _ in range(count))
            )
        finally:
            await client.close()
    return sum(done)


async def _send_from_processes(
    url: str, count: int, errors: list[str], first_events: list[float]
) -> int:
    """Send `count` streams from as many client processes as `STREAMS_PER_CLIENT` asks,
    started together once every one is ready."""
    clients = -(-count // STREAMS_PER_CLIENT)
    if clients <= 1:
        return await _send(url, count, errors, first_events)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    shares = [count // clients + (1 if n < count % clients else 0) for n in range(clients)]
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.a2a_load", "--client", url, str(share),
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        for share in shares
    ]  # fmt: skip
    for process in processes:
        assert process.stdout is not None
        await process.stdout.readline()  # "ready"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        await process.stdin.drain()
    completed = 0
    for process in processes:
        output, _ = await process.communicate()
        report = json.loads(output)
        completed += report["completed"]
        errors += report["errors"]
        first_events += report["first_events"]
    return completed


def _client(url: str, count: int) -> None:
    """One client process of `_send_from_processes`: says it is ready, waits for the go,
    sends `count` streams and prints what they did as JSON."""
    print("ready", flush=True)
    sys.stdin.readline()
    errors: list[str] = []
    first_events: list[float] = []
    completed = asyncio.run(_send(url, count, errors, first_events))
    report = {"completed": completed, "errors": errors, "first_events": first_events}
    print(json.dumps(report), flush=True)


async def run_load(command: Sequence[str], port: int, tasks: int) -> LoadResult:
    """Start the server `command` starts on `port`, warm it up, and run `tasks` concurrent
    streaming tasks against it."""
    url = f"http://127.0.0.1:{port}"
    async with _server(command, port) as process:
        await _send(url, WARM_UP, [], [])
        before = _cpu_seconds(process.pid)
        errors: list[str] = []
        first_events: list[float] = []
        completed = await _send_from_processes(url, tasks, errors, first_events)
        cpu = _cpu_seconds(process.pid) - before
    return LoadResult(tasks, completed, errors, cpu, first_events)


Databases = Callable[[str], str]
"""The database (a SQLite file or a URL) of the server with a given name."""


async def compare(
    tasks: int, databases: Databases, *, baseline: bool = True
) -> tuple[LoadResult, LoadResult | None]:
    """The agentry server's and (with `baseline`) the plain a2a-sdk server's results for
    `tasks` tasks, each on the database `databases` gives for its name."""
    port = _free_port()
    agentry_command = [
        "-m", "agentry.cli", "serve", "a2a", "benchmarks.a2a_load:agent",
        "--port", str(port), "--log-level", "warning", "--database", databases("agentry"),
    ]  # fmt: skip
    agentry = await run_load(agentry_command, port, tasks)
    if not baseline:
        return agentry, None
    port = _free_port()
    plain_command = ["-m", "benchmarks.a2a_plain_server", str(port), databases("plain")]
    plain = await run_load(plain_command, port, tasks)
    return agentry, plain


def run_on_sqlite(tasks: int, *, baseline: bool) -> None:
    """Load a server on a fresh SQLite file of its own, and report."""
    with tempfile.TemporaryDirectory() as folder:
        databases: Databases = lambda name: str(Path(folder) / f"{name}.sqlite")  # noqa: E731
        agentry, plain = asyncio.run(compare(tasks, databases, baseline=baseline))
    report(agentry, plain, "SQLite")


def run_on_postgres(tasks: int, *, baseline: bool) -> None:
    """Load a server on a throwaway PostgreSQL server (the machine's own binaries, as the
    tests start it), each server on a database of its own, and report."""
    from tests.postgres import PostgresServer

    try:
        server = PostgresServer.start()
    except RuntimeError as error:
        print(f"A2A load on PostgreSQL: skipped: {str(error).splitlines()[0]}")
        return
    try:
        databases: Databases = lambda name: server.create_database(f"bench_a2a_{name}")  # noqa: E731
        agentry, plain = asyncio.run(compare(tasks, databases, baseline=baseline))
    finally:
        server.stop()
    report(agentry, plain, "PostgreSQL")


def report(agentry: LoadResult, plain: LoadResult | None, where: str) -> None:
    """One line per server, and the ratio of their CPU per task."""
    results = [("agentry", agentry)] + ([("plain a2a-sdk", plain)] if plain else [])
    print(f"A2A load on {where}: machine load average {os.getloadavg()[0]:.1f} at the end")
    for name, result in results:
        print(
            f"A2A load, {result.tasks} concurrent streams on {where}, {name}: "
            f"{result.completed} completed, {len(result.errors)} errors, "
            f"{result.cpu_ms_per_task:.1f} ms server CPU per task, first event after "
            f"{result.first_event_percentile(50):.2f} s (p50) / "
            f"{result.first_event_percentile(99):.2f} s (p99)"
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
        "--store",
        choices=("sqlite", "postgresql", "both"),
        default="both",
        help="a fresh SQLite file, a throwaway PostgreSQL server, or one after the other "
        "(the default)",
    )
    parser.add_argument(
        "--database",
        default=os.environ.get(DATABASE_ENV),
        help=f"a PostgreSQL URL to use instead of a throwaway server (default: ${DATABASE_ENV})",
    )
    parser.add_argument("--no-baseline", action="store_true", help="load the agentry server only")
    parser.add_argument("--client", nargs=2, metavar=("URL", "COUNT"), help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.client:
        _client(arguments.client[0], int(arguments.client[1]))
        return
    baseline = not arguments.no_baseline
    if arguments.database:
        url: str = arguments.database
        agentry, plain = asyncio.run(compare(arguments.tasks, lambda _: url, baseline=baseline))
        report(agentry, plain, "PostgreSQL")
        return
    if arguments.store in ("sqlite", "both"):
        run_on_sqlite(arguments.tasks, baseline=baseline)
    if arguments.store in ("postgresql", "both"):
        run_on_postgres(arguments.tasks, baseline=baseline)


if __name__ == "__main__":
    main()
