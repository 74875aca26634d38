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

_TOKEN_KEYS = (
    ("input_tokens", "input_token_count"),
    ("output_tokens", "output_token_count"),
)
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
    """

    __slots__ = ("_run_limits", "_session", "_session_limits", "usage")

    def __init__(
        self,
        limits: UsageLimits | None,
        session_limits: UsageLimits | None,
        state: MutableMapping[str, object],
    ) -> None:
        self.usage = dict.fromkeys(_UNITS, 0)
        self._run_limits = limits.items() if limits is not None else []
        self._session_limits = session_limits.items() if session_limits is not None else []
        self._session: dict[str, int] | None = None
        if self._session_limits:
            stored = state.get(SESSION_USAGE_KEY)
            counts = dict.fromkeys(_UNITS, 0)
            if isinstance(stored, Mapping):
                for name, value in cast("Mapping[str, object]", stored).items():
                    if name in counts and isinstance(value, int):
                        counts[name] = value
            state[SESSION_USAGE_KEY] = self._session = counts

    def before_request(self) -> None:
        """Raise if one more model request would break a limit: the request limit, or a
        token limit the tokens already spent have reached."""
        for name, value in self._run_limits:
            self._check_before(name, value, self.usage, "run")
        if self._session is not None:
            for name, value in self._session_limits:
                self._check_before(name, value, self._session, "session")

    def before_tool_calls(self, count: int) -> None:
        """Raise if running `count` more tool calls would break a tool-call limit."""
        for scope, limits, usage in self._scopes():
            for name, value in limits:
                if name == "tool_calls" and usage[name] + count > value:
                    raise _exceeded(name, value, scope, usage, asked=count)
        self._add("tool_calls", count)

    def after_response(self, usage_details: UsageDetails | None) -> None:
        """Count one response; raise if its tokens went past a token limit."""
        self._add("requests", 1)
        if not usage_details:
            return
        spent = 0
        for name, key in _TOKEN_KEYS:
            tokens = usage_details.get(key) or 0
            self._add(name, tokens)
            spent += tokens
        self._add("total_tokens", usage_details.get("total_token_count") or spent)
        for scope, limits, usage in self._scopes():
            for name, value in limits:
                if name.endswith("_tokens") and usage[name] > value:
                    raise _exceeded(name, value, scope, usage)

    def _check_before(self, name: str, value: int, usage: dict[str, int], scope: str) -> None:
        if name == "requests":
            if usage[name] + 1 > value:
                raise _exceeded(name, value, scope, usage, asked=1)
        elif name != "tool_calls" and usage[name] >= value:
            raise _exceeded(name, value, scope, usage, asked=1)

    def _add(self, name: str, amount: int) -> None:
        self.usage[name] += amount
        if self._session is not None:
            self._session[name] += amount

    def _scopes(self) -> list[tuple[str, list[tuple[str, int]], dict[str, int]]]:
        scopes = [("run", self._run_limits, self.usage)]
        if self._session is not None:
            scopes.append(("session", self._session_limits, self._session))
        return scopes


def _exceeded(
    name: str, value: int, scope: str, usage: dict[str, int], *, asked: int = 0
) -> UsageLimitExceededError:
    unit = _UNITS[name]
    keyword = "usage_limits" if scope == "run" else "session_usage_limits"
    if asked and name in ("requests", "tool_calls"):
        what = (
            f"{asked} more {unit} would go past"
            if name == "tool_calls"
            else ("one more model request would go past")
        )
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
