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
from typing import Any

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
    await answering(process, server.url + "/.well-known/agent-card.json")
    return server


async def answering(process: subprocess.Popen[Any], url: str) -> None:
    """Wait until the server `process` answers a GET of `url` (the test's timeout guards a
    server that never does).

    Raises:
        AssertionError: The process ended first (with what it wrote on its pipe).
    """
    async with httpx.AsyncClient() as http:
        while True:
            if process.poll() is not None:
                pipe = process.stdout or process.stderr
                output = pipe.read() if pipe else ""
                text = output.decode() if isinstance(output, bytes) else str(output)
                raise AssertionError(f"server exited early:\n{text}")
            try:
                await http.get(url)
                return
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
