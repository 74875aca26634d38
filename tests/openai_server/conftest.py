"""An OpenAI-compatible server of agents on a free port of 127.0.0.1, and SDK clients of it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

from agentry.agents import SupportsAgentRun
from agentry.openai.server import create_app
from openai import AsyncOpenAI


@asynccontextmanager
async def serve(
    agents: SupportsAgentRun | Mapping[str, SupportsAgentRun], **options: Any
) -> AsyncGenerator[str, None]:
    """Serve `agents` until the block ends; the base URL (ending in /v1)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(agents, **options), log_level="warning"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


@asynccontextmanager
async def openai_client(base_url: str, api_key: str = "unused") -> AsyncGenerator[AsyncOpenAI]:
    """The `openai` SDK's client of the server, without its own retries."""
    async with AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0) as client:
        yield client
