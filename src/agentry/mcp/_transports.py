"""The MCP tools by transport: a local process over stdio, or a server over HTTP."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from agentry.errors import require_extra
from agentry.mcp._tool import MCPTool

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import TransportStreams

    from agentry.mcp._stdio import ServerRun

__all__ = ["MCPStdioTool", "MCPStreamableHTTPTool", "MCPWebsocketTool"]


class MCPStdioTool(MCPTool):
    """The tools of an MCP server started as a local process, spoken to over stdio.

    Args:
        name: A name for the server.
        command: The program to run.
        args: Its arguments.
        env: Extra environment variables for it (over a minimal safe environment).
        cwd: Its working directory.
        errlog: Where its standard error goes (default: this process's). Its last lines
            are also quoted in the error when the server exits.
        **kwargs: The options of `MCPTool`.

    Example:
        >>> weather = MCPStdioTool(name="weather", command="python", args=["weather_server.py"])
    """

    def __init__(
        self,
        name: str,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        errlog: TextIO | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name, **kwargs)
        self.command = command
        self.args = list(args)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.errlog = errlog
        self._run: ServerRun | None = None

    def _server(self) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        from agentry.mcp._stdio import ServerRun, stdio_transport

        parameters = StdioServerParameters(
            command=self.command, args=self.args, env=self.env, cwd=self.cwd
        )
        if sys.platform == "win32":  # the SDK's transport: it knows Windows process trees
            self._run = None
            return stdio_client(parameters, errlog=self.errlog or _standard_error())
        self._run = ServerRun(self.name)
        return stdio_transport(parameters, self._run, self.errlog)

    async def _transport_problem(self, *, settle: float) -> str | None:
        if self._run is None:
            return None
        return await self._run.cause(settle=settle)


def _standard_error() -> TextIO:
    """Where a server's standard error goes by default on Windows (the SDK's transport
    needs a real file): this process's, or the original stream in notebooks."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (OSError, ValueError, AttributeError):
            continue
    return open(os.devnull, "w")


class MCPStreamableHTTPTool(MCPTool):
    """The tools of an MCP server reached over streamable HTTP.

    Args:
        name: A name for the server.
        url: The server's MCP endpoint (`http://host:port/mcp`).
        headers: Headers sent with every request (for example authorization).
        timeout: Seconds to connect and send (reading a stream may take longer).
        sse_read_timeout: Seconds a response stream may stay silent.
        terminate_on_close: End the server-side session when closing.
        **kwargs: The options of `MCPTool`.

    Example:
        >>> docs = MCPStreamableHTTPTool(name="docs", url="http://127.0.0.1:8000/mcp")
    """

    def __init__(
        self,
        name: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        sse_read_timeout: float = 300.0,
        terminate_on_close: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(name, **kwargs)
        self.url = url
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.sse_read_timeout = sse_read_timeout
        self.terminate_on_close = terminate_on_close
        self._http_problem: str | None = None

    def _server(self) -> Any:
        return self._streams()

    @asynccontextmanager
    async def _streams(self) -> AsyncGenerator[TransportStreams, None]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        timeout = httpx2.Timeout(self.timeout, read=self.sse_read_timeout)
        http = httpx2.AsyncClient(
            headers=self.headers, timeout=timeout, event_hooks={"response": [self._note]}
        )
        async with http:
            transport = streamable_http_client(
                self.url, http_client=http, terminate_on_close=self.terminate_on_close
            )
            async with transport as streams:
                yield streams

    async def _note(self, response: httpx2.Response) -> None:
        """Keep what the last failed request was answered, for error messages (the SDK
        reports any HTTP error status as "Server returned an error response")."""
        if response.request.method != "POST":
            return  # the optional GET stream and the closing DELETE may be refused
        self._http_problem = _http_problem(response) if response.status_code >= 400 else None

    async def _transport_problem(self, *, settle: float) -> str | None:
        return self._http_problem


def _http_problem(response: httpx2.Response) -> str:
    status = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
    if response.status_code in (401, 403):
        challenge = response.headers.get("www-authenticate")
        detail = f" (WWW-Authenticate: {challenge})" if challenge else ""
        return (
            f"the server answered {status}{detail}: check the credentials sent with "
            "headers= (for example the Authorization header)"
        )
    return f"the server answered {status}"


class MCPWebsocketTool(MCPTool):
    """The tools of an MCP server reached over a WebSocket (`ws://` or `wss://`).

    Messages travel as JSON text frames under the `mcp` subprotocol. Needs the
    `websockets` package (in the `mcp` extra).

    Args:
        name: A name for the server.
        url: The server's WebSocket endpoint.
        headers: Headers sent with the opening handshake (for example authorization).
        open_timeout: Seconds the opening handshake may take.
        **kwargs: The options of `MCPTool`.

    Example:
        >>> live = MCPWebsocketTool(name="live", url="ws://127.0.0.1:8765/mcp")
    """

    def __init__(
        self,
        name: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        open_timeout: float = 30.0,
        **kwargs: Any,
    ) -> None:
        require_extra("mcp", feature="MCPWebsocketTool", packages=("websockets",))
        super().__init__(name, **kwargs)
        self.url = url
        self.headers = dict(headers or {})
        self.open_timeout = open_timeout

    def _server(self) -> Any:
        from agentry.mcp._websocket import websocket_client

        return websocket_client(self.url, self.headers, self.open_timeout)
