"""Tools a request declares: the agent may call them, and the caller runs them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agentry.tools import FunctionTool
from agentry.types import AgentResponse, Content

__all__ = ["caller_tools", "pending_calls"]

_NO_PARAMETERS: Mapping[str, Any] = {"type": "object", "properties": {}}


def caller_tools(
    declared: Iterable[tuple[str, str | None, Mapping[str, Any] | None]],
) -> list[FunctionTool]:
    """Declaration-only tools for (name, description, JSON schema of parameters)."""
    return [
        FunctionTool(
            name=name, description=description or "", input_model=parameters or _NO_PARAMETERS
        )
        for name, description, parameters in declared
    ]


def pending_calls(response: AgentResponse[Any], names: set[str]) -> list[Content]:
    """The calls of tools in `names` that `response` leaves unanswered, for the caller."""
    if not names:
        return []
    contents = [c for m in response.messages for c in m.contents]
    answered = {c.call_id for c in contents if c.type == "function_result"}
    return [
        c
        for c in contents
        if c.type == "function_call" and c.name in names and c.call_id not in answered
    ]
