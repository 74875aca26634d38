"""`servers/basic.py` served over WebSocket: `python websocket.py PORT`."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from websockets.asyncio.server import ServerConnection, serve

sys.path.insert(0, str(Path(__file__).parent))
from basic import server

from agentry.mcp._websocket import SUBPROTOCOL, websocket_streams


async def handle(connection: ServerConnection) -> None:
    # MCPServer runs only its own transports and has no public handle on the low-level
    # server that a custom transport needs.
    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    async with websocket_streams(connection) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def main(port: int) -> None:
    async with serve(handle, "127.0.0.1", port, subprotocols=[SUBPROTOCOL]):  # pyright: ignore[reportArgumentType]
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
