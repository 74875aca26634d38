"""MCP over WebSocket: JSON-RPC messages as text frames, on the `websockets` library.

The MCP SDK 2.x ships stdio and streamable HTTP only; this is a transport on the SDK's
transport interface (a context manager yielding a read and a write stream of
`SessionMessage`s), usable by clients and, in tests, by servers.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

if TYPE_CHECKING:
    from websockets.asyncio.connection import Connection

__all__ = ["SUBPROTOCOL", "websocket_client", "websocket_streams"]

logger = logging.getLogger("agentry.mcp")

SUBPROTOCOL = "mcp"


@asynccontextmanager
async def websocket_client(
    url: str, headers: Mapping[str, str] | None = None, open_timeout: float = 30.0
) -> AsyncGenerator[tuple[Any, Any], None]:
    """Connect to an MCP server's WebSocket endpoint; the transport's streams."""
    from websockets.asyncio.client import connect

    connecting = connect(
        url,
        subprotocols=[SUBPROTOCOL],  # pyright: ignore[reportArgumentType]
        additional_headers=dict(headers or {}),
        open_timeout=open_timeout,
    )
    async with connecting as connection, websocket_streams(connection) as streams:
        yield streams


@asynccontextmanager
async def websocket_streams(connection: Connection) -> AsyncGenerator[tuple[Any, Any], None]:
    """The read and write streams of MCP messages over an open WebSocket connection."""
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter
    from websockets.exceptions import ConnectionClosed

    incoming_writer, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def receive() -> None:
        async with incoming_writer:
            try:
                async for frame in connection:
                    try:
                        message = jsonrpc_message_adapter.validate_json(frame, by_name=False)
                    except ValueError as error:
                        await incoming_writer.send(error)
                        continue
                    await incoming_writer.send(SessionMessage(message))
            except ConnectionClosed:
                logger.debug("the MCP WebSocket connection closed")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass

    async def send() -> None:
        async with outgoing_reader:
            try:
                async for session_message in outgoing_reader:
                    await connection.send(
                        session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    )
            except ConnectionClosed:
                await incoming_writer.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(receive)
        tasks.start_soon(send)
        try:
            yield incoming, outgoing
        finally:
            tasks.cancel_scope.cancel()
