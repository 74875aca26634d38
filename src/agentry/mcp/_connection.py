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

from agentry.mcp._background import BackgroundTasks

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
        self._shutdowns = BackgroundTasks()
        self.client: Client | None = None
        self.lost: BaseException | None = None
        """Why the connection ended on its own (the server went away), if it did."""

    @property
    def is_open(self) -> bool:
        """Whether the client is connected and its connection has not dropped."""
        return self.client is not None and self._owner is not None and not self._owner.done()

    async def open(self) -> Client:
        """Connect; the connected client.

        A connect that fails (or is cancelled, as by a timeout) raises at once; stopping
        its transport (a server process gets seconds to exit) goes on in the background
        and `close()` waits for it.

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
            connected = await asyncio.shield(ready)
        except BaseException:
            self._shut_down_in_background()
            if ready.done() and not ready.cancelled():
                ready.exception()  # seen: raised here, or dropped with a cancelled open()
            raise
        self.client = connected
        return connected

    async def close(self) -> None:
        """Disconnect and wait for the transport to shut down, and for the shutdowns of
        failed connects still going (idempotent)."""
        owner, closing, ready = self._detach()
        if owner is not None:
            await _shut_down(owner, closing, ready)
        await self._shutdowns.wait()

    def _detach(
        self,
    ) -> tuple[asyncio.Task[None] | None, asyncio.Event | None, asyncio.Future[Client] | None]:
        """Forget the current connection; what is needed to shut it down."""
        detached = (self._owner, self._closing, self._ready)
        self.client = None
        self._owner = self._closing = self._ready = None
        return detached

    def _shut_down_in_background(self) -> None:
        owner, closing, ready = self._detach()
        if owner is None:
            return
        self._shutdowns.start(_shut_down(owner, closing, ready), name=f"mcp:{self.name}:shutdown")

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


async def _shut_down(
    owner: asyncio.Task[None],
    closing: asyncio.Event | None,
    ready: asyncio.Future[Client] | None,
) -> None:
    """Tell the owning task to leave the client, and wait for it (at most 10 s)."""
    if closing is not None:
        closing.set()
    if ready is not None and not ready.done():
        owner.cancel()  # still connecting (a server that never answers): stop now
    try:
        await asyncio.wait_for(asyncio.shield(owner), timeout=10)
    except asyncio.TimeoutError:
        owner.cancel()
        with contextlib.suppress(BaseException):
            await owner
    except Exception:
        pass  # already reported as `lost`
