"""`UsageLimits`: how much one run, or one session, may spend."""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["USAGE_NAMES", "UsageLimits"]

USAGE_NAMES = ("requests", "tool_calls", "input_tokens", "output_tokens", "total_tokens")
"""What usage is counted in, and what a limit can be set on."""


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
        [('requests', 5), ('total_tokens', 20000)]
    """

    requests: int | None = None
    tool_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None

    def __post_init__(self) -> None:
        for field in fields(self):
            value: object = getattr(self, field.name)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(
                    f"UsageLimits({field.name}=...) must be an integer or None, not {value!r}"
                )
            if value < 0:
                raise ValueError(
                    f"UsageLimits({field.name}={value}) is negative; give 0 or more, or None "
                    "for no limit"
                )

    def items(self) -> list[tuple[str, int]]:
        """The limits that are set, as (name, value) pairs."""
        return [(name, value) for name in USAGE_NAMES if (value := getattr(self, name)) is not None]
