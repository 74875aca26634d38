"""`ChatOptions`: the options of one chat request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias, TypedDict

from agentry.types._keywords import closest_name

__all__ = ["ChatOptions", "ToolMode", "check_chat_options", "merge_chat_options"]


class ToolMode(TypedDict, total=False):
    """A tool choice; `{"mode": "required", "required_function_name": n}` forces one tool."""

    mode: Literal["auto", "required", "none"]
    required_function_name: str


ToolChoice: TypeAlias = Literal["auto", "required", "none"] | ToolMode


class ChatOptions(TypedDict, total=False):
    """Options of a chat request. Every key is optional; clients ignore what they cannot honour.

    A key that is not one of these raises `TypeError` naming the closest one; fields only one
    provider knows go in `additional_properties`, which clients send as they are.

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


_OPTION_NAMES = frozenset(ChatOptions.__annotations__)


def check_chat_options(options: Mapping[str, object] | None, *, where: str = "options") -> None:
    """Raise if `options` has a key that is not a chat option.

    Raises:
        TypeError: An unknown key, with the closest chat option and where provider-specific
            fields go.
    """
    if not options or options.keys() <= _OPTION_NAMES:
        return
    unknown = sorted(set(options) - _OPTION_NAMES)
    problems: list[str] = []
    for name in unknown:
        match = closest_name(name, _OPTION_NAMES)
        problems.append(f"{name!r} (did you mean {match!r}?)" if match else repr(name))
    raise TypeError(
        f"unknown chat option{'s' if len(unknown) > 1 else ''} {', '.join(problems)} in "
        f"{where}; put provider-specific request fields in "
        f"{where}['additional_properties']. Chat options are: {', '.join(sorted(_OPTION_NAMES))}"
    )


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
