"""Submitting a tool call as a task on a 2025-11-25 connection.

The submission is the one request of a task that is never repeated: until the server has
named the task, the client cannot tell whether the tool started, so a lost or garbled
answer fails the call instead of sending it again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agentry.errors import ToolExecutionError
from agentry.mcp._errors import MCPConnectionError, is_connection_loss, is_timeout
from agentry.mcp._task_wire import LegacyTaskWire, MalformedTaskResponse, TaskState

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp_types import CallToolResult

    from agentry.mcp._task_options import MCPTaskOptions

__all__ = ["submit_task"]

logger = logging.getLogger("agentry.mcp")


async def submit_task(
    session: ClientSession,
    name: str,
    arguments: Mapping[str, Any],
    *,
    meta: Mapping[str, Any] | None,
    server: str,
    options: MCPTaskOptions | None,
    timeout: float | None,
) -> TaskState | CallToolResult | None:
    """Send a task-augmented `tools/call`.

    Returns:
        The task the server created; the tool result of a server that ignored the task
        request; or None when the server rejected the task field as unknown (it did not
        run the tool, so a plain call is safe).

    Raises:
        MCPConnectionError: The connection broke before the task was named.
        ToolExecutionError: The server refused the call, did not answer in time, or
            answered with neither a task nor a tool result.
    """
    from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND

    from mcp import MCPError

    what = f"task call of tool {name!r}"
    try:
        return await LegacyTaskWire().submit(
            session,
            name,
            arguments,
            meta=meta,
            ttl_milliseconds=options.ttl_milliseconds if options is not None else None,
            timeout=timeout,
        )
    except MalformedTaskResponse as error:
        raise ToolExecutionError(
            f"MCP server {server!r} answered the {what} with {error}; not calling again, "
            "as the tool may have run"
        ) from None
    except Exception as error:
        if isinstance(error, MCPError) and error.code in (METHOD_NOT_FOUND, INVALID_PARAMS):
            logger.info(
                "MCP server %r rejected a task for tool %r (%s); calling it plainly",
                server,
                name,
                error,
            )
            return None
        if is_connection_loss(error):
            raise MCPConnectionError(
                f"connection lost; task state unknown: the connection to MCP server {server!r} "
                f"broke during the {what} before the server named the task; the call is not "
                "sent again, as the server may have started it"
            ) from error
        if is_timeout(error) or isinstance(error, TimeoutError):
            raise ToolExecutionError(
                f"MCP server {server!r} did not answer the {what} in time; task state "
                "unknown, so the call is not sent again"
            ) from error
        if isinstance(error, MCPError):
            raise ToolExecutionError(
                f"MCP server {server!r} refused the {what}: {error}"
            ) from error
        raise
