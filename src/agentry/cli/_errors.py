"""The command line's error: a message for the user and an exit status."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = ["CliError"]


class CliError(AgentryError):
    """A command could not do what was asked; the message says why and what to do.

    Attributes:
        exit_code: The process exit status (2 for bad usage, 1 otherwise).
    """

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code
