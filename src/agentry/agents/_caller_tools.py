"""Calls of declaration-only tools, which the run's caller makes, not the agent."""

from __future__ import annotations

from collections.abc import Sequence

from agentry.tools import FunctionTool
from agentry.types import Content

__all__ = ["calls_for_the_caller"]


def calls_for_the_caller(calls: list[Content], tools: Sequence[object]) -> list[Content]:
    """The calls in `calls` of declaration-only tools (a `FunctionTool` without a function):
    the run ends with them unanswered, for the caller to run and answer in the next run."""
    declared = {t.name for t in tools if isinstance(t, FunctionTool) and t.declaration_only}
    if not declared:
        return []
    return [call for call in calls if call.name in declared]
