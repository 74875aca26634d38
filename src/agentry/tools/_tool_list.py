"""What may stand in an agent's `tools`, checked when the list is given."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from agentry.errors import ToolNameConflictError
from agentry.tools._function_tool import FunctionTool

__all__ = ["check_unique_tool_names", "normalize_tools"]

_WHAT_A_TOOL_IS = (
    "a tool is a function (sync or async), a FunctionTool (@tool), a tool source such as an "
    "MCP tool (MCPStdioTool, MCPStreamableHTTPTool...), a provider's tool declaration (a "
    "dict), or an agent's as_tool()"
)


def normalize_tools(tools: Sequence[object] | object | None) -> list[Any]:
    """Tools as a list, with functions wrapped in `FunctionTool`, checked.

    Raises:
        TypeError: An item is not a tool; the message names it and what a tool may be.
        ValueError: Two tools have the same name.
    """
    if tools is None:
        return []
    items = cast(Sequence[object], tools if isinstance(tools, (list, tuple)) else [tools])
    normalized = [_as_tool(item) for item in items]
    if len(normalized) > 1:
        check_unique_tool_names(normalized)
    return normalized


def check_unique_tool_names(tools: Sequence[object]) -> None:
    """Raise if two of `tools` have the same name (the model could not tell them apart).

    Raises:
        ToolNameConflictError: Two tools share a name; the message names both.
    """
    seen: dict[str, object] = {}
    for item in tools:
        name = tool_name(item)
        if name is None:
            continue
        first = seen.get(name)
        if first is None:
            seen[name] = item
            continue
        clash = (
            f"{_describe(item)} is given twice"
            if first is item
            else f"{_describe(first)} and {_describe(item)} are both named {name!r}"
        )
        raise ToolNameConflictError(
            f"tool names must be unique, or the model cannot tell which one it calls: {clash}; "
            "give each tool once, and rename one of two different tools "
            "(FunctionTool(func=..., name=...), or tool_name_prefix= for an MCP server)"
        )


def tool_name(item: object) -> str | None:
    """The name the model calls a tool by; None for items without one (tool sources)."""
    if isinstance(item, Mapping):
        declaration = cast(Mapping[str, object], item)
        function: object = declaration.get("function")
        name: object = (
            cast(Mapping[str, object], function).get("name")
            if isinstance(function, Mapping)
            else declaration.get("name")
        )
    else:
        name = getattr(item, "name", None)
    return name if isinstance(name, str) else None


def _as_tool(item: object) -> object:
    if isinstance(item, FunctionTool):
        return item
    if isinstance(item, type):
        raise TypeError(
            f"{item.__name__} is a class, not a tool: pass a function or an instance; "
            f"{_WHAT_A_TOOL_IS}"
        )
    if callable(getattr(item, "as_tool", None)) and callable(getattr(item, "run", None)):
        raise TypeError(
            f"{item!r} is an agent, not a tool: pass its as_tool() to let the model call it"
        )
    if callable(getattr(type(item), "load_tools", None)):
        return item  # a tool source
    if isinstance(item, Mapping):
        return cast(Mapping[str, object], item)  # a provider's tool declaration
    if callable(item):
        if not isinstance(getattr(item, "__name__", None), str):
            raise TypeError(
                f"{item!r} is callable but has no __name__ to call it by: wrap it as "
                "FunctionTool(func=..., name=..., description=...)"
            )
        return FunctionTool(func=item)
    if isinstance(getattr(item, "name", None), str) and isinstance(
        getattr(item, "description", None), str
    ):
        return item  # another ToolProtocol object, for a chat client that knows it
    raise TypeError(f"{item!r} ({type(item).__name__}) is not a tool; {_WHAT_A_TOOL_IS}")


def _describe(item: object) -> str:
    name = tool_name(item)
    properties: object = getattr(item, "additional_properties", None)
    if isinstance(properties, Mapping):
        server: object = cast(Mapping[str, object], properties).get("mcp_server")
        if server is not None:
            return f"tool {name!r} of MCP server {server!r}"
    func: object = getattr(item, "func", None)
    qualname: object = getattr(func, "__qualname__", None)
    if isinstance(qualname, str):
        return f"tool {name!r} (function {qualname})"
    return f"tool {name!r} ({type(item).__name__})"
