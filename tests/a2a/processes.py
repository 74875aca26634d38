"""`agentry serve a2a` as real processes on 127.0.0.1, for the tests that need them."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """An `agentry serve a2a` process; `url` is where it serves."""

    def __init__(self, process: subprocess.Popen[bytes], url: str) -> None:
        self.process = process
        self.url = url

    def kill(self) -> None:
        """SIGKILL: the server dies without any clean-up."""
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        """SIGINT, as Ctrl-C: the server shuts down cleanly (killed if it takes too long)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.process.stdout:
            self.process.stdout.close()


async def start_server(*arguments: str, environment: dict[str, str] | None = None) -> ServerProcess:
    """Start `agentry serve a2a ARGUMENTS` on a free port and wait until it answers
    (with `environment` added to this process's)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "agentry.cli", "serve", "a2a", *arguments, "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **(environment or {}), "PYTHONPATH": str(ROOT / "src")},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    server = ServerProcess(process, f"http://127.0.0.1:{port}")
    async with httpx.AsyncClient() as http:
        while True:  # the test's timeout guards a server that never answers
            if process.poll() is not None:
                output = process.stdout.read().decode() if process.stdout else ""
                raise AssertionError(f"server exited early:\n{output}")
            try:
                await http.get(server.url + "/.well-known/agent-card.json")
                return server
            except httpx.TransportError:
                await asyncio.sleep(0.05)


@asynccontextmanager
async def served(
    *arguments: str, environment: dict[str, str] | None = None
) -> AsyncGenerator[ServerProcess, None]:
    """An `agentry serve a2a ARGUMENTS` process for the block (with `environment` added to
    this process's); stopped (or already killed) at its end."""
    server = await start_server(*arguments, environment=environment)
    try:
        yield server
    finally:
        server.stop()
