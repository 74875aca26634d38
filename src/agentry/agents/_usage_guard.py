"""Counting a run's usage against its limits, and its session's.

Usage is a function of the responses the client returns: each response is one model
request, with the tokens its `usage_details` report. A client that retries or falls back
internally returns one response whose usage covers the attempts it reports.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import cast

from agentry.errors import UsageLimitExceededError
from agentry.types import UsageDetails, UsageLimits

__all__ = ["SESSION_USAGE_KEY", "UsageGuard"]

SESSION_USAGE_KEY = "agentry.usage"
"""The key of a session's state under which the usage of its limited runs is kept."""

_UNITS = {
    "requests": "model requests",
    "tool_calls": "tool calls",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
    "total_tokens": "total tokens",
}


class UsageGuard:
    """The usage of one run, checked against the run's limits and the session's.

    With session limits, the session's counts live in `state[SESSION_USAGE_KEY]` (plain
    JSON, so they survive the session's serialization) and grow with every response.
    The checks are written out, without helper calls: they run around every model call.
    """

    __slots__ = ("_counts", "_scopes", "usage")

    def __init__(
        self,
        limits: UsageLimits | None,
        session_limits: UsageLimits | None,
        state: MutableMapping[str, object],
    ) -> None:
        self.usage = {
            "requests": 0,
            "tool_calls": 0,
            "input_tokens": 0,
            "output_tokens": 0,
            "total_tokens": 0,
        }
        # (scope, the limits that are set, the counts they apply to, the tool-call limit)
        scopes: list[tuple[str, tuple[tuple[str, int], ...], dict[str, int], int | None]] = []
        if limits is not None:
            scopes.append(("run", limits.items(), self.usage, limits.tool_calls))
        counts = [self.usage]
        if session_limits is not None:
            session_counts = _session_counts(state)
            scopes.append(
                ("session", session_limits.items(), session_counts, session_limits.tool_calls)
            )
            counts.append(session_counts)
        self._scopes = scopes
        self._counts = counts

    def before_request(self) -> None:
        """Raise if one more model request would break a limit: the request limit, or a
        token limit the tokens already spent have reached."""
        for scope, limits, counts, _ in self._scopes:
            for name, value in limits:
                if counts[name] >= value and name != "tool_calls":
                    raise _exceeded(name, value, scope, counts, asked=1)

    def before_tool_calls(self, count: int) -> None:
        """Raise if running `count` more tool calls would break a tool-call limit."""
        for scope, _, counts, value in self._scopes:
            if value is not None and counts["tool_calls"] + count > value:
                raise _exceeded("tool_calls", value, scope, counts, asked=count)
        for counts in self._counts:
            counts["tool_calls"] += count

    def after_response(self, usage_details: UsageDetails | None) -> None:
        """Count one response; raise if its tokens went past a token limit (request and
        tool-call counts never pass theirs: they are checked before)."""
        input_tokens = output_tokens = total_tokens = 0
        if usage_details:
            input_tokens = usage_details.get("input_token_count") or 0
            output_tokens = usage_details.get("output_token_count") or 0
            total_tokens = usage_details.get("total_token_count") or input_tokens + output_tokens
        for counts in self._counts:
            counts["requests"] += 1
            counts["input_tokens"] += input_tokens
            counts["output_tokens"] += output_tokens
            counts["total_tokens"] += total_tokens
        for scope, limits, counts, _ in self._scopes:
            for name, value in limits:
                if counts[name] > value:
                    raise _exceeded(name, value, scope, counts)


def _session_counts(state: MutableMapping[str, object]) -> dict[str, int]:
    """The session's counts, kept in its state (anything malformed there counts as 0)."""
    stored = state.get(SESSION_USAGE_KEY)
    if type(stored) is dict and stored.keys() == _UNITS.keys():
        return stored  # pyright: ignore[reportUnknownVariableType] # written here, as ints
    fresh = dict.fromkeys(_UNITS, 0)
    if isinstance(stored, Mapping):
        for name, value in cast("Mapping[str, object]", stored).items():
            if name in fresh and type(value) is int:
                fresh[name] = value
    state[SESSION_USAGE_KEY] = fresh
    return fresh


def _exceeded(
    name: str, value: int, scope: str, usage: dict[str, int], *, asked: int = 0
) -> UsageLimitExceededError:
    unit = _UNITS[name]
    keyword = "usage_limits" if scope == "run" else "session_usage_limits"
    if name == "requests":
        what = "one more model request would go past"
    elif name == "tool_calls":
        what = f"{asked} more tool call{'s' if asked > 1 else ''} would go past"
    elif asked:
        what = f"the {usage[name]} {unit} already spent have reached"
    else:
        what = f"the {usage[name]} {unit} spent went past"
    spent = ", ".join(f"{count} {_UNITS[key]}" for key, count in usage.items())
    return UsageLimitExceededError(
        f"{what} the {scope}'s limit of {value} {unit} ({keyword}=UsageLimits({name}={value})); "
        f"{scope} usage so far: {spent}. Raise the limit, or give the task fewer steps",
        limit=name,
        scope=scope,
        value=value,
        usage=usage,
    )
