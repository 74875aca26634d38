"""Errors of the A2A integration."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = ["A2AConfigError", "RemoteAgentError"]


class RemoteAgentError(AgentryError):
    """A remote A2A agent failed, refused, or canceled a task, or could not be reached.

    Attributes:
        state: The task's final state (such as `"failed"`), when the task got one.
        task_id: The remote task's id, when there was a task.
    """

    def __init__(self, message: str, *, state: str | None = None, task_id: str | None = None):
        super().__init__(message)
        self.state = state
        self.task_id = task_id


class A2AConfigError(AgentryError, ValueError):
    """The A2A integration was set up with arguments that do not fit together."""
