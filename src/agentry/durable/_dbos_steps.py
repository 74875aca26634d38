"""The step boundary: each handler call of a durable run is one DBOS step.

This is the only module that maps workflow handler calls onto DBOS. A call runs as a DBOS
step of the run's workflow; a call of a distributed executor runs as a child workflow on
the `agentry.handlers` queue, which any worker takes, and the run's step waits for it.
Another engine (Temporal, say) would plug in here with the same mapping: an
`ExecutorInvoker` whose `begin_superstep` fixes the steps' identities in order, and
whose `invoke` runs `StepRecorder.record` as the engine's step (an activity) and applies
the record.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

from dbos import DBOS, DBOSClient, EnqueueOptions

from agentry.durable._following import HANDLER_STEP_PREFIX
from agentry.durable._recording import StepRecord, StepRecorder

if TYPE_CHECKING:
    from dbos._dbos import StepReservation

    from agentry.workflows import Invocation, RunHooks, Workflow

__all__ = ["HANDLER_FUNCTION", "HANDLER_QUEUE", "DBOSStepInvoker", "step_name"]

HANDLER_QUEUE = "agentry.handlers"
"""The DBOS queue the calls of distributed executors go through."""
HANDLER_FUNCTION = "agentry.handler_call"
"""The DBOS workflow that runs one call of a distributed executor, on any worker."""
_RESULT_POLL_SECONDS = 0.1


def step_name(executor_id: str) -> str:
    """The name DBOS records a handler call of `executor_id` under."""
    return f"{HANDLER_STEP_PREFIX}{executor_id}"


class DBOSStepInvoker:
    """Runs each handler call of one durable run as a DBOS step.

    DBOS numbers steps in the order a workflow starts them; executors of a superstep run
    concurrently, so their steps are numbered up front, in the runner's fixed order, with
    `DBOS.reserve_step`. A recovered run thus finds each recorded call under the number it
    had, and a completed call is replayed from its record instead of running again.

    The calls of distributed executors start at once, all of a superstep's together: each
    is queued as a child workflow (its id is the call's idempotency key, so queuing it
    again after a recovery finds the same child) and its step waits for the child's
    record.

    Args:
        workflow: The run's workflow.
        workflow_name: The name it is registered under (workers build it by name).
        distributed: Ids of the executors whose calls go through the queue.
        client: Returns the DBOS client that queues calls.
        app_version: The version queued calls are for (workers of other versions leave
            them).
    """

    def __init__(
        self,
        workflow: Workflow,
        *,
        workflow_name: str,
        distributed: Collection[str] = (),
        client: Callable[[], DBOSClient] | None = None,
        app_version: str | None = None,
    ) -> None:
        self._recorder = StepRecorder(workflow)
        self._workflow_name = workflow_name
        self._signature = workflow.graph_signature
        self._distributed = frozenset(distributed)
        self._client = client
        self._app_version = app_version
        self._reserved: dict[tuple[str, int], StepReservation] = {}
        self._queued: dict[tuple[str, int], asyncio.Future[StepRecord]] = {}

    def begin_superstep(self, invocations: Sequence[Invocation], hooks: RunHooks) -> None:
        self.close()
        self._reserved = {}
        for invocation in invocations:
            key = (invocation.executor_id, invocation.index)
            reservation = DBOS.reserve_step()
            if invocation.executor_id in self._distributed and not invocation.is_response:
                self._queued[key] = asyncio.ensure_future(
                    reservation.run_async(
                        {"name": step_name(invocation.executor_id)},
                        self._call_elsewhere,
                        invocation,
                        dict(hooks.state),
                    )
                )
            else:
                self._reserved[key] = reservation

    async def invoke(
        self, invocation: Invocation, hooks: RunHooks, outbox: list[tuple[object, str | None]]
    ) -> Any:
        key = (invocation.executor_id, invocation.index)
        queued = self._queued.pop(key, None)
        if queued is not None:
            record = await queued
        else:
            record = await self._reserved.pop(key).run_async(
                {"name": step_name(invocation.executor_id)},
                self._recorder.record,
                invocation,
                hooks.state,
            )
        return self._recorder.apply(record, invocation, hooks, outbox)

    def close(self) -> None:
        """Stop waiting for queued calls nobody will apply (the run failed)."""
        for waiting in self._queued.values():
            waiting.cancel()
        self._queued = {}

    async def _call_elsewhere(
        self, invocation: Invocation, shared_state: dict[str, Any]
    ) -> StepRecord:
        assert self._client is not None
        payload = await self._recorder.call_payload(invocation, shared_state)
        options: EnqueueOptions = {
            "queue_name": HANDLER_QUEUE,
            "workflow_name": HANDLER_FUNCTION,
            "workflow_id": invocation.idempotency_key,
        }
        if self._app_version is not None:
            options["app_version"] = self._app_version
        handle: Any = await self._client().enqueue_async(
            options, self._workflow_name, self._signature, invocation.executor_id, payload
        )
        record: StepRecord = await handle.get_result(polling_interval_sec=_RESULT_POLL_SECONDS)
        return record
