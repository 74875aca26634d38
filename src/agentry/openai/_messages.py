"""Mapping helpers both OpenAI wire formats share: tools, tool choice, response formats,
tool results, usage and finish reasons."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, cast

from agentry.errors import ChatClientError
from agentry.tools import tool_result_to_text
from agentry.types import ChatOptions, Content, Message, UsageDetails

__all__ = [
    "SKIPPED_CONTENT_TYPES",
    "JsonSchemaFormat",
    "ToolSpec",
    "file_name",
    "function_result_text",
    "iso_time",
    "json_schema_format",
    "missing_instructions",
    "tool_choice_of",
    "tool_specs",
    "usage_details",
]

SKIPPED_CONTENT_TYPES = frozenset(
    {"usage", "error", "function_approval_request", "function_approval_response"}
)
"""Contents that stay on this side: they are bookkeeping, not something a model reads."""


class ToolSpec:
    """One function tool as the APIs describe it."""

    __slots__ = ("description", "name", "parameters")

    def __init__(self, name: str, description: str, parameters: dict[str, Any]) -> None:
        self.name = name
        self.description = description
        self.parameters = parameters


class JsonSchemaFormat:
    """A structured-output request: a named JSON schema, strict when the schema allows it."""

    __slots__ = ("name", "schema", "strict")

    def __init__(self, name: str, schema: dict[str, Any], strict: bool) -> None:
        self.name = name
        self.schema = schema
        self.strict = strict


def tool_specs(options: ChatOptions) -> list[ToolSpec]:
    """The function tools of `options`.

    Raises:
        ChatClientError: A tool has no name or no parameter schema.
    """
    specs: list[ToolSpec] = []
    for tool in options.get("tools") or ():
        parameters = getattr(tool, "parameters", None)
        name = getattr(tool, "name", None)
        if not callable(parameters) or not isinstance(name, str):
            raise ChatClientError(
                f"OpenAI clients send function tools only; {tool!r} has no name and "
                "parameters() (wrap the function with agentry.tool or FunctionTool)"
            )
        schema = cast("dict[str, Any]", parameters())
        specs.append(ToolSpec(name, str(getattr(tool, "description", "") or ""), schema))
    return specs


def tool_choice_of(options: ChatOptions) -> tuple[str, str | None] | None:
    """`options["tool_choice"]` as (mode, required function name), or None when unset.

    Raises:
        ChatClientError: The tool choice is not one agentry knows.
    """
    choice = options.get("tool_choice")
    if choice is None:
        return None
    if isinstance(choice, str):
        mode, name = choice, None
    else:
        mode, name = choice.get("mode", "auto"), choice.get("required_function_name")
    if mode not in ("auto", "none", "required"):
        raise ChatClientError(
            f"tool_choice must be 'auto', 'none', 'required' or "
            f"{{'mode': 'required', 'required_function_name': name}}, not {choice!r}"
        )
    return mode, name


def json_schema_format(response_format: Any) -> JsonSchemaFormat | None:
    """A pydantic model class or a JSON schema dict as a JSON schema response format.

    Raises:
        ChatClientError: `response_format` is neither.
    """
    if response_format is None:
        return None
    if isinstance(response_format, Mapping):
        schema_source = cast("Mapping[str, Any]", response_format)
        name = str(schema_source.get("title") or "response")
    else:
        model_json_schema = getattr(response_format, "model_json_schema", None)
        if not callable(model_json_schema):
            raise ChatClientError(
                "response_format must be a pydantic model class or a JSON schema dict, "
                f"not {response_format!r}"
            )
        schema_source = cast("Mapping[str, Any]", model_json_schema())
        name = str(getattr(response_format, "__name__", "response"))
    schema = copy.deepcopy(dict(schema_source))
    strict = _closed_for_strict_mode(schema)
    return JsonSchemaFormat(_safe_name(name), schema, strict)


def _closed_for_strict_mode(schema: Any) -> bool:
    """Close every object schema (no additional properties) if all of them list every
    property as required, which strict mode demands; report whether they did."""
    objects: list[dict[str, Any]] = []
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            typed = cast("dict[str, Any]", node)
            if typed.get("type") == "object":
                properties = cast("dict[str, Any]", typed.get("properties") or {})
                if set(typed.get("required") or ()) != set(properties):
                    return False
                if typed.get("additionalProperties") not in (None, False):
                    return False
                objects.append(typed)
            pending.extend(typed.values())
        elif isinstance(node, list):
            pending.extend(cast("list[Any]", node))
    for node in objects:
        node["additionalProperties"] = False
    return True


def _safe_name(name: str) -> str:
    """Schema names may hold letters, digits, underscores and dashes only (64 at most)."""
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)
    return cleaned[:64] or "response"


def function_result_text(content: Content) -> str:
    """The text a model reads for a function result."""
    if content.result is None and content.exception is not None:
        return f"Error: {content.exception}"
    return tool_result_to_text(content.result)


def missing_instructions(messages: Sequence[Message], options: ChatOptions) -> str | None:
    """`options["instructions"]` unless a system message already carries them (as the
    agent's prompt does)."""
    instructions = options.get("instructions")
    if not instructions:
        return None
    for message in messages:
        if message.role == "system" and instructions in message.text:
            return None
    return instructions


def file_name(content: Content) -> str:
    """A file name for data content: its `filename` property, or one from the media type."""
    properties = content.additional_properties or {}
    name = properties.get("filename")
    if isinstance(name, str) and name:
        return name
    subtype = (content.media_type or "application/octet-stream").split("/")[-1]
    return f"file.{subtype}"


def usage_details(
    *,
    input_tokens: int | None,
    output_tokens: int | None,
    total_tokens: int | None,
    reasoning_tokens: int | None = None,
    cached_input_tokens: int | None = None,
) -> UsageDetails:
    """Token counts as :class:`UsageDetails` (provider extras under their own keys)."""
    details: dict[str, int] = {}
    for key, value in (
        ("input_token_count", input_tokens),
        ("output_token_count", output_tokens),
        ("total_token_count", total_tokens),
        ("reasoning_token_count", reasoning_tokens),
        ("cached_input_token_count", cached_input_tokens),
    ):
        if value is not None:
            details[key] = value
    return cast("UsageDetails", details)


def iso_time(timestamp: float | None) -> str | None:
    """A Unix timestamp as an ISO 8601 UTC string."""
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()
