"""How MCP failures are told apart: timeouts, lost connections and the rest."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentry.errors import ToolExecutionError

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "MCPConnectionError",
    "describe",
    "explained",
    "first_problem",
    "is_connection_loss",
    "is_timeout",
]


class MCPConnectionError(ToolExecutionError):
    """The MCP server could not be reached, or the connection to it broke."""


def is_timeout(error: BaseException) -> bool:
    """Whether `error` is a request that got no answer in time (the SDK's read timeout,
    or a server answering `REQUEST_TIMEOUT`, which some servers spell as HTTP's 408)."""
    from mcp_types import REQUEST_TIMEOUT

    return getattr(error, "code", None) in (REQUEST_TIMEOUT, 408)


def is_connection_loss(error: BaseException) -> bool:
    """Whether `error` means the connection is gone (the request's fate is unknown)."""
    import anyio
    from mcp_types import CONNECTION_CLOSED

    from mcp import MCPError

    if isinstance(error, MCPError):
        return error.code == CONNECTION_CLOSED
    if isinstance(error, TimeoutError):  # an OSError, but the connection may be fine
        return False
    return isinstance(
        error,
        MCPConnectionError
        | OSError
        | EOFError
        | anyio.ClosedResourceError
        | anyio.BrokenResourceError
        | anyio.EndOfStream,
    )


def describe(error: BaseException) -> str:
    """What went wrong, with the causes inside exception groups spelled out."""
    inner: Sequence[BaseException] | None = getattr(error, "exceptions", None)
    if inner:
        return "; ".join(describe(e) for e in inner)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def explained(error: BaseException, cause: str | None) -> str:
    """What went wrong: the transport's account of the `cause` where it saw one. It
    replaces an error that only says the connection closed or that the server answered
    with an error status (the SDK's words for both), and follows any other."""
    if cause is None:
        return describe(error)
    if _only_says_it_broke(error):
        return cause
    return f"{describe(error)} ({cause})"


def _only_says_it_broke(error: BaseException) -> bool:
    from mcp_types import INTERNAL_ERROR

    inner: Sequence[BaseException] | None = getattr(error, "exceptions", None)
    if inner:
        return all(_only_says_it_broke(e) for e in inner)
    return is_connection_loss(error) or getattr(error, "code", None) == INTERNAL_ERROR


def first_problem(error: ValidationError) -> str:
    """The first thing a validation found wrong, as `where: what`."""
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "answer"
    return f"{where}: {problem['msg']}"
