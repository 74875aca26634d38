"""The DBOS workflow every durable agentry run is: supersteps, then a durable wait for
answers whenever the run has requests, until the run is idle.

A run's requests are published as a DBOS event of the run (so any process can read
them), and answers arrive as DBOS messages to the run (so any process can send them).
While it waits, a run only holds a DBOS `recv`; if its process dies, recovery replays the
recorded steps and waits again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol, cast

from dbos import DBOS, DBOSClient

from agentry.durable._dbos_steps import HANDLER_FUNCTION, DBOSStepInvoker, step_name
from agentry.durable._errors import DurableRunError
from agentry.durable._recording import StepRecord, record_call
from agentry.workflows import (
    CheckpointTypeRegistry,
    WorkflowEvent,
    WorkflowException,
    WorkflowRun,
    WorkflowRunState,
)

if TYPE_CHECKING:
    from agentry.agents import Agent
    from agentry.workflows import Workflow

__all__ = [
    "REQUESTS_EVENT",
    "RESPONSES_TOPIC",
    "RUNS_QUEUE",
    "WORKFLOW_FUNCTION",
    "WorkflowSource",
    "decode_requests",
    "durable_workflow",
    "handler_call",
    "launched_source",
    "set_workflow_source",
]

logger = logging.getLogger("agentry.durable")

WORKFLOW_FUNCTION = "agentry.workflow"
"""The name DBOS knows every durable agentry run by."""
REQUESTS_EVENT = "agentry.requests"
"""The DBOS event of a run that lists its pending requests."""
RESPONSES_TOPIC = "agentry.responses"
"""The DBOS message topic answers to a run's requests are sent on."""
RUNS_QUEUE = "agentry.runs"
"""The DBOS queue of runs started by processes that do not run workflows."""
ANSWER_WAIT_SECONDS = 24 * 3600.0
"""How long one durable wait for answers lasts before it is renewed."""


class WorkflowSource(Protocol):
    """What the durable workflows of this process get their workflows from (the launched
    runtime)."""

    def build(self, workflow_name: str, graph_signature: str | None = None) -> Workflow:
        """A new instance of a registered workflow (of this graph)."""
        ...

    def distributed_executors(self, workflow_name: str) -> frozenset[str]:
        """The executors of a workflow whose calls go through the handlers queue."""
        ...

    def client(self) -> DBOSClient:
        """The client that queues calls."""
        ...

    def agent(self, agent_name: str, fingerprint: str | None = None) -> Agent:
        """A registered agent (of this fingerprint)."""
        ...

    @property
    def app_version(self) -> str:
        """The version of the app's workflows."""
        ...


_source: WorkflowSource | None = None


def set_workflow_source(source: WorkflowSource | None) -> None:
    """Set what the durable workflows of this process build their workflows with."""
    global _source
    _source = source


def launched_source() -> WorkflowSource:
    """What this process's durable workflows build with (its launched runtime).

    Raises:
        DurableRunError: No runtime is launched in this process.
    """
    if _source is None:
        raise DurableRunError(
            "a durable run started in a process whose DurableRuntime is not launched"
        )
    return _source


@DBOS.workflow(name=WORKFLOW_FUNCTION)
async def durable_workflow(
    workflow_name: str, graph_signature: str, message: object
) -> dict[str, Any]:
    """Run one workflow durably; the run's Workflow Output, encoded."""
    source = launched_source()
    workflow = source.build(workflow_name, graph_signature)
    run_id = DBOS.workflow_id
    assert run_id is not None
    invoker = DBOSStepInvoker(
        workflow,
        workflow_name=workflow_name,
        distributed=source.distributed_executors(workflow_name),
        client=source.client,
        app_version=source.app_version,
    )
    try:
        return await _drive(workflow, message, run_id, invoker)
    finally:
        invoker.close()


@DBOS.workflow(name=HANDLER_FUNCTION)
async def handler_call(
    workflow_name: str, graph_signature: str, executor_id: str, payload: dict[str, Any]
) -> StepRecord:
    """Run one call of a distributed executor (queued by a run, on any worker); its
    record. The call is a step, so a recovered call that completed is not run again."""
    workflow = launched_source().build(workflow_name, graph_signature)
    return await DBOS.run_step_async(
        {"name": step_name(executor_id)}, record_call, workflow, executor_id, payload
    )


async def _drive(
    workflow: Workflow, message: object, run_id: str, invoker: DBOSStepInvoker
) -> dict[str, Any]:
    registry = workflow.type_registry
    outputs: list[WorkflowEvent[object]] = []

    def keep_outputs(event: WorkflowEvent[object]) -> None:
        if event.type == "output":
            outputs.append(event)

    run = WorkflowRun(workflow, registry.decode(message), run_id=run_id, invoker=invoker)
    published: list[str | None] = []

    async def publish_requests() -> None:
        """Update the run's requests event when the pending requests changed (at once
        after answers, so that a second answer to a request is refused)."""
        nonlocal published
        pending = run.pending_requests
        if [r.request_id for r in pending] != published:
            await DBOS.set_event_async(REQUESTS_EVENT, encode_requests(pending, registry))
            published = [r.request_id for r in pending]

    while await run.execute(sink=keep_outputs) is not WorkflowRunState.IDLE:
        await publish_requests()
        answers = await DBOS.recv_async(RESPONSES_TOPIC, timeout_seconds=ANSWER_WAIT_SECONDS)
        if answers is not None:
            _take_answers(run, cast("dict[str, Any]", answers), registry)
            await publish_requests()
    await publish_requests()
    return {
        "outputs": [
            {"executor_id": e.executor_id, "data": registry.encode(e.data)} for e in outputs
        ]
    }


def _take_answers(
    run: WorkflowRun, answers: dict[str, Any], registry: CheckpointTypeRegistry
) -> None:
    for request_id, encoded in answers.items():
        try:
            run.answer({request_id: registry.decode(encoded)})
        except WorkflowException as error:
            # The sender checks answers before sending; one that slips through (a second
            # answer racing the first) is dropped, and the run keeps waiting.
            logger.warning("run %s ignored an answer: %s", run.run_id, error)


def encode_requests(
    requests: list[WorkflowEvent[object]], registry: CheckpointTypeRegistry
) -> list[dict[str, Any]]:
    """Pending requests as JSON, for the run's requests event."""
    return [
        {
            "request_id": r.request_id,
            "source_executor_id": r.source_executor_id,
            "data": registry.encode(r.data),
            "response_type": registry.encode(r.response_type),
        }
        for r in requests
    ]


def decode_requests(
    records: list[dict[str, Any]], registry: CheckpointTypeRegistry
) -> list[WorkflowEvent[object]]:
    """The `request_info` events a requests event holds."""
    return [
        WorkflowEvent.request_info(
            request_id=str(r["request_id"]),
            source_executor_id=str(r["source_executor_id"]),
            data=registry.decode(r["data"]),
            response_type=registry.decode(r["response_type"]),
        )
        for r in records
    ]
