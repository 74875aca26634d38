"""`DurableRun`: a handle to one durable run, usable from any process."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from dbos._error import DBOSNonExistentWorkflowError
from sqlalchemy.exc import DBAPIError

from agentry.durable._durable_workflow import REQUESTS_EVENT, RESPONSES_TOPIC, decode_requests
from agentry.durable._errors import DurableRunError
from agentry.durable._serializer import failure_of
from agentry.workflows import WorkflowEvent, WorkflowRun, WorkflowRunResult, WorkflowRunState

if TYPE_CHECKING:
    from dbos import WorkflowHandleAsync

    from agentry.durable._runtime import DurableRuntime
    from agentry.workflows import Workflow

__all__ = ["DurableRun"]

_POLL_SECONDS = 0.1


class DurableRun:
    """A durable run, by id: its status, its pending requests, answers, and its result.

    It reads and writes the runtime's database only, so it works in any process (a web
    handler, the CLI) whether or not that process runs workflows itself.

    Attributes:
        run_id: The run's id.
    """

    def __init__(
        self,
        runtime: DurableRuntime,
        run_id: str,
        *,
        handle: WorkflowHandleAsync[Any] | None = None,
        workflow: Workflow | None = None,
    ) -> None:
        self._runtime = runtime
        self.run_id = run_id
        self._handle = handle  # the run's task, when this process started it
        self._template = workflow  # the workflow's template, when known

    def __repr__(self) -> str:
        return f"DurableRun({self.run_id!r})"

    async def status(self) -> str:
        """The run's status: `PENDING` (running or waiting), `SUCCESS`, `ERROR`,
        `CANCELLED`, `ENQUEUED`...

        Raises:
            DurableRunError: There is no run with this id.
        """
        return (await self._describe())[0]

    async def _describe(self) -> tuple[str, str, str]:
        """(status, workflow name, graph signature) of the run."""
        client = self._runtime.client()
        try:
            handle: WorkflowHandleAsync[Any] = await client.retrieve_workflow_async(self.run_id)
        except DBOSNonExistentWorkflowError:
            raise DurableRunError(
                f"there is no durable run with id {self.run_id!r} in "
                f"{self._runtime.safe_database_url}"
            ) from None
        except DBAPIError as error:
            raise self._runtime.unreadable(error) from error
        status = await handle.get_status()
        inputs = status.input
        if inputs is None or len(inputs["args"]) < 2:
            raise DurableRunError(f"run {self.run_id!r} is not an agentry workflow run")
        name, signature = inputs["args"][0], inputs["args"][1]
        return str(status.status), str(name), str(signature)

    async def _workflow(self) -> Workflow:
        """The run's workflow template (it checks and encodes values; it never runs)."""
        if self._template is None:
            _, name, signature = await self._describe()
            self._template = self._runtime.template(name, signature)
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
        return await asyncio.wait_for(self._first_requests(), timeout)

    async def _first_requests(self) -> list[WorkflowEvent[object]]:
        while True:
            requests = await self.pending_requests()
            if requests:
                return requests
            await asyncio.sleep(_POLL_SECONDS)

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
        encoded = workflow.type_registry.encode(answer)
        await self._runtime.client().send_async(
            self.run_id,
            {request_id: encoded},
            RESPONSES_TOPIC,
            idempotency_key=f"{self.run_id}/{request_id}",
        )

    async def result(self, *, timeout: float | None = None) -> WorkflowRunResult:
        """Wait for the run to finish; its result (`get_outputs()` lists its output).

        Raises:
            DurableRunFailedError: The run failed.
            TimeoutError: The run did not finish within `timeout` seconds.
        """
        workflow = await self._workflow()
        value = cast("dict[str, Any]", await asyncio.wait_for(self._result(), timeout))
        registry = workflow.type_registry
        events = [
            WorkflowEvent.output(str(o["executor_id"]), registry.decode(o["data"]))
            for o in value["outputs"]
        ]
        return WorkflowRunResult(events, final_state=WorkflowRunState.IDLE)

    async def _result(self) -> Any:
        if self._handle is not None:
            try:
                return await self._handle.get_result()
            except Exception as error:  # as a client reading the database would see it
                raise failure_of(error) from error
        handle: Any = await self._runtime.client().retrieve_workflow_async(self.run_id)
        return await handle.get_result(polling_interval_sec=_POLL_SECONDS)
