"""Spans of workflow runs: `invoke_workflow {name}` around the run, one `workflow.superstep`
per superstep, and one `executor.process {executor id}` per executor and superstep."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Sequence
from contextlib import AbstractContextManager
from typing import TypeVar

from opentelemetry import trace
from opentelemetry.trace import Span

from agentry.observability._attributes import OPERATION_NAME, WORKFLOW_NAME
from agentry.observability._instruments import end_span, fail_span, instruments

__all__ = [
    "EXECUTOR_ID",
    "EXECUTOR_MESSAGES",
    "EXECUTOR_TYPE",
    "SUPERSTEP",
    "WORKFLOW_STATE",
    "WORKFLOW_SUPERSTEPS",
    "traced_executor",
    "traced_superstep",
    "traced_workflow_run",
]

T = TypeVar("T")

# No convention covers workflow internals yet: these live under agentry's own namespace.
SUPERSTEP = "agentry.workflow.superstep"
WORKFLOW_SUPERSTEPS = "agentry.workflow.supersteps"
WORKFLOW_STATE = "agentry.workflow.state"
EXECUTOR_ID = "agentry.executor.id"
EXECUTOR_TYPE = "agentry.executor.type"
EXECUTOR_MESSAGES = "agentry.executor.messages"


async def traced_workflow_run(workflow: object, run: object, execution: Awaitable[T]) -> T:
    """Await a workflow run's `execution` inside an `invoke_workflow` span.

    Args:
        workflow: The workflow (its `name` becomes `gen_ai.workflow.name`).
        run: The run's state (its `iteration` counts the supersteps done).
        execution: The run itself; its result is the state the run ends in.
    """
    recorder = instruments()
    name: str | None = getattr(workflow, "name", None)
    metric_attributes: dict[str, object] = {OPERATION_NAME: "invoke_workflow", WORKFLOW_NAME: name}
    span = recorder.start_span(
        f"invoke_workflow {name}" if name else "invoke_workflow", metric_attributes
    )
    first_step = getattr(run, "iteration", 0)
    started = time.perf_counter()
    try:
        with _current(span):
            result = await execution
    except BaseException as error:
        fail_span(span, error)
        end_span(span, {WORKFLOW_SUPERSTEPS: getattr(run, "iteration", 0) - first_step})
        recorder.record_duration(started, metric_attributes, error)
        raise
    end_span(
        span,
        {
            WORKFLOW_SUPERSTEPS: getattr(run, "iteration", 0) - first_step,
            WORKFLOW_STATE: str(getattr(result, "value", result)),
        },
    )
    recorder.record_duration(started, metric_attributes)
    return result


async def traced_superstep(iteration: int, step: Awaitable[None]) -> None:
    """Await one superstep inside a `workflow.superstep` span."""
    span = instruments().start_span("workflow.superstep", {SUPERSTEP: iteration})
    try:
        with _current(span):
            await step
    except BaseException as error:
        fail_span(span, error)
        span.end()
        raise
    span.end()


async def traced_executor(
    executor: object,
    deliveries: Sequence[object],
    failures: Sequence[tuple[str, Exception]],
    work: Awaitable[None],
) -> None:
    """Await an executor's `work` on its `deliveries` inside an `executor.process` span.

    Args:
        executor: The executor.
        deliveries: The messages it handles in this superstep.
        failures: The run's list of (executor id, error); a new entry for this executor
            marks the span as failed.
        work: Handling the messages.
    """
    executor_id = str(getattr(executor, "id", ""))
    span = instruments().start_span(
        f"executor.process {executor_id}",
        {
            EXECUTOR_ID: executor_id,
            EXECUTOR_TYPE: type(executor).__name__,
            EXECUTOR_MESSAGES: len(deliveries),
        },
    )
    known = len(failures)
    try:
        with _current(span):
            await work
    except BaseException as error:
        fail_span(span, error)
        span.end()
        raise
    for failed_id, error in failures[known:]:
        if failed_id == executor_id:
            fail_span(span, error)
    span.end()


def _current(span: Span) -> AbstractContextManager[Span]:
    return trace.use_span(
        span, end_on_exit=False, record_exception=False, set_status_on_exception=False
    )
