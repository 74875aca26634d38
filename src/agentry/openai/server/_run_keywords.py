"""The keyword arguments of the agent run a request asks for, in either API."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from agentry.openai.server._caller_tools import caller_tools
from agentry.types import ChatOptions

__all__ = ["json_format", "run_keywords"]


def run_keywords(
    sampling: Mapping[str, object],
    *,
    tool_choice: str | None,
    chosen_tool: str | None,
    parallel_tool_calls: bool | None,
    declared_tools: Iterable[tuple[str, str | None, Mapping[str, Any] | None]],
    response_format: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """Chat options (those the request gives), response format and the caller's tools.

    Args:
        sampling: Chat options by agentry's names; a None value is left out.
        tool_choice: `auto`, `none` or `required`, if given.
        chosen_tool: The one tool the request requires, if it names one.
        parallel_tool_calls: Whether the model may call several tools at once, if given.
        declared_tools: The caller's tools: (name, description, JSON schema).
        response_format: The JSON schema the answer must match, if any.
    """
    mode: Any = (
        {"mode": "required", "required_function_name": chosen_tool} if chosen_tool else tool_choice
    )
    chosen = {**sampling, "tool_choice": mode, "allow_multiple_tool_calls": parallel_tool_calls}
    options = cast(ChatOptions, {k: v for k, v in chosen.items() if v is not None})
    run: dict[str, Any] = {"options": options} if options else {}
    if response_format is not None:
        run["response_format"] = response_format
    tools = caller_tools(declared_tools)
    if tools:
        run["tools"] = tools
    return run


def json_format(kind: str | None, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The run's `response_format` for a request's format: a JSON schema (any object for
    `json_object`, or a `json_schema` without one), or None for plain text."""
    if kind == "json_schema":
        return schema or {"type": "object"}
    return {"type": "object"} if kind == "json_object" else None
