"""An OpenAI-compatible server of agents on a free port of 127.0.0.1, and SDK clients of it."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from agentry.agents import SupportsAgentRun
from agentry.openai.server import create_app
from openai import AsyncOpenAI
from tests.asgi import serving


@asynccontextmanager
async def serve(
    agents: SupportsAgentRun | Mapping[str, SupportsAgentRun], **options: Any
) -> AsyncGenerator[str, None]:
    """Serve `agents` until the block ends; the base URL (ending in /v1)."""
    async with serving(create_app(agents, **options)) as url:
        yield f"{url}/v1"


@asynccontextmanager
async def openai_client(base_url: str, api_key: str = "unused") -> AsyncGenerator[AsyncOpenAI]:
    """The `openai` SDK's client of the server, without its own retries."""
    async with AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0) as client:
        yield client
