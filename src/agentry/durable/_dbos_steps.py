"""The step boundary: each handler call of a durable run is one DBOS step.

This is the only module that maps workflow handler calls onto DBOS. Another engine
(Temporal, say) would plug in here with the same mapping: an `ExecutorInvoker` whose
`begin_superstep` fixes the steps' identities in order, and whose `invoke` runs
`StepRecorder.record` as the engine's step (an activity) and applies the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dbos import DBOS

from agentry.durable._recording import StepRecorder

if TYPE_CHECKING:
    from dbos._dbos import StepReservation

    from agentry.workflows import Invocation, RunHooks, Workflow

__all__ = ["DBOSStepInvoker", "step_name"]


def step_name(executor_id: str) -> str:
    """The name DBOS records a handler call of `executor_id` under."""
    return f"agentry.handler:{executor_id}"


class DBOSStepInvoker:
    """Runs each handler call of one durable run as a DBOS step.

    DBOS numbers steps in the order a workflow starts them; executors of a superstep run
    concurrently, so their steps are numbered up front, in the runner's fixed order, with
    `DBOS.reserve_step`. A recovered run thus finds each recorded call under the number it
    had, and a completed call is replayed from its record instead of running again.

    Args:
        workflow: The run's workflow.
    """

    def __init__(self, workflow: Workflow) -> None:
        self._recorder = StepRecorder(workflow)
        self._reserved: dict[tuple[str, int], StepReservation] = {}

    def begin_superstep(self, invocations: Sequence[Invocation]) -> None:
        self._reserved = {(i.executor_id, i.index): DBOS.reserve_step() for i in invocations}

    async def invoke(
        self, invocation: Invocation, hooks: RunHooks, outbox: list[tuple[Any, str | None]]
    ) -> Any:
        reservation = self._reserved.pop((invocation.executor_id, invocation.index))
        shared_state = hooks.state
        record = await reservation.run_async(
            {"name": step_name(invocation.executor_id)},
            self._recorder.record,
            invocation,
            shared_state,
        )
        return self._recorder.apply(record, invocation, hooks, outbox)
