"""Spans of tool calls: `execute_tool {tool name}`, one per call the model makes."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Concatenate, TypeVar

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode
from typing_extensions import ParamSpec

from agentry.observability import _state
from agentry.observability._attributes import (
    ERROR_TYPE,
    OPERATION_NAME,
    TOOL_CALL_ARGUMENTS,
    TOOL_CALL_ID,
    TOOL_CALL_RESULT,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    TOOL_TYPE,
    to_json,
)
from agentry.observability._instruments import end_span, fail_span, instruments
from agentry.types import Content

__all__ = ["UNKNOWN_TOOL", "traced_tool_call"]

UNKNOWN_TOOL = "(unknown tool)"
"""The tool name recorded for a call of a tool that does not exist, unless sensitive data
is on (metrics always use it)."""

P = ParamSpec("P")
ToolsByName = TypeVar("ToolsByName", bound=Mapping[str | None, object])
ToolOutcome = tuple[Content, bool, bool]
"""(result content, whether the call failed, whether middleware asked to stop)."""


def traced_tool_call(
    invoke_one: Callable[Concatenate[Content, ToolsByName, P], Awaitable[ToolOutcome]],
) -> Callable[Concatenate[Content, ToolsByName, P], Awaitable[ToolOutcome]]:
    """Wrap the function that runs one tool call so that each call runs in its own span."""
    from agentry.tools import FunctionTool

    async def traced(
        call: Content, by_name: ToolsByName, *args: P.args, **kwargs: P.kwargs
    ) -> ToolOutcome:
        tool = by_name.get(call.name)
        known = isinstance(tool, FunctionTool)
        # The name of a tool that does not exist is whatever the model wrote: sensitive
        # text, and no fit for a metric dimension.
        name = call.name if known or _state.sensitive_data else UNKNOWN_TOOL
        recorder = instruments()
        metric_attributes: dict[str, object] = {
            OPERATION_NAME: "execute_tool",
            TOOL_NAME: call.name if known else UNKNOWN_TOOL,
        }
        attributes: dict[str, object] = {
            **metric_attributes,
            TOOL_NAME: name,
            TOOL_TYPE: "function",
            TOOL_CALL_ID: call.call_id,
            TOOL_DESCRIPTION: getattr(tool, "description", None) or None,
        }
        if _state.sensitive_data and call.arguments is not None:
            attributes[TOOL_CALL_ARGUMENTS] = to_json(call.arguments)
        span = recorder.start_span(f"execute_tool {name}", attributes)
        started = time.perf_counter()
        try:
            with trace.use_span(
                span, end_on_exit=False, record_exception=False, set_status_on_exception=False
            ):
                outcome = await invoke_one(call, by_name, *args, **kwargs)
        except BaseException as error:
            fail_span(span, error)
            span.end()
            recorder.record_duration(started, metric_attributes, error)
            raise
        result, failed, _ = outcome
        error = getattr(result, "exception", None)
        if isinstance(error, BaseException):
            fail_span(span, error)
        elif failed:
            reason = "invalid_arguments" if known else "unknown_tool"
            span.set_attribute(ERROR_TYPE, reason)
            span.set_status(Status(StatusCode.ERROR, reason))
        final: dict[str, object] = {}
        if _state.sensitive_data:
            final[TOOL_CALL_RESULT] = to_json(result.result)
        end_span(span, final)
        recorder.record_duration(
            started, metric_attributes, error if isinstance(error, BaseException) else None
        )
        return outcome

    return traced
