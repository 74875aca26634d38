"""A real A2A server on 127.0.0.1 for the tests, and clients of both bindings."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from a2a.client import Client, ClientConfig, create_client

from agentry.a2a import A2AApp, create_app
from agentry.agents import SupportsAgentRun

BINDINGS = ("JSONRPC", "HTTP+JSON")


class RunningServer:
    """A server started in the test's event loop."""

    def __init__(self, app: A2AApp, url: str, server: uvicorn.Server) -> None:
        self.app = app
        self.url = url
        self.server = server


@asynccontextmanager
async def serve(agent: SupportsAgentRun, **options: Any) -> AsyncGenerator[RunningServer, None]:
    """Serve `agent` on a free port of 127.0.0.1 until the block ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    options.setdefault("database", None)
    app = create_app(agent, url=url, **options)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await asyncio.wait_for(_started(server, task), 5)
        yield RunningServer(app, url, server)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


async def _started(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)


@asynccontextmanager
async def a2a_client(
    url: str, binding: str = "JSONRPC", *, streaming: bool = True
) -> AsyncGenerator[Client, None]:
    """An `a2a-sdk` client of the server at `url` over `binding`."""
    http = httpx.AsyncClient(timeout=10)
    config = ClientConfig(
        streaming=streaming, httpx_client=http, supported_protocol_bindings=[binding]
    )
    client = await create_client(url, client_config=config)
    try:
        yield client
    finally:
        await client.close()
        await http.aclose()


@pytest.fixture(params=["sqlite", "postgresql"])
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, ...]:
    """The servers' `--database` and `--durable` options: two SQLite files, or one
    PostgreSQL database for both."""
    if request.param == "sqlite":
        runs = f"sqlite:///{tmp_path / 'runs.sqlite'}"
        return ("--database", str(tmp_path / "tasks.sqlite"), "--durable", runs)
    url = str(request.getfixturevalue("postgres_url"))
    return ("--database", url, "--durable", url)
