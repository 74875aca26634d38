"""Errors of durable execution."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = ["DurableRunError", "DurableRunFailedError", "DurableStepError"]


class DurableRunError(AgentryError):
    """A durable run was asked for something it cannot do: an unknown run id, an answer
    to a request it does not wait for, a workflow this process does not know, or a
    runtime used before it was launched. The message says what to do; stored runs are
    left as they were."""


class DurableRunFailedError(DurableRunError):
    """A durable run ended with an error (read back from the run's database).

    Attributes:
        error_type: The class name of the error the run raised.
        executor_id: The executor that raised, when an executor did.
    """

    def __init__(self, message: str, *, error_type: str, executor_id: str | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.executor_id = executor_id


class DurableStepError(AgentryError):
    """A handler failed in an earlier attempt of this run, as recorded; its step is not
    run again.

    Attributes:
        error_type: The class name of the error the handler raised.
        executor_id: The executor whose handler raised.
    """

    def __init__(self, message: str, *, error_type: str, executor_id: str | None) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type
        self.executor_id = executor_id
