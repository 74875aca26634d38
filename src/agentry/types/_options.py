"""`ChatOptions`: the options of one chat request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias, TypedDict

__all__ = ["ChatOptions", "ToolMode", "merge_chat_options"]


class ToolMode(TypedDict, total=False):
    """A tool choice; `{"mode": "required", "required_function_name": n}` forces one tool."""

    mode: Literal["auto", "required", "none"]
    required_function_name: str


ToolChoice: TypeAlias = Literal["auto", "required", "none"] | ToolMode


class ChatOptions(TypedDict, total=False):
    """Options of a chat request. Every key is optional; clients ignore what they cannot honour.

    Example:
        >>> options: ChatOptions = {"temperature": 0.2, "max_tokens": 200}
    """

    model: str
    temperature: float
    top_p: float
    max_tokens: int
    stop: str | Sequence[str]
    seed: int
    frequency_penalty: float
    presence_penalty: float
    logit_bias: dict[str | int, float]
    tools: Sequence[Any]
    tool_choice: ToolChoice
    allow_multiple_tool_calls: bool
    response_format: Any
    """A pydantic model class or a JSON schema dict; the response's `value` is parsed with it."""
    instructions: str
    metadata: dict[str, Any]
    user: str
    store: bool
    conversation_id: str
    additional_properties: dict[str, Any]
    """Provider-specific request fields, passed through as they are."""


def merge_chat_options(
    base: Mapping[str, Any] | None, override: Mapping[str, Any] | None
) -> ChatOptions:
    """`override` on top of `base`; tools are concatenated, instructions joined by a newline."""
    if not base:
        return ChatOptions(**override) if override else ChatOptions()  # type: ignore[typeddict-item]
    merged: dict[str, Any] = dict(base)
    if override:
        for key, value in override.items():
            if value is None:
                continue
            if key == "tools" and merged.get("tools"):
                merged["tools"] = [*merged["tools"], *value]
            elif key == "instructions" and merged.get("instructions"):
                merged["instructions"] = f"{merged['instructions']}\n{value}"
            else:
                merged[key] = value
    return merged  # type: ignore[return-value]
