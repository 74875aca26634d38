"""Telling MCP failures apart: what is a lost connection, what is a timeout."""

from __future__ import annotations

import anyio
import pytest
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT

from agentry.mcp import MCPConnectionError
from agentry.mcp._errors import explained, is_connection_loss, is_timeout
from mcp import MCPError


@pytest.mark.parametrize(
    "error",
    [
        MCPError(code=CONNECTION_CLOSED, message="Connection closed"),
        MCPConnectionError("not connected"),
        BrokenPipeError(),
        ConnectionResetError(),
        EOFError(),
        anyio.ClosedResourceError(),
        anyio.BrokenResourceError(),
    ],
)
def test_these_are_lost_connections(error: BaseException) -> None:
    assert is_connection_loss(error)
    assert not is_timeout(error)


@pytest.mark.parametrize(
    "error",
    [MCPError(code=REQUEST_TIMEOUT, message="timed out"), MCPError(code=408, message="slow")],
)
def test_these_are_timeouts(error: BaseException) -> None:
    assert is_timeout(error)
    assert not is_connection_loss(error)


@pytest.mark.parametrize(
    "error", [TimeoutError(), MCPError(code=INTERNAL_ERROR, message="boom"), ValueError()]
)
def test_these_are_not_lost_connections(error: BaseException) -> None:
    assert not is_connection_loss(error)


class Grouped(Exception):
    """Errors raised together, as an exception group holds them (Python 3.10 has none)."""

    def __init__(self, *errors: BaseException) -> None:
        super().__init__("unhandled errors in a task group")
        self.exceptions = errors


def test_the_transports_account_replaces_only_an_error_that_says_nothing_more() -> None:
    closed = MCPError(code=CONNECTION_CLOSED, message="Connection closed")
    status = Grouped(MCPError(code=INTERNAL_ERROR, message="Server returned an error response"))
    cause = "the server process exited with status 3"

    assert explained(closed, cause) == cause
    assert explained(status, "the server answered HTTP 401 Unauthorized") == (
        "the server answered HTTP 401 Unauthorized"
    )
    assert explained(ValueError("unsupported version"), cause) == (
        f"ValueError: unsupported version ({cause})"
    )
    assert explained(closed, None) == "MCPError: Connection closed"
