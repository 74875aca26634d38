"""Which arguments of a tool call reach an MCP server: an allowlist, never a guess."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias, cast

__all__ = [
    "MCP_FRAMEWORK_DENYLIST",
    "AdditionalArgumentNames",
    "allowed_argument_names",
    "checked_extras",
    "prepare_call_kwargs",
]

AdditionalArgumentNames: TypeAlias = str | Sequence[str] | Mapping[str, str | Sequence[str]]
"""Extra argument names to forward: for every tool, or by remote tool name (`"*"`: all).
A bare string is one name (`"tenant"` means `["tenant"]`)."""

ALL_TOOLS = "*"

MCP_FRAMEWORK_DENYLIST = frozenset(
    {
        "chat_options",
        "conversation_id",
        "function_invocation_kwargs",
        "kwargs",
        "options",
        "response_format",
        "session",
        "thread",
        "tool_choice",
        "tools",
    }
)
"""Names of agent-run arguments and runtime values. Dropped even when a server declares
them, unless the user names them in `additional_tool_argument_names`, so a value meant for
the agentry side never reaches a server by a name clash."""

META_ARGUMENT = "_meta"


def allowed_argument_names(
    tool_name: str,
    input_schema: Mapping[str, object],
    additional: AdditionalArgumentNames | None,
) -> frozenset[str]:
    """The names a call of `tool_name` may forward: the properties its schema declares
    (less the framework denylist) and the configured extras."""
    properties: object = input_schema.get("properties")
    declared: frozenset[str] = (
        frozenset(cast("Mapping[str, object]", properties))
        if isinstance(properties, Mapping)
        else frozenset()
    )
    extras = _extras_for(tool_name, additional)
    return (declared - MCP_FRAMEWORK_DENYLIST) | extras


def prepare_call_kwargs(
    allowed: frozenset[str],
    model_arguments: Mapping[str, object],
    runtime_arguments: Mapping[str, object],
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The arguments to send and the request metadata of one `tools/call`.

    Values besides the model's come only from the agent run's `function_invocation_kwargs`
    (given here as `runtime_arguments`, or already below the model's arguments, as a
    function tool taking `**kwargs` receives them). The model's arguments win over runtime
    values of the same name; `_meta` (from either) becomes the request's metadata and is never an
    argument; every other name outside `allowed` is dropped.
    """
    merged = {**runtime_arguments, **model_arguments}
    meta: object = merged.pop(META_ARGUMENT, None)
    arguments = {name: value for name, value in merged.items() if name in allowed}
    if meta is not None and not isinstance(meta, Mapping):
        raise TypeError(f"'_meta' must be an object, got {type(meta).__name__}")
    return arguments, dict(cast("Mapping[str, object]", meta)) if meta is not None else None


def _extras_for(tool_name: str, additional: AdditionalArgumentNames | None) -> frozenset[str]:
    if additional is None:
        return frozenset()
    if isinstance(additional, Mapping):
        return frozenset(_names(additional.get(ALL_TOOLS, ()))) | frozenset(
            _names(additional.get(tool_name, ()))
        )
    return frozenset(_names(additional))


def checked_extras(
    extras: AdditionalArgumentNames | None,
) -> AdditionalArgumentNames | None:
    """`additional_tool_argument_names` as given, checked and copied into tuples; a bare
    string is one name, never its characters.

    Raises:
        TypeError: Something other than names where names belong.
    """
    if extras is None:
        return None
    if isinstance(extras, Mapping):
        return {
            _checked_name(tool_name, "a remote tool name"): _names(names, tool_name)
            for tool_name, names in extras.items()
        }
    return _names(extras)


def _names(names: str | Sequence[str], tool_name: str | None = None) -> tuple[str, ...]:
    where = "additional_tool_argument_names" + (f"[{tool_name!r}]" if tool_name else "")
    if isinstance(names, str):
        return (names,)
    if not isinstance(names, Iterable):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"{where} must be an argument name or a list of names, not {type(names).__name__}"
        )
    return tuple(_checked_name(name, f"an argument name in {where}") for name in names)


def _checked_name(name: object, what: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a string, not {type(name).__name__} ({name!r})")
    return name
