"""`WorkflowEvent`: what a workflow run reports, one class told apart by `event.type`."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, Literal

from typing_extensions import TypeVar

__all__ = [
    "WorkflowErrorDetails",
    "WorkflowEvent",
    "WorkflowEventType",
    "WorkflowRunState",
]

DataT = TypeVar("DataT", default=Any)

WorkflowEventType = Literal[
    "started",
    "status",
    "failed",
    "output",
    "intermediate",
    "request_info",
    "warning",
    "error",
    "superstep_started",
    "superstep_completed",
    "executor_invoked",
    "executor_completed",
    "executor_failed",
]
"""The kinds of events the engine emits. Executors may add events of their own kinds."""


class WorkflowRunState(str, Enum):
    """Where a run stands; reported by `"status"` events and `get_final_state()`."""

    STARTED = "started"
    """The run was created and has not delivered a message yet."""
    IN_PROGRESS = "in_progress"
    """Supersteps are running."""
    IN_PROGRESS_PENDING_REQUESTS = "in_progress_pending_requests"
    """Supersteps are running and some requests wait for answers."""
    IDLE = "idle"
    """Nothing left to do: the run finished."""
    IDLE_WITH_PENDING_REQUESTS = "idle_with_pending_requests"
    """Nothing left to do until the pending requests are answered."""
    FAILED = "failed"
    """An executor raised, or the run could not go on."""
    CANCELLED = "cancelled"
    """The caller stopped the run."""


@dataclass
class WorkflowErrorDetails:
    """What went wrong, in plain data (safe to log or send over the wire).

    Attributes:
        error_type: The exception class name, such as `"ValueError"`.
        message: The exception message.
        traceback: The formatted traceback, when there is one.
        executor_id: The executor that raised, or None for a run-level failure.
        extra: Any other facts about the failure.
    """

    error_type: str
    message: str
    traceback: str | None = None
    executor_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict[str, Any])

    @classmethod
    def from_exception(
        cls, error: BaseException, *, executor_id: str | None = None
    ) -> WorkflowErrorDetails:
        """Details of an exception."""
        return cls(
            error_type=type(error).__name__,
            message=str(error),
            traceback="".join(traceback.format_exception(type(error), error, error.__traceback__)),
            executor_id=executor_id,
        )


class WorkflowEvent(Generic[DataT]):
    """One event of a workflow run.

    Tell events apart by `type` (see :data:`WorkflowEventType`); `data` holds the payload.

    Attributes:
        type: The kind of event.
        data: The payload: the output, the request, the message handled...
        executor_id: The executor the event is about, for executor-level events.
        iteration: The superstep number, for superstep events.
        state: The run state, for `"status"` events.
        details: What went wrong, for `"failed"` and `"executor_failed"` events.
        request_id: The request's id, for `"request_info"` events.
        source_executor_id: The executor that asked, for `"request_info"` events.
        response_type: The type the answer must have, for `"request_info"` events.

    Example:
        >>> event = WorkflowEvent.output("writer", "Hello")
        >>> event.type, event.executor_id, event.data
        ('output', 'writer', 'Hello')
    """

    __slots__ = (
        "data",
        "details",
        "executor_id",
        "iteration",
        "request_id",
        "response_type",
        "source_executor_id",
        "state",
        "type",
    )

    def __init__(
        self,
        type: str,
        data: Any = None,
        *,
        executor_id: str | None = None,
        iteration: int | None = None,
        state: WorkflowRunState | None = None,
        details: WorkflowErrorDetails | None = None,
        request_id: str | None = None,
        source_executor_id: str | None = None,
        response_type: Any = None,
    ) -> None:
        self.type = type
        self.data: DataT = data
        self.executor_id = executor_id
        self.iteration = iteration
        self.state = state
        self.details = details
        self.request_id = request_id
        self.source_executor_id = source_executor_id
        self.response_type = response_type

    # region factories

    @classmethod
    def started(cls) -> WorkflowEvent[None]:
        """The run began."""
        return WorkflowEvent("started")

    @classmethod
    def status(cls, state: WorkflowRunState) -> WorkflowEvent[None]:
        """The run moved to `state`."""
        return WorkflowEvent("status", state=state)

    @classmethod
    def failed(cls, details: WorkflowErrorDetails) -> WorkflowEvent[None]:
        """The run failed."""
        return WorkflowEvent("failed", details=details, executor_id=details.executor_id)

    @classmethod
    def output(cls, executor_id: str, data: object) -> WorkflowEvent[Any]:
        """An executor yielded Workflow Output."""
        return WorkflowEvent("output", data, executor_id=executor_id)

    @classmethod
    def intermediate(cls, executor_id: str, data: object) -> WorkflowEvent[Any]:
        """An executor yielded Intermediate Output (visible progress)."""
        return WorkflowEvent("intermediate", data, executor_id=executor_id)

    @classmethod
    def request_info(
        cls, *, request_id: str, source_executor_id: str, data: object, response_type: object
    ) -> WorkflowEvent[Any]:
        """An executor asks the caller for information."""
        return WorkflowEvent(
            "request_info",
            data,
            request_id=request_id,
            source_executor_id=source_executor_id,
            executor_id=source_executor_id,
            response_type=response_type,
        )

    @classmethod
    def warning(cls, message: str, *, executor_id: str | None = None) -> WorkflowEvent[str]:
        """Something looks wrong but the run goes on."""
        return WorkflowEvent("warning", message, executor_id=executor_id)

    @classmethod
    def superstep_started(cls, iteration: int) -> WorkflowEvent[None]:
        """Superstep `iteration` began."""
        return WorkflowEvent("superstep_started", iteration=iteration)

    @classmethod
    def superstep_completed(cls, iteration: int) -> WorkflowEvent[None]:
        """Superstep `iteration` finished."""
        return WorkflowEvent("superstep_completed", iteration=iteration)

    @classmethod
    def executor_invoked(cls, executor_id: str, data: object = None) -> WorkflowEvent[Any]:
        """An executor is about to handle `data`."""
        return WorkflowEvent("executor_invoked", data, executor_id=executor_id)

    @classmethod
    def executor_completed(cls, executor_id: str, data: object = None) -> WorkflowEvent[Any]:
        """An executor finished handling a message."""
        return WorkflowEvent("executor_completed", data, executor_id=executor_id)

    @classmethod
    def executor_failed(
        cls, executor_id: str, details: WorkflowErrorDetails
    ) -> WorkflowEvent[None]:
        """An executor raised."""
        return WorkflowEvent("executor_failed", executor_id=executor_id, details=details)

    # endregion

    def __repr__(self) -> str:
        fields = [f"type={self.type!r}"]
        for name in ("executor_id", "iteration", "state", "request_id"):
            value = getattr(self, name)
            if value is not None:
                fields.append(f"{name}={value!r}")
        if self.data is not None:
            fields.append(f"data={self.data!r}")
        if self.details is not None:
            fields.append(f"error={self.details.error_type}: {self.details.message}")
        return f"WorkflowEvent({', '.join(fields)})"


_new_event = object.__new__


def quick_event(
    type: str, data: object, executor_id: str | None, iteration: int | None
) -> WorkflowEvent[Any]:
    """An event built without keyword parsing: the runner's hot path (4 events per hop)."""
    event: WorkflowEvent[object] = _new_event(WorkflowEvent)
    event.type = type
    event.data = data
    event.executor_id = executor_id
    event.iteration = iteration
    event.state = None
    event.details = None
    event.request_id = None
    event.source_executor_id = None
    event.response_type = None
    return event
