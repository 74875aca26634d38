"""`UsageLimits`: how much one run, or one session, may spend."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

__all__ = ["USAGE_NAMES", "UsageLimits"]

USAGE_NAMES = ("requests", "tool_calls", "input_tokens", "output_tokens", "total_tokens")
"""What usage is counted in, and what a limit can be set on."""

_NO_LIMIT = sys.maxsize
"""The cap of a usage without a limit: no count reaches it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageLimits:
    """Limits on what a run (or a session) may spend; `None` means no limit.

    A run stops with `UsageLimitExceededError` before a model call or a batch of tool calls
    that a limit forbids, and after a model call whose tokens went past a token limit.

    Args:
        requests: Model calls (each output retry is one more).
        tool_calls: Tool calls run.
        input_tokens: Tokens sent to the model, summed over the calls.
        output_tokens: Tokens the model produced, summed over the calls.
        total_tokens: Input and output tokens together.

    Raises:
        TypeError: A limit is not an integer.
        ValueError: A limit is negative.

    Example:
        >>> UsageLimits(requests=5, total_tokens=20_000).items()
        (('requests', 5), ('total_tokens', 20000))
    """

    requests: int | None = None
    tool_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    _set: tuple[tuple[str, int], ...] = field(init=False, repr=False, compare=False, default=())
    caps: tuple[int, int, int, int, int] = field(
        init=False, repr=False, compare=False, default=(0, 0, 0, 0, 0)
    )
    """Each limit in `USAGE_NAMES` order, `sys.maxsize` where none is set: what a count is
    compared with, so a check is the same few comparisons whatever limits are set."""
    forbids_requests: bool = field(init=False, repr=False, compare=False, default=False)
    """Whether a limit of 0 requests or tokens leaves no model request to make."""

    def __post_init__(self) -> None:
        limits: list[tuple[str, int]] = []
        for name in USAGE_NAMES:
            value: object = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(
                    f"UsageLimits({name}=...) must be an integer or None, not {value!r}"
                )
            if value < 0:
                raise ValueError(
                    f"UsageLimits({name}={value}) is negative; give 0 or more, or None for no limit"
                )
            limits.append((name, value))
        # Worked out once: a run's checks go through the limits that are set, and no others.
        object.__setattr__(self, "_set", tuple(limits))
        set_limits = dict(limits)
        caps = [set_limits.get(name, _NO_LIMIT) for name in USAGE_NAMES]
        object.__setattr__(self, "caps", tuple(caps))
        requests_cap, _, input_cap, output_cap, total_cap = caps
        forbids = not (requests_cap and input_cap and output_cap and total_cap)
        object.__setattr__(self, "forbids_requests", forbids)

    def items(self) -> tuple[tuple[str, int], ...]:
        """The limits that are set, as (name, value) pairs."""
        return self._set
