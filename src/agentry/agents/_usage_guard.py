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

__all__ = ["SESSION_USAGE_KEY", "UsageCounter", "UsageGuard"]

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

_NO_CAPS = UsageLimits().caps
"""The caps of no limits: no count reaches them."""


def _reached_before_request(name: str, count: int, value: int) -> bool:
    return name != "tool_calls" and count >= value


def _passed(name: str, count: int, value: int) -> bool:
    return count > value


_REACHED_BEFORE_REQUEST: _Breaks = _reached_before_request
_PASSED: _Breaks = _passed


class UsageCounter:
    """Usage counted against a run's limits and its session's.

    A run counts its own usage as one (`_Run` is a `UsageCounter`: a separate object made
    for every run cost about as much as all of its checks); `UsageGuard` is one standing
    alone. Nothing is counted until `start_counting` is called.

    With session limits, the session's counts live in `state[SESSION_USAGE_KEY]` (plain
    JSON, so they survive the session's serialization) and grow with every response. They
    are taken as stored; if they are damaged, the first check that reads them (of a request
    or of tool calls, which come before any response is counted) mends them.
    Each limit is a cap per unit (a unit without a limit has a cap no count reaches), so
    each check is a few comparisons written out, whatever limits are set; which limit was
    reached is worked out only when one is. The run's own caps are compared once per
    response: one that is reached refuses the next request.
    """

    checks_requests: bool
    """Whether `before_request` can refuse the next request (when it cannot, it need not be
    called): a run limit has been reached, or the session's counts are to be read."""
    requests: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    total_tokens: int
    _caps: tuple[int, int, int, int, int]
    _limits: UsageLimits | None
    _refused: bool
    _session: dict[str, int] | None
    _session_caps: tuple[int, int, int, int, int]
    _session_limits: UsageLimits | None
    _state: MutableMapping[str, object]

    __slots__ = (
        "_caps",
        "_limits",
        "_refused",
        "_session",
        "_session_caps",
        "_session_limits",
        "_state",
        "checks_requests",
        "input_tokens",
        "output_tokens",
        "requests",
        "tool_calls",
        "total_tokens",
    )

    def start_counting(
        self,
        limits: UsageLimits | None,
        session_limits: UsageLimits | None,
        state: MutableMapping[str, object],
    ) -> None:
        """Count from nothing against `limits`, and `session_limits` with the session's
        counts kept in `state`."""
        self.requests = self.tool_calls = 0
        self.input_tokens = self.output_tokens = self.total_tokens = 0
        self._limits = limits
        if limits is None:
            self._caps = _NO_CAPS
            self._refused = False
        else:
            self._caps = limits.caps
            self._refused = limits.forbids_requests
        self._session_limits = session_limits
        self._session = None
        if session_limits is not None:
            self._state = state
            counts = state.get(SESSION_USAGE_KEY)
            if counts is None:  # the session's first run with limits
                counts = state[SESSION_USAGE_KEY] = dict.fromkeys(_UNITS, 0)
            # Taken as it is: damaged counts fail the first check, which mends them.
            self._session = counts  # pyright: ignore[reportAttributeAccessIssue]
            self._session_caps = session_limits.caps
        self.checks_requests = self._refused or session_limits is not None

    @property
    def spent(self) -> dict[str, int]:
        """The usage counted so far, by unit."""
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
        if self._refused:
            raise self._reached(_REACHED_BEFORE_REQUEST, asked=1)
        session = self._session
        if session is not None:
            requests_cap, _, input_cap, output_cap, total_cap = self._session_caps
            try:
                reached = (
                    session["requests"] >= requests_cap
                    or session["input_tokens"] >= input_cap
                    or session["output_tokens"] >= output_cap
                    or session["total_tokens"] >= total_cap
                )
            except (KeyError, TypeError):  # the stored counts are damaged
                self._session = _session_counts(self._state)
                reached = False
                self.before_request()
            if reached:
                raise self._reached(_REACHED_BEFORE_REQUEST, asked=1)

    def before_tool_calls(self, count: int) -> None:
        """Raise if running `count` more tool calls would break a tool-call limit."""
        session = self._session
        try:
            session_past = (
                session is not None and session["tool_calls"] + count > self._session_caps[1]
            )
        except (KeyError, TypeError):  # the stored counts are damaged
            self._session = _session_counts(self._state)
            self.before_tool_calls(count)
            return
        if self.tool_calls + count > self._caps[1] or session_past:
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
        usage: UsageDetails = usage_details  # pyright: ignore[reportAssignmentType] # None fails below
        try:  # what providers report: the three counts, as whole numbers
            spent_input = usage["input_token_count"]  # pyright: ignore[reportTypedDictNotRequiredAccess]
            spent_output = usage["output_token_count"]  # pyright: ignore[reportTypedDictNotRequiredAccess]
            spent_total = usage["total_token_count"] or spent_input + spent_output  # pyright: ignore[reportTypedDictNotRequiredAccess]
            input_tokens = self.input_tokens + spent_input
            output_tokens = self.output_tokens + spent_output
            total_tokens = self.total_tokens + spent_total
        except (KeyError, TypeError):  # no usage, or part of it
            self.after_response(_all_counts(usage_details))
            return
        self.requests = requests = self.requests + 1
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.total_tokens = total_tokens
        passed = False
        requests_cap, _, input_cap, output_cap, total_cap = self._caps
        if (
            requests >= requests_cap
            or input_tokens >= input_cap
            or output_tokens >= output_cap
            or total_tokens >= total_cap
        ):  # a run limit is reached: it refuses the next request, if a count is not past it
            self._refused = self.checks_requests = True
            passed = (
                input_tokens > input_cap or output_tokens > output_cap or total_tokens > total_cap
            )
        session = self._session
        if session is not None:
            session["requests"] += 1
            session["input_tokens"] = input_tokens = session["input_tokens"] + spent_input
            session["output_tokens"] = output_tokens = session["output_tokens"] + spent_output
            session["total_tokens"] = total_tokens = session["total_tokens"] + spent_total
            _, _, input_cap, output_cap, total_cap = self._session_caps
            passed = (
                passed
                or input_tokens > input_cap
                or output_tokens > output_cap
                or total_tokens > total_cap
            )
        if passed:
            raise self._reached(_PASSED)

    def _reached(self, breaks: _Breaks, *, asked: int | None = None) -> UsageLimitExceededError:
        """The error for the first limit, the run's before the session's, that `breaks`."""
        scopes = (
            ("run", self._limits, self.spent),
            ("session", self._session_limits, self._session),
        )
        for scope, limits, counts in scopes:
            if limits is None or counts is None:
                continue
            for name, value in limits.items():
                if breaks(name, counts[name], value):
                    return _exceeded(name, value, scope, counts, asked=asked)
        raise AssertionError("a usage cap was reached, but no limit")  # pragma: no cover


def _all_counts(usage_details: UsageDetails | None) -> UsageDetails:
    """The input, output and total tokens a response reports, what it leaves out as 0 (and
    a total it leaves out as its input and output together)."""
    usage = usage_details or UsageDetails()
    input_tokens = usage.get("input_token_count") or 0
    output_tokens = usage.get("output_token_count") or 0
    return UsageDetails(
        input_token_count=input_tokens,
        output_token_count=output_tokens,
        total_token_count=usage.get("total_token_count") or input_tokens + output_tokens,
    )


def _session_counts(state: MutableMapping[str, object]) -> dict[str, int]:
    """The session's counts, kept in its state (anything malformed there counts as 0)."""
    stored = state.get(SESSION_USAGE_KEY)
    if type(stored) is dict and stored.keys() == _UNITS.keys():
        counts = cast("dict[str, object]", stored)
        if all(type(count) is int for count in counts.values()):
            return cast("dict[str, int]", counts)
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


class UsageGuard(UsageCounter):
    """A usage counter of its own, for usage that is not a `_Run`'s (a durable run's steps).

    Args:
        limits: The run's limits, if any.
        session_limits: The session's limits, if any.
        state: The session's state, where the session's counts are kept.

    Example:
        >>> guard = UsageGuard(UsageLimits(requests=1), None, {})
        >>> guard.before_request()
        >>> guard.after_response({"input_token_count": 10, "output_token_count": 2})
        >>> guard.spent["total_tokens"]
        12
        >>> try:
        ...     guard.before_request()
        ... except UsageLimitExceededError as error:
        ...     print(error.scope, error.limit, error.value)
        run requests 1
    """

    __slots__ = ()

    def __init__(
        self,
        limits: UsageLimits | None,
        session_limits: UsageLimits | None,
        state: MutableMapping[str, object],
    ) -> None:
        self.start_counting(limits, session_limits, state)
