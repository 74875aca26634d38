"""`WorkflowRunResult`: the events of a non-streaming run, with accessors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentry.workflows._events import WorkflowEvent, WorkflowRunState

__all__ = ["WorkflowRunResult"]


class WorkflowRunResult(list[WorkflowEvent[Any]]):
    """The events of one `workflow.run(...)` call, in order.

    Attributes:
        restored_outputs: When the call resumed from a checkpoint, the Workflow Output the
            run had yielded before that checkpoint (this call's own outputs are in
            `get_outputs()`).

    Example:
        >>> async def main(workflow):
        ...     result = await workflow.run("input")
        ...     return result.get_outputs()
    """

    def __init__(
        self,
        events: Iterable[WorkflowEvent[Any]] = (),
        *,
        final_state: WorkflowRunState | None = None,
        restored_outputs: Iterable[object] = (),
    ) -> None:
        super().__init__(events)
        self._final_state = final_state
        self.restored_outputs: list[Any] = list(restored_outputs)

    def get_outputs(self) -> list[Any]:
        """The Workflow Output of this call (the data of `"output"` events)."""
        return [event.data for event in self if event.type == "output"]

    def get_intermediate_outputs(self) -> list[Any]:
        """The Intermediate Output of this call (the data of `"intermediate"` events)."""
        return [event.data for event in self if event.type == "intermediate"]

    def get_request_info_events(self) -> list[WorkflowEvent[Any]]:
        """The `"request_info"` events: the requests waiting for answers."""
        return [event for event in self if event.type == "request_info"]

    def get_final_state(self) -> WorkflowRunState:
        """The state the run ended in (such as `IDLE` or `IDLE_WITH_PENDING_REQUESTS`)."""
        if self._final_state is not None:
            return self._final_state
        for event in reversed(self):
            if event.type == "status" and event.state is not None:
                return event.state
        raise RuntimeError("this result has no final state: it holds no status event")

    def status_timeline(self) -> list[WorkflowEvent[Any]]:
        """The `"status"` events, in order."""
        return [event for event in self if event.type == "status"]
