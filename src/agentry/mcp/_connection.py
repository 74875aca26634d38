"""One MCP connection, held open by a task of its own.

The SDK's transports live in anyio task groups that must be left by the task that entered
them. A connection opened lazily inside one agent run and closed later from another task
would break that rule, so a dedicated task enters the client, waits, and leaves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["Connection"]

logger = logging.getLogger("agentry.mcp")


class Connection:
    """A connected `mcp.Client` that any task may use and close.

    Args:
        name: The connection's name, for logs.
        make_client: Builds the (unentered) client.
        on_connected: Called in the owning task once connected (to start listeners).
    """

    def __init__(
        self,
        name: str,
        make_client: Callable[[], Client],
        on_connected: Callable[[Client], Any] | None = None,
    ) -> None:
        self.name = name
        self._make_client = make_client
        self._on_connected = on_connected
        self._owner: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._ready: asyncio.Future[Client] | None = None
        self.client: Client | None = None
        self.lost: BaseException | None = None
        """Why the connection ended on its own (the server went away), if it did."""

    @property
    def is_open(self) -> bool:
        """Whether the client is connected and its connection has not dropped."""
        return self.client is not None and self._owner is not None and not self._owner.done()

    async def open(self) -> Client:
        """Connect; the connected client.

        Raises:
            Exception: Whatever the SDK raised while setting up or connecting (the caller
                translates it).
        """
        client = self._make_client()  # set-up errors surface here, not as a connect timeout
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        self._ready = ready
        self._closing = asyncio.Event()
        self.lost = None
        self._owner = asyncio.create_task(
            self._own(client, ready, self._closing), name=f"mcp:{self.name}"
        )
        try:
            client = await asyncio.shield(ready)
        except BaseException:
            await self.close()
            if ready.done() and not ready.cancelled():
                ready.exception()  # seen: raised here, or dropped with a cancelled open()
            raise
        self.client = client
        return client

    async def close(self) -> None:
        """Disconnect and wait for the transport to shut down (idempotent)."""
        owner, closing = self._owner, self._closing
        self.client = None
        if owner is None or closing is None:
            return
        closing.set()
        if self._ready is not None and not self._ready.done():
            owner.cancel()  # still connecting (a server that never answers): stop now
        try:
            await asyncio.wait_for(asyncio.shield(owner), timeout=10)
        except asyncio.TimeoutError:
            owner.cancel()
            with contextlib.suppress(BaseException):
                await owner
        except Exception:
            pass  # already reported as `lost`
        self._owner = None

    async def _own(
        self, client: Client, ready: asyncio.Future[Client], closing: asyncio.Event
    ) -> None:
        try:
            async with client:
                if self._on_connected is not None:
                    self._on_connected(client)
                ready.set_result(client)
                await closing.wait()
        except BaseException as error:
            if not ready.done():
                if isinstance(error, asyncio.CancelledError):
                    ready.cancel()
                else:
                    ready.set_exception(error)
            elif not closing.is_set():
                self.lost = error
                logger.warning(
                    "connection to MCP server %r was lost: %s", self.name, type(error).__name__
                )
            if isinstance(error, asyncio.CancelledError) and not closing.is_set():
                raise
