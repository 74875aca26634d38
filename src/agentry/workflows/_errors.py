"""Errors of the workflow engine: graph validation, running, and checkpoints."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = [
    "EdgeDuplicationError",
    "ExecutorFailedException",
    "GraphConnectivityError",
    "TypeCompatibilityError",
    "WorkflowCheckpointException",
    "WorkflowConvergenceException",
    "WorkflowException",
    "WorkflowRunnerException",
    "WorkflowValidationError",
]


class WorkflowException(AgentryError):
    """Base class of every error the workflow engine raises."""


class WorkflowValidationError(WorkflowException, ValueError):
    """A workflow graph is malformed; raised by `WorkflowBuilder.build()`.

    Attributes:
        validation_type: A short tag of the rule that failed, such as `"duplicate_id"`.
    """

    def __init__(self, message: str, *, validation_type: str = "graph") -> None:
        super().__init__(message)
        self.validation_type = validation_type


class EdgeDuplicationError(WorkflowValidationError):
    """The same source and target are joined by more than one edge."""

    def __init__(self, message: str) -> None:
        super().__init__(message, validation_type="edge_duplication")


class TypeCompatibilityError(WorkflowValidationError):
    """An edge joins a source whose messages the target has no handler for."""

    def __init__(self, message: str) -> None:
        super().__init__(message, validation_type="type_compatibility")


class GraphConnectivityError(WorkflowValidationError):
    """Some executors cannot be reached from the start executor."""

    def __init__(self, message: str) -> None:
        super().__init__(message, validation_type="graph_connectivity")


class WorkflowRunnerException(WorkflowException):
    """A workflow run could not go on."""


class WorkflowConvergenceException(WorkflowRunnerException):
    """A run still had messages to deliver after the maximum number of supersteps."""


class ExecutorFailedException(WorkflowRunnerException):
    """An executor raised; the run failed. The executor's error is the `__cause__`.

    Attributes:
        executor_id: The executor that raised.
    """

    def __init__(self, message: str, *, executor_id: str) -> None:
        super().__init__(message)
        self.executor_id = executor_id


class WorkflowCheckpointException(WorkflowException):
    """A checkpoint could not be saved, found, read or restored."""
