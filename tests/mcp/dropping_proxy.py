"""A TCP proxy on 127.0.0.1 that cuts the first connection carrying a given message, to
drop an HTTP connection at an exact point of an MCP exchange."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager


class DroppingProxy:
    """Forwards to `target_port`; aborts both sides of the first connection whose request
    (`outbound=True`) or answer (`outbound=False`) contains `trigger`."""

    def __init__(self, target_port: int, trigger: bytes, *, outbound: bool) -> None:
        self.target_port = target_port
        self.trigger = trigger
        self.outbound = outbound
        self.dropped = 0
        self._handlers: set[asyncio.Task[None]] = set()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", self.target_port
            )
            writers = (writer, upstream_writer)
            await asyncio.gather(
                self._pipe(reader, upstream_writer, writers, inspect=self.outbound),
                self._pipe(upstream_reader, writer, writers, inspect=not self.outbound),
            )
        except (OSError, asyncio.CancelledError):
            writer.transport.abort()
        finally:
            self._handlers.discard(task)

    async def _pipe(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        writers: tuple[asyncio.StreamWriter, ...],
        *,
        inspect: bool,
    ) -> None:
        try:
            while data := await source.read(65536):
                if inspect and not self.dropped and self.trigger in data:
                    self.dropped += 1
                    for each in writers:
                        each.transport.abort()
                    return
                sink.write(data)
                await sink.drain()
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                sink.close()

    @asynccontextmanager
    async def running(self) -> AsyncGenerator[str, None]:
        """Serve until the block ends; the proxied `/mcp` URL."""
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.close()
            for handler in list(self._handlers):
                handler.cancel()
            await asyncio.gather(*self._handlers, return_exceptions=True)
            await server.wait_closed()
