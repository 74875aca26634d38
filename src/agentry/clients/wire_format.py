"""Helpers for provider clients: agentry's options and contents in the shapes that
provider APIs share (tool lists, tool choices, JSON schemas, instructions, results).

Example:
    >>> from agentry.clients.wire_format import tool_choice_parts
    >>> tool_choice_parts({"mode": "required", "required_function_name": "add"})
    ('required', 'add')
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, cast

from agentry.errors import ChatClientError
from agentry.tools import FunctionTool, tool_result_to_text
from agentry.types import ChatOptions, Content, Message

__all__ = [
    "function_call_arguments",
    "function_result_text",
    "iso_time",
    "option_instructions",
    "response_format_schema",
    "split_tools",
    "tool_choice_parts",
]

_TOOL_MODES = ("auto", "none", "required")


def split_tools(tools: Sequence[Any] | None) -> tuple[list[FunctionTool], list[dict[str, Any]]]:
    """Function tools, and raw tool dicts passed through as the provider's own tools.

    Raises:
        TypeError: An item is neither a `FunctionTool` nor a dict.
    """
    functions: list[FunctionTool] = []
    raw: list[dict[str, Any]] = []
    for item in tools or ():
        if isinstance(item, FunctionTool):
            functions.append(item)
        elif isinstance(item, Mapping):
            raw.append(dict(cast(Mapping[str, Any], item)))
        else:
            raise TypeError(
                "chat clients take FunctionTool objects (functions decorated with @tool) or "
                f"provider tool dicts, not {type(item).__name__}"
            )
    return functions, raw


def tool_choice_parts(choice: Any) -> tuple[str, str | None] | None:
    """(mode, required function name) of a tool choice; None when there is none.

    Raises:
        ChatClientError: `choice` is not a tool choice agentry knows.
    """
    if choice is None:
        return None
    if isinstance(choice, Mapping):
        given = cast(Mapping[str, Any], choice)
        mode, name = given.get("mode", "auto"), given.get("required_function_name")
    else:
        mode, name = choice, None
    if mode not in _TOOL_MODES or (name is not None and not isinstance(name, str)):
        raise ChatClientError(
            "tool_choice must be 'auto', 'none', 'required' or "
            f"{{'mode': 'required', 'required_function_name': name}}, not {choice!r}"
        )
    return mode, name


def response_format_schema(response_format: Any) -> tuple[str, dict[str, Any], bool]:
    """(name, JSON schema, strict) for a pydantic model class or a JSON schema dict.

    Strict mode needs every property required and no extra properties; it is used when the
    schema already requires every property, with extra properties turned off.

    Raises:
        ChatClientError: `response_format` is neither a pydantic model class nor a dict.
    """
    if isinstance(response_format, Mapping):
        schema = dict(cast(Mapping[str, Any], response_format))
        name = str(schema.get("title", "response"))
    elif callable(getattr(response_format, "model_json_schema", None)):
        schema = response_format.model_json_schema()
        name = response_format.__name__
    else:
        raise ChatClientError(
            "response_format must be a pydantic model class or a JSON schema dict, "
            f"not {response_format!r}"
        )
    strict_schema = copy.deepcopy(schema)
    strict = _make_strict(strict_schema)
    return _safe_name(name), strict_schema if strict else schema, strict


def _make_strict(schema: Any) -> bool:
    """Close every object schema in place; False when some property is optional."""
    if isinstance(schema, list):
        return all(_make_strict(item) for item in cast(list[Any], schema))
    if not isinstance(schema, dict):
        return True
    node = cast(dict[str, Any], schema)
    fine = True
    if node.get("type") == "object" or "properties" in node:
        properties = cast(dict[str, Any], node.get("properties", {}))
        if set(node.get("required", [])) != set(properties):
            fine = False
        node["additionalProperties"] = False
    for value in node.values():
        if isinstance(value, (dict, list)) and not _make_strict(value):
            fine = False
    return fine


def _safe_name(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in name)
    return cleaned[:64] or "response"


def iso_time(timestamp: float | None) -> str | None:
    """A Unix timestamp as an ISO 8601 string."""
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()


def function_call_arguments(content: Content) -> str:
    """A function call's arguments as the JSON text the wire carries (`{}` for none)."""
    arguments = content.arguments
    if arguments is None:
        return "{}"
    return arguments if isinstance(arguments, str) else json.dumps(dict(arguments))


def function_result_text(content: Content) -> str:
    """A function result as the text the model reads."""
    return tool_result_to_text(content.result)


def option_instructions(messages: Sequence[Message], options: ChatOptions) -> str | None:
    """`options["instructions"]`, unless a system message already carries them (an agent
    puts its instructions in the system message and may pass them in options too)."""
    instructions = options.get("instructions")
    if not instructions:
        return None
    if any(m.role == "system" and instructions in m.text for m in messages):
        return None
    return instructions
