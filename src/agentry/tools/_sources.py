"""Tool sources: objects in an agent's `tools` that stand for tools loaded at run time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from agentry.tools._function_tool import FunctionTool

__all__ = ["ToolSource", "expand_tool_sources"]


@runtime_checkable
class ToolSource(Protocol):
    """Stands for tools that are known only at run time, like an MCP server's.

    An agent calls `load_tools` at the start of every run and offers what it returns.
    """

    async def load_tools(self) -> Sequence[FunctionTool]:
        """The tools to offer in this run (connecting or refreshing as needed)."""
        ...


async def expand_tool_sources(tools: list[Any]) -> list[Any]:
    """`tools` with every tool source replaced by the tools it loads."""
    for tool in tools:  # a loop, not any(): this runs at the start of every agent run
        if getattr(type(tool), "load_tools", None) is not None:  # pyright: ignore[reportUnknownArgumentType]
            break
    else:
        return tools
    expanded: list[object] = []
    for item in tools:
        if isinstance(item, ToolSource):
            expanded.extend(await item.load_tools())
        else:
            expanded.append(item)
    return expanded
