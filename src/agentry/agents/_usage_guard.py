"""Counting a run's usage against its limits, and its session's.

Usage is a function of the responses the client returns: each response is one model
request, with the tokens its `usage_details` report. A client that retries or falls back
internally returns one response whose usage covers the attempts it reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
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

_Breaks = Callable[[str, int, int], bool]
"""Whether a limit is broken: `(name, count, value) -> bool`."""

_UNLIMITED = UsageLimits()


class UsageGuard:
    """The usage of one run, checked against the run's limits and the session's.

    With session limits, the session's counts live in `state[SESSION_USAGE_KEY]` (plain
    JSON, so they survive the session's serialization) and grow with every response.
    Each limit is a cap per unit (a unit without a limit has a cap no count reaches), so
    each check is a few comparisons written out, whatever limits are set; which limit was
    reached is worked out only when one is.

    Args:
        limits: The run's limits, if any.
        session_limits: The session's limits, if any.
        state: The session's state, where the session's counts are kept.

    Example:
        >>> guard = UsageGuard(UsageLimits(requests=1), None, {})
        >>> guard.before_request()
        >>> guard.after_response({"input_token_count": 10, "output_token_count": 2})
        >>> guard.usage["total_tokens"]
        12
        >>> try:
        ...     guard.before_request()
        ... except UsageLimitExceededError as error:
        ...     print(error.scope, error.limit, error.value)
        run requests 1
    """

    __slots__ = (
        "_input_cap",
        "_limits",
        "_output_cap",
        "_requests_cap",
        "_session",
        "_session_input_cap",
        "_session_limits",
        "_session_output_cap",
        "_session_requests_cap",
        "_session_tool_calls_cap",
        "_session_total_cap",
        "_tool_calls_cap",
        "_total_cap",
        "input_tokens",
        "output_tokens",
        "requests",
        "tool_calls",
        "total_tokens",
    )

    def __init__(
        self,
        limits: UsageLimits | None,
        session_limits: UsageLimits | None,
        state: MutableMapping[str, object],
    ) -> None:
        self.requests = self.tool_calls = 0
        self.input_tokens = self.output_tokens = self.total_tokens = 0
        self._limits = limits
        self._session_limits = session_limits
        (
            self._requests_cap,
            self._tool_calls_cap,
            self._input_cap,
            self._output_cap,
            self._total_cap,
        ) = (limits or _UNLIMITED).caps()
        self._session: dict[str, int] | None = None
        if session_limits is not None:
            self._session = _session_counts(state)
            (
                self._session_requests_cap,
                self._session_tool_calls_cap,
                self._session_input_cap,
                self._session_output_cap,
                self._session_total_cap,
            ) = session_limits.caps()

    @property
    def usage(self) -> dict[str, int]:
        """The run's usage so far, by unit."""
        return {
            "requests": self.requests,
            "tool_calls": self.tool_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }

    def before_request(self) -> None:
        """Raise if one more model request would break a limit: the request limit, or a
        token limit the tokens already spent have reached."""
        session = self._session
        if (
            self.requests >= self._requests_cap
            or self.input_tokens >= self._input_cap
            or self.output_tokens >= self._output_cap
            or self.total_tokens >= self._total_cap
        ) or (
            session is not None
            and (
                session["requests"] >= self._session_requests_cap
                or session["input_tokens"] >= self._session_input_cap
                or session["output_tokens"] >= self._session_output_cap
                or session["total_tokens"] >= self._session_total_cap
            )
        ):
            raise self._reached(
                lambda name, count, value: name != "tool_calls" and count >= value, asked=1
            )

    def before_tool_calls(self, count: int) -> None:
        """Raise if running `count` more tool calls would break a tool-call limit."""
        session = self._session
        if self.tool_calls + count > self._tool_calls_cap or (
            session is not None and session["tool_calls"] + count > self._session_tool_calls_cap
        ):
            raise self._reached(
                lambda name, spent, value: name == "tool_calls" and spent + count > value,
                asked=count,
            )
        self.tool_calls += count
        if session is not None:
            session["tool_calls"] += count

    def after_response(self, usage_details: UsageDetails | None) -> None:
        """Count one response; raise if its tokens went past a token limit (request and
        tool-call counts never pass theirs: they are checked before)."""
        input_tokens = output_tokens = total_tokens = 0
        if usage_details:
            input_tokens = usage_details.get("input_token_count") or 0
            output_tokens = usage_details.get("output_token_count") or 0
            total_tokens = usage_details.get("total_token_count") or input_tokens + output_tokens
        self.requests += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.total_tokens += total_tokens
        session = self._session
        if session is not None:
            session["requests"] += 1
            session["input_tokens"] += input_tokens
            session["output_tokens"] += output_tokens
            session["total_tokens"] += total_tokens
        if (
            self.input_tokens > self._input_cap
            or self.output_tokens > self._output_cap
            or self.total_tokens > self._total_cap
        ) or (
            session is not None
            and (
                session["input_tokens"] > self._session_input_cap
                or session["output_tokens"] > self._session_output_cap
                or session["total_tokens"] > self._session_total_cap
            )
        ):
            raise self._reached(lambda name, count, value: count > value)

    def _reached(self, breaks: _Breaks, *, asked: int | None = None) -> UsageLimitExceededError:
        """The error for the first limit, the run's before the session's, that `breaks`."""
        scopes = (
            ("run", self._limits, self.usage),
            ("session", self._session_limits, self._session),
        )
        for scope, limits, counts in scopes:
            if limits is None or counts is None:
                continue
            for name, value in limits.items():
                if breaks(name, counts[name], value):
                    return _exceeded(name, value, scope, counts, asked=asked)
        raise AssertionError("a usage cap was reached, but no limit")  # pragma: no cover


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
    name: str, value: int, scope: str, usage: dict[str, int], *, asked: int | None = None
) -> UsageLimitExceededError:
    unit = _UNITS[name]
    keyword = "usage_limits" if scope == "run" else "session_usage_limits"
    if name == "requests":
        what = "one more model request would go past"
    elif name == "tool_calls":
        count = asked or 0
        what = f"{count} more tool call{'s' if count > 1 else ''} would go past"
    elif asked is None:
        what = f"the {usage[name]} {unit} spent went past"
    else:
        what = f"the {usage[name]} {unit} already spent have reached"
    spent = ", ".join(f"{count} {_UNITS[key]}" for key, count in usage.items())
    return UsageLimitExceededError(
        f"{what} the {scope}'s limit of {value} {unit} ({keyword}=UsageLimits({name}={value})); "
        f"{scope} usage so far: {spent}. Raise the limit, or give the task fewer steps",
        limit=name,
        scope=scope,
        value=value,
        usage=usage,
    )
