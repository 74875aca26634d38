"""`ToolPolicy`: which tools may run, checked on every call."""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from agentry.errors import ContentError
from agentry.middleware import CallNext, FunctionInvocationContext, FunctionMiddleware
from agentry.types import Content

__all__ = ["ApprovalPredicate", "ToolPolicy"]

ApprovalPredicate: TypeAlias = Callable[[str, Mapping[str, Any]], bool]
"""(tool name, arguments) -> whether the call must wait for a person's approval."""

logger = logging.getLogger("agentry.security")


class ToolPolicy(FunctionMiddleware):
    """Function middleware that lets a tool call run only if the policy allows its tool.

    Names may be globs (`file_access_*`). A tool matching `deny` never runs; with `allow`
    given, only matching tools run. Deny wins over allow. A refused call does not stop the
    run: the model gets an error result saying the tool is not allowed, and the refusal
    is logged at WARNING on the `agentry.security` logger, without the arguments.

    `require_approval` holds matching calls for a person's approval, even of tools that do
    not ask for it themselves: the run pauses with a `function_approval_request`, exactly
    as for a tool declared with `approval_mode="always_require"`.

    Args:
        allow: The tools that may run (default: all not denied).
        deny: The tools that may never run.
        require_approval: Tool names (globs) whose calls need approval, or a predicate
            over a call's tool name and arguments.

    Example:
        >>> policy = ToolPolicy(allow=["file_access_*", "get_weather"], deny=["*_delete_*"])
        >>> policy.allows("file_access_read_file"), policy.allows("file_access_delete_file")
        (True, False)
    """

    def __init__(
        self,
        *,
        allow: Sequence[str] | None = None,
        deny: Sequence[str] = (),
        require_approval: Sequence[str] | ApprovalPredicate = (),
    ) -> None:
        approval_names = () if callable(require_approval) else require_approval
        for patterns in (allow or (), deny, approval_names):
            if isinstance(patterns, str):
                raise TypeError(
                    f"allow and deny take a list of tool names, not the string {patterns!r}"
                )
        self.allow = tuple(allow) if allow is not None else None
        self.deny = tuple(deny)
        self.require_approval = (
            require_approval if callable(require_approval) else tuple(require_approval)
        )

    def allows(self, tool_name: str) -> bool:
        """Whether calls of `tool_name` may run."""
        if _matches(tool_name, self.deny):
            return False
        return self.allow is None or _matches(tool_name, self.allow)

    def requires_approval(self, call: Content) -> bool:
        """Whether this call must wait for a person's approval (the agent asks this)."""
        rule = self.require_approval
        if not callable(rule):
            return _matches(call.name or "", rule)
        try:
            arguments = call.parse_arguments() or {}
        except ContentError:
            return True  # arguments it cannot read: a person decides
        return bool(rule(call.name or "", arguments))

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
