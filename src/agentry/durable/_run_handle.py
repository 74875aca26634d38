"""`DurableRun`: a handle to one durable workflow run, usable from any process."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from agentry.durable._durable_workflow import (
    REQUESTS_EVENT,
    RESPONSES_TOPIC,
    WORKFLOW_FUNCTION,
    decode_requests,
)
from agentry.durable._errors import DurableRunError
from agentry.durable._following import failure_details, workflow_events
from agentry.durable._handle import ENDED, RunHandle
from agentry.workflows import WorkflowEvent, WorkflowRun, WorkflowRunResult, WorkflowRunState

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from dbos import WorkflowHandleAsync

    from agentry.durable._runtime import DurableRuntime
    from agentry.workflows import Workflow

__all__ = ["DurableRun"]


SET_EVENT_STEP = "DBOS.setEvent"
"""The name DBOS records a run's publishing of an event (its requests) under."""


def _answerable(entry: tuple[int, list[WorkflowEvent[Any]]], published_at: int) -> bool:
    """Whether a call's events can be reported: it asked nothing, or its requests were
    published after it."""
    step_id, events = entry
    return step_id < published_at or all(e.type != "request_info" for e in events)


class DurableRun(RunHandle):
    """A durable workflow run, by id: its status, its pending requests, answers, its
    events as they are recorded, and its result.

    It reads and writes the runtime's database only, so it works in any process (a web
    handler, the CLI) whether or not that process runs workflows itself.

    Attributes:
        run_id: The run's id.
    """

    _function_name = WORKFLOW_FUNCTION
    _kind = "workflow run"

    def __init__(
        self,
        runtime: DurableRuntime,
        run_id: str,
        *,
        handle: WorkflowHandleAsync[Any] | None = None,
        workflow: Workflow | None = None,
    ) -> None:
        super().__init__(runtime, run_id, handle=handle)
        self._template = workflow  # the workflow's template, when known

    async def _workflow(self) -> Workflow:
        """The run's workflow template (it checks and encodes values; it never runs).

        Raises:
            DurableRunError: No such run, its workflow is not registered here, or the
                registered workflow's graph differs from the one the run started with.
        """
        if self._template is None:
            status = await self._status_record()
            inputs = status.input
            if inputs is None or len(inputs["args"]) < 2:
                raise DurableRunError(f"run {self.run_id!r} is not an agentry workflow run")
            name, signature = inputs["args"][0], inputs["args"][1]
            self._template = self._runtime.template(str(name), str(signature))
        return self._template

    async def pending_requests(self) -> list[WorkflowEvent[object]]:
        """The `request_info` events of the requests the run waits on (empty when none).

        Raises:
            DurableRunError: There is no such run, or its workflow is not registered here.
        """
        workflow = await self._workflow()
        records = await self._runtime.client().get_event_async(
            self.run_id, REQUESTS_EVENT, timeout_seconds=0
        )
        return decode_requests(cast("list[dict[str, Any]]", records or []), workflow.type_registry)

    async def wait_for_requests(self, *, timeout: float = 60.0) -> list[WorkflowEvent[object]]:
        """Wait until the run waits on a request; its pending requests.

        Raises:
            TimeoutError: No request came within `timeout` seconds.
        """
        return await self._first_nonempty(self.pending_requests, timeout)

    async def send_response(self, request_id: str, answer: object) -> None:
        """Answer one of the run's pending requests; the run goes on wherever it runs.

        Raises:
            DurableRunError: There is no such run, or it does not wait on `request_id`
                (never asked, or answered already).
            WorkflowRunnerException: The answer is not of the type the request asks for.
        """
        workflow = await self._workflow()
        pending = {str(r.request_id): r for r in await self.pending_requests()}
        request = pending.get(request_id)
        if request is None:
            raise DurableRunError(
                f"run {self.run_id!r} does not wait on a request {request_id!r} (it was "
                f"answered already, or never asked); it waits on: {sorted(pending) or 'none'}"
            )
        WorkflowRun.check_answer(request, answer)
        await self._send(
            request_id, {request_id: workflow.type_registry.encode(answer)}, RESPONSES_TOPIC
        )

    async def stream(self) -> AsyncIterator[WorkflowEvent[Any]]:
        """Follow the run: the events of its handler calls as each call is recorded, from
        the first, until the run ends.

        Each completed call is reported once, wherever it ran (after a worker takeover
        too): `executor_invoked` (without the message), the events, outputs and requests
        of the call, then `executor_completed` or `executor_failed`. A request does not
        end the stream: answer it (from here or elsewhere) and the run goes on. The last
        event is the run's status (`IDLE`, or `failed` and `FAILED`).

        Raises:
            DurableRunError: There is no such run, or its workflow is not registered here.
            DurableRunFailedError: The run failed (after its `failed` event).
        """
        workflow = await self._workflow()
        # A call's events wait (with those after them) until its requests are published
        # (a DBOS event set after it), so that they can be answered when seen.
        held: list[tuple[int, list[WorkflowEvent[Any]]]] = []
        published_at = -1
        async for steps, status in self._recorded_steps():
            for step in steps:
                if step["function_name"] == SET_EVENT_STEP:
                    published_at = max(published_at, step["function_id"])
                events = workflow_events(step["function_name"], step["output"], workflow)
                if events:
                    held.append((step["function_id"], events))
            held.sort(key=lambda entry: entry[0])
            while held and (status in ENDED or _answerable(held[0], published_at)):
                for event in held.pop(0)[1]:
                    yield event
            if status == "SUCCESS":
                yield WorkflowEvent.status(WorkflowRunState.IDLE)
            elif status == "CANCELLED":
                yield WorkflowEvent.status(WorkflowRunState.CANCELLED)
            elif status in ("ERROR", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"):
                error = await self._error()
                yield WorkflowEvent.failed(failure_details(error))
                yield WorkflowEvent.status(WorkflowRunState.FAILED)
                raise error

    async def result(self, *, timeout: float | None = None) -> WorkflowRunResult:
        """Wait for the run to finish; its result (`get_outputs()` lists its output).

        Raises:
            DurableRunFailedError: The run failed.
            TimeoutError: The run did not finish within `timeout` seconds.
        """
        workflow = await self._workflow()
        value = cast("dict[str, Any]", await self._raw_result(timeout))
        registry = workflow.type_registry
        events = [
            WorkflowEvent.output(str(o["executor_id"]), registry.decode(o["data"]))
            for o in value["outputs"]
        ]
        return WorkflowRunResult(events, final_state=WorkflowRunState.IDLE)
