"""`HTTPProblem`: a request a server refuses, before any protocol shapes the answer."""

from __future__ import annotations

__all__ = ["HTTPProblem"]


class HTTPProblem(Exception):
    """A request refused with `status`; `message` says what was wrong and what to do.

    Args:
        status: The HTTP status.
        message: For the caller.
        code: A short machine-readable reason, if any.
    """

    def __init__(self, status: int, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
