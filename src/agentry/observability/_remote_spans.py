"""Spans of calls across a process boundary: MCP requests and A2A requests, made or served.

The protocol packages call these behind the telemetry switch, for example::

    if telemetry.enabled:  # telemetry hook
        from agentry.observability import traced_call

        result = await traced_call(
            "tools/call get_weather",
            {"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather"},
            session.call_tool("get_weather", arguments),
        )
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Literal, TypeVar

from opentelemetry import trace
from opentelemetry.trace import SpanKind

from agentry.observability._instruments import end_span, fail_span, instruments

__all__ = [
    "A2A_CONTEXT_ID",
    "A2A_METHOD",
    "A2A_TASK_ID",
    "MCP_METHOD_NAME",
    "MCP_SESSION_ID",
    "SERVER_ADDRESS",
    "traced_call",
]

T = TypeVar("T")

MCP_METHOD_NAME = "mcp.method.name"
MCP_SESSION_ID = "mcp.session.id"
SERVER_ADDRESS = "server.address"
# No convention covers A2A yet: these live under its own namespace.
A2A_METHOD = "a2a.method"
A2A_TASK_ID = "a2a.task.id"
A2A_CONTEXT_ID = "a2a.context.id"

_KINDS = {"client": SpanKind.CLIENT, "server": SpanKind.SERVER}


async def traced_call(
    name: str,
    attributes: Mapping[str, object],
    call: Awaitable[T],
    *,
    side: Literal["client", "server"] = "client",
    result_attributes: Mapping[str, object] | None = None,
) -> T:
    """Await `call` inside a span `name` (a client span, or with `side="server"` a server
    span), ending it with `result_attributes` or marking it failed.

    Args:
        name: The span name, `{method} {target}` (`"tools/call get_weather"`).
        attributes: Attributes known before the call.
        call: The request.
        side: Whether this process makes the request or serves it.
        result_attributes: Attributes to add when the call succeeds.
    """
    recorder = instruments()
    span = recorder.start_span(name, attributes, kind=_KINDS[side])
    try:
        with trace.use_span(
            span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        ):
            result = await call
    except BaseException as error:
        fail_span(span, error)
        span.end()
        raise
    end_span(span, result_attributes or {})
    return result
