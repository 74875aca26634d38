"""`RunState`: everything one workflow run has in flight, and its checkpoint snapshot."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, cast

from agentry.workflows._edge_runner import Inbox, RouteState
from agentry.workflows._errors import WorkflowCheckpointException
from agentry.workflows._events import WorkflowEvent
from agentry.workflows._executor import Executor

__all__ = ["INPUT_SOURCE", "RESPONSE_SOURCE", "PendingRequest", "ResponseDelivery", "RunState"]

INPUT_SOURCE = "__input__"
"""The source id of the message a run starts with."""
RESPONSE_SOURCE = "__response__"
"""The source id of answers to requests."""


class PendingRequest:
    """A request an executor made that waits for the caller's answer."""

    __slots__ = ("data", "request_id", "response_type", "source_executor_id")

    def __init__(
        self, request_id: str, source_executor_id: str, data: object, response_type: object
    ) -> None:
        self.request_id = request_id
        self.source_executor_id = source_executor_id
        self.data = data
        self.response_type = response_type

    def to_event(self) -> WorkflowEvent[Any]:
        """The `request_info` event announcing this request."""
        return WorkflowEvent.request_info(
            request_id=self.request_id,
            source_executor_id=self.source_executor_id,
            data=self.data,
            response_type=self.response_type,
        )


class ResponseDelivery:
    """An answer on its way to the executor that asked."""

    __slots__ = ("request", "response")

    def __init__(self, request: PendingRequest, response: object) -> None:
        self.request = request
        self.response = response


class RunState:
    """The in-flight data of a run, kept between supersteps and between calls.

    Attributes:
        run_id: The run's id.
        iteration: Supersteps completed.
        inbox: Deliveries for the next superstep, by target executor id.
        route: Messages fan-in edges are holding.
        state: The shared state.
        pending_requests: Requests waiting for answers, by id.
        outputs: Workflow Output yielded so far, as (executor id, data).
        last_checkpoint_id: The newest checkpoint saved for this run.
        failed: Whether the run failed (it cannot be continued, only resumed from a checkpoint).
    """

    __slots__ = (
        "failed",
        "inbox",
        "iteration",
        "last_checkpoint_id",
        "outputs",
        "pending_requests",
        "route",
        "run_id",
        "state",
    )

    def __init__(self, run_id: str | None = None) -> None:
        self.run_id = run_id or uuid.uuid4().hex
        self.iteration = 0
        self.inbox: Inbox = {}
        self.route = RouteState()
        self.state: dict[str, Any] = {}
        self.pending_requests: dict[str, PendingRequest] = {}
        self.outputs: list[tuple[str, Any]] = []
        self.last_checkpoint_id: str | None = None
        self.failed = False

    async def snapshot(self, executors: Mapping[str, Executor]) -> dict[str, Any]:
        """The run (with each executor's saved state) as live values, ready to encode."""
        messages: list[dict[str, object]] = []
        for target, deliveries in self.inbox.items():
            for message, source, _ in deliveries:
                if isinstance(message, ResponseDelivery):
                    messages.append(
                        {
                            "target": target,
                            "request_id": message.request.request_id,
                            "request": _request_record(message.request),
                            "response": message.response,
                        }
                    )
                else:
                    sources = source if isinstance(source, str) else list(source)
                    messages.append({"target": target, "source": sources, "data": message})
        return {
            "run_id": self.run_id,
            "iteration": self.iteration,
            "messages": messages,
            "fan_in": {group: dict(buffers) for group, buffers in self.route.fan_in.items()},
            "state": dict(self.state),
            "executor_states": {
                executor_id: await executor.on_checkpoint_save()
                for executor_id, executor in executors.items()
            },
            "pending_requests": [_request_record(r) for r in self.pending_requests.values()],
            "outputs": [{"executor_id": eid, "data": data} for eid, data in self.outputs],
        }

    @classmethod
    async def restore(
        cls, snapshot: Mapping[str, Any], executors: Mapping[str, Executor]
    ) -> RunState:
        """Rebuild a run (and the executors' state) from :meth:`snapshot` output.

        Raises:
            WorkflowCheckpointException: The snapshot names executors this workflow lacks.
        """
        run = cls(run_id=str(snapshot.get("run_id") or "") or None)
        run.iteration = int(snapshot.get("iteration", 0))
        for record in cast("list[dict[str, Any]]", snapshot.get("messages", [])):
            target = _known(record["target"], executors)
            bucket = run.inbox.setdefault(target, [])
            if "request" in record:
                request = _request_from(record["request"], executors)
                bucket.append(
                    (ResponseDelivery(request, record["response"]), RESPONSE_SOURCE, None)
                )
            else:
                source = record["source"]
                bucket.append(
                    (record["data"], source if isinstance(source, str) else tuple(source), None)
                )
        run.route = RouteState(
            {group: dict(buffers) for group, buffers in snapshot.get("fan_in", {}).items()}
        )
        run.state = dict(snapshot.get("state", {}))
        for record in snapshot.get("pending_requests", []):
            request = _request_from(record, executors)
            run.pending_requests[request.request_id] = request
        run.outputs = [(o["executor_id"], o["data"]) for o in snapshot.get("outputs", [])]
        for executor_id, state in cast(
            "dict[str, Any]", snapshot.get("executor_states", {})
        ).items():
            await executors[_known(executor_id, executors)].on_checkpoint_restore(state)
        return run


def _request_record(request: PendingRequest) -> dict[str, Any]:
    return {
        "request_id": request.request_id,
        "source_executor_id": request.source_executor_id,
        "data": request.data,
        "response_type": request.response_type,
    }


def _request_from(
    record: Mapping[str, object], executors: Mapping[str, Executor]
) -> PendingRequest:
    return PendingRequest(
        str(record["request_id"]),
        _known(record["source_executor_id"], executors),
        record["data"],
        record["response_type"],
    )


def _known(executor_id: object, executors: Mapping[str, Executor]) -> str:
    if executor_id not in executors:
        raise WorkflowCheckpointException(
            f"the checkpoint refers to executor {executor_id!r}, which this workflow does not "
            f"have (its executors: {sorted(executors)}); it was saved by another workflow"
        )
    return cast(str, executor_id)
