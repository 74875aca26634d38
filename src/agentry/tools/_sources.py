"""Tool sources: objects in an agent's `tools` that stand for tools loaded at run time."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from agentry.tools._function_tool import FunctionTool

__all__ = ["ToolSource", "expand_tool_sources", "has_tool_sources"]


@runtime_checkable
class ToolSource(Protocol):
    """Stands for tools that are known only at run time, like an MCP server's.

    An agent calls `load_tools` at the start of every run and offers what it returns.
    """

    async def load_tools(self) -> Sequence[FunctionTool]:
        """The tools to offer in this run (connecting or refreshing as needed)."""
        ...


def has_tool_sources(tools: list[Any]) -> bool:
    """Whether one of `tools` is a tool source."""
    for tool in tools:  # noqa: SIM110  # a loop is quicker than any(), and every run asks
        if _loads_tools(type(tool)):  # pyright: ignore[reportUnknownArgumentType]
            return True
    return False


@functools.cache
def _loads_tools(kind: type) -> bool:
    """Whether objects of class `kind` are tool sources (remembered: asking a class for
    an attribute it lacks raises and formats an error inside getattr, on every run)."""
    return getattr(kind, "load_tools", None) is not None


async def expand_tool_sources(tools: list[Any]) -> list[Any]:
    """`tools` with every tool source replaced by the tools it loads."""
    if not has_tool_sources(tools):
        return tools
    expanded: list[object] = []
    for item in tools:
        if isinstance(item, ToolSource):
            expanded.extend(await item.load_tools())
        else:
            expanded.append(item)
    return expanded
