"""`ChatOptions`: the options of one chat request."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias, TypedDict

from agentry.types._keywords import closest_name
from agentry.types._retry import RetryPolicy

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
    """A pydantic model class or a JSON schema dict; the response's `value` is parsed with it
    (an agent run validates its answer and asks again: `Agent(output_retries=...)`)."""
    instructions: str
    metadata: dict[str, Any]
    user: str
    store: bool
    conversation_id: str
    additional_properties: dict[str, Any]
    """Provider-specific request fields, passed through as they are."""
    retry: RetryPolicy
    """How failed model calls are retried, in place of the client's policy (never sent to
    the model; `RetryPolicy(max_attempts=1)` turns retries off)."""


@functools.cache
def _option_names(options_type: type) -> frozenset[str]:
    none: frozenset[str] = frozenset()
    required: frozenset[str] = getattr(options_type, "__required_keys__", none)
    optional: frozenset[str] = getattr(options_type, "__optional_keys__", none)
    return required | optional


def check_chat_options(
    options: Mapping[str, object] | None,
    *,
    where: str = "options",
    options_type: type = ChatOptions,
) -> None:
    """Raise if `options` has a key that is not a chat option.

    Args:
        options: The options to check.
        where: How the error names them.
        options_type: The `ChatOptions` TypedDict of the client that takes them (a client
            with options of its own extends `ChatOptions` and names it in `options_type`).

    Raises:
        TypeError: An unknown key, with the closest chat option and where provider-specific
            fields go.
    """
    names = _option_names(options_type)
    if not options or options.keys() <= names:
        return
    unknown = sorted(set(options) - names)
    problems: list[str] = []
    for name in unknown:
        match = closest_name(name, names)
        problems.append(f"{name!r} (did you mean {match!r}?)" if match else repr(name))
    raise TypeError(
        f"unknown chat option{'s' if len(unknown) > 1 else ''} {', '.join(problems)} in "
        f"{where}; put provider-specific request fields in "
        f"{where}['additional_properties']. Chat options are: {', '.join(sorted(names))}"
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
