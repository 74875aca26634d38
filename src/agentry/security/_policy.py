"""`ToolPolicy`: which tools may run, checked on every call."""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Sequence

from agentry.middleware import FunctionInvocationContext, FunctionMiddleware
from agentry.middleware._base import CallNext

__all__ = ["ToolPolicy"]

logger = logging.getLogger("agentry.security")


class ToolPolicy(FunctionMiddleware):
    """Function middleware that lets a tool call run only if the policy allows its tool.

    Names may be globs (`file_access_*`). A tool matching `deny` never runs; with `allow`
    given, only matching tools run. Deny wins over allow. A refused call does not stop the
    run: the model gets an error result saying the tool is not allowed, and the refusal
    is logged at WARNING on the `agentry.security` logger, without the arguments.

    Args:
        allow: The tools that may run (default: all not denied).
        deny: The tools that may never run.

    Example:
        >>> policy = ToolPolicy(allow=["file_access_*", "get_weather"], deny=["*_delete_*"])
        >>> policy.allows("file_access_read_file"), policy.allows("file_access_delete_file")
        (True, False)
    """

    def __init__(self, *, allow: Sequence[str] | None = None, deny: Sequence[str] = ()) -> None:
        for patterns in (allow or (), deny):
            if isinstance(patterns, str):
                raise TypeError(
                    f"allow and deny take a list of tool names, not the string {patterns!r}"
                )
        self.allow = tuple(allow) if allow is not None else None
        self.deny = tuple(deny)

    def allows(self, tool_name: str) -> bool:
        """Whether calls of `tool_name` may run."""
        if _matches(tool_name, self.deny):
            return False
        return self.allow is None or _matches(tool_name, self.allow)

    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        """Run the call if the policy allows its tool; otherwise answer with the refusal."""
        name = context.function.name
        if self.allows(name):
            await call_next()
            return
        logger.warning("tool policy refused a call of %r", name)
        context.result = f"Error: the tool {name!r} is not allowed here; do without it."


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
