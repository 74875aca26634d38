"""`agentry serve a2a --durable` processes of `durable_app` for the tests that kill one
server and let another take its tasks over."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager

from tests.call_log import read_calls

from .durable_app import BLOCK_ENV, CALLS_ENV
from .processes import ServerProcess, served, start_server

# Short leases and takeover: a dead server's tasks and runs are taken over quickly.
OPTIONS = ("--lease", "1", "--takeover-after", "1", "--log-level", "warning")


async def start_blocking_server(
    target: str, databases: tuple[str, ...], calls: str
) -> ServerProcess:
    """Server 1: its model's final call blocks (notes `blocked`) until it is killed."""
    return await start_server(
        target,
        *databases,
        "--worker-id",
        "server-1",
        *OPTIONS,
        environment={CALLS_ENV: calls, BLOCK_ENV: "1"},
    )


def taking_over_server(
    target: str, databases: tuple[str, ...], calls: str
) -> AbstractAsyncContextManager[ServerProcess]:
    """Server 2, on the same databases, for the block: it takes server 1's tasks over."""
    return served(
        target, *databases, "--worker-id", "server-2", *OPTIONS, environment={CALLS_ENV: calls}
    )


async def blocked(calls: str) -> None:
    """Wait until the final model call is under way (the test's timeout guards)."""
    while not any(kind == "blocked" for kind, _ in read_calls(calls)):
        await asyncio.sleep(0.05)
