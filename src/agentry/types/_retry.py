"""`RetryPolicy`: which failed model calls are tried again, and how long to wait first."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from agentry.errors import (
    ChatClientConnectionError,
    ChatClientError,
    ChatClientTimeoutError,
    StreamInterruptedError,
)

__all__ = ["RetryPolicy", "is_transient_error"]

# Statuses that say "not now" rather than "not this request": a request timeout and a
# rate limit. Every 5xx is transient too; no other 4xx is.
_TRANSIENT_CLIENT_STATUSES = frozenset({408, 429})


def is_transient_error(error: BaseException) -> bool:
    """Whether `error` is a failure that may pass: a rate limit (HTTP 429), a request
    timeout (408), a server error (5xx), a timeout or a connection that failed or dropped
    before the answer began.

    Example:
        >>> is_transient_error(ChatClientError("overloaded", status_code=529))
        True
        >>> is_transient_error(ChatClientError("bad key", status_code=401))
        False
    """
    if not isinstance(error, ChatClientError) or isinstance(error, StreamInterruptedError):
        return False
    if isinstance(error, (ChatClientTimeoutError, ChatClientConnectionError)):
        return True
    status = error.status_code
    return status is not None and (status >= 500 or status in _TRANSIENT_CLIENT_STATUSES)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How a chat client retries a model call that failed for a passing reason.

    A call is retried when it fails with a transient error (see `is_transient_error`):
    rate limits, request timeouts, server errors, timeouts and dropped connections; never
    on another 4xx answer (a bad key, an unknown model, a malformed request). A stream is
    retried only while none of it has reached the caller.

    Before each retry the client waits as long as the provider asked (`Retry-After`,
    `retry-after-ms`), else a random time between 0 and `initial_delay *
    multiplier ** (retry - 1)`, capped at `max_delay` ("full jitter": clients that failed
    together do not come back together). It gives up, raising the last error, after
    `max_attempts` attempts, or when the next wait would end more than `max_elapsed`
    seconds after the first attempt began.

    Attributes:
        max_attempts: Attempts in all, the first included; 1 turns retries off.
        initial_delay: The longest wait before the first retry, in seconds.
        max_delay: The longest computed wait before any retry, in seconds.
        multiplier: How much the longest wait grows with each retry.
        max_elapsed: Seconds after the first attempt began past which no retry starts.

    Raises:
        ValueError: A bound is out of range; the message names it.

    Example:
        >>> patient = RetryPolicy(max_attempts=6, max_elapsed=300.0)
        >>> never = RetryPolicy(max_attempts=1)
    """

    max_attempts: int = 4
    initial_delay: float = 0.5
    max_delay: float = 20.0
    multiplier: float = 2.0
    max_elapsed: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(
                f"RetryPolicy(max_attempts={self.max_attempts}): give 1 or more "
                "(1 means one attempt, no retries)"
            )
        for name in ("initial_delay", "max_delay", "max_elapsed"):
            if getattr(self, name) < 0:
                raise ValueError(f"RetryPolicy({name}={getattr(self, name)}): give 0 or more")
        if self.multiplier < 1:
            raise ValueError(f"RetryPolicy(multiplier={self.multiplier}): give 1 or more")

    @property
    def enabled(self) -> bool:
        """Whether the policy allows any retry."""
        return self.max_attempts > 1

    def delay(
        self, error: BaseException, retry: int, *, draw: Callable[[], float] = random.random
    ) -> float:
        """Seconds to wait before retry number `retry` (1 for the first) after `error`:
        the provider's `Retry-After` where it gave one, else the jittered backoff.

        Example:
            >>> RetryPolicy(initial_delay=1.0).delay(ChatClientError("busy"), 3, draw=lambda: 1.0)
            4.0
        """
        retry_after: float | None = getattr(error, "retry_after", None)
        if retry_after is not None:
            return max(0.0, retry_after)
        ceiling = min(self.max_delay, self.initial_delay * self.multiplier ** (retry - 1))
        return ceiling * draw()
