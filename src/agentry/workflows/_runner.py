"""`Runner`: the superstep loop of one workflow run.

Each superstep delivers every pending message. Executors run concurrently with each other;
one executor handles its own messages one at a time, in arrival order. What executors send
is routed along the edges into the next superstep's inbox once all of them are done, in
executor order, so a run is deterministic whatever the timing. The loop ends when no message
is pending; a checkpoint can be saved at each superstep boundary.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from agentry.observability import get_telemetry_observer
from agentry.workflows._context import WorkflowContext
from agentry.workflows._edge_runner import Inbox
from agentry.workflows._errors import (
    ExecutorFailedException,
    WorkflowConvergenceException,
    WorkflowRunnerException,
)
from agentry.workflows._events import (
    WorkflowErrorDetails,
    WorkflowEvent,
    WorkflowRunState,
    quick_event,
)
from agentry.workflows._executor import Executor
from agentry.workflows._invocation import Invocation, deliver
from agentry.workflows._run_state import (
    RESPONSE_SOURCE,
    PendingRequest,
    ResponseDelivery,
    RunState,
)
from agentry.workflows._typing import compile_matcher, type_name

if TYPE_CHECKING:
    from agentry.workflows._checkpoint import CheckpointStorage
    from agentry.workflows._invocation import ExecutorInvoker
    from agentry.workflows._workflow import Workflow

__all__ = ["Runner", "apply_responses", "check_answer"]

EventSink = Callable[[WorkflowEvent[Any]], None]


class Runner:
    """Runs supersteps of one `RunState` until nothing is pending.

    It is also what a `WorkflowContext` talks to (the `RunHooks` of the context).
    """

    __slots__ = (
        "_checkpointing",
        "_executors",
        "_failures",
        "_holding",
        "_invoker",
        "_planned",
        "_routers",
        "_sink",
        "_storage",
        "_workflow",
        "run",
        "state",
        "streaming",
    )

    def __init__(
        self,
        workflow: Workflow,
        run: RunState,
        *,
        sink: EventSink,
        streaming: bool,
        storage: CheckpointStorage | None,
        invoker: ExecutorInvoker | None = None,
    ) -> None:
        self._workflow = workflow
        self._invoker = invoker
        self.run = run
        self.state = run.state
        self.streaming = streaming
        self._sink = sink
        self._storage = storage
        self._executors = workflow.executors
        self._routers = workflow.routers
        self._holding = workflow.holding_routers
        self._failures: list[tuple[str, Exception]] = []
        self._planned: dict[str, list[Invocation]] = {}

    # region RunHooks (called by WorkflowContext)

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self.run.run_id

    @property
    def iteration(self) -> int:
        """The number of the superstep under way."""
        return self.run.iteration

    def emit(self, event: WorkflowEvent[Any]) -> None:
        """Report an event to the caller."""
        self._sink(event)

    def yield_output(self, executor_id: str, output: object) -> None:
        """Report an executor's output as Workflow Output, Intermediate Output, or not."""
        kind = self._workflow.output_kind_of(executor_id)
        if kind == "output":
            self.run.outputs.append((executor_id, output))
            self._sink(quick_event("output", output, executor_id, None))
        elif kind == "intermediate":
            self._sink(quick_event("intermediate", output, executor_id, None))

    def pass_on_intermediate_output(self, executor_id: str, output: object) -> None:
        """Report a sub-workflow's Intermediate Output as its executor's, unless the
        executor's outputs are hidden."""
        if self._workflow.output_kind_of(executor_id) is not None:
            self._sink(quick_event("intermediate", output, executor_id, None))

    def request_info(
        self, executor_id: str, data: object, response_type: object, request_id: str | None
    ) -> str:
        """Record a request for the caller and announce it."""
        request_id = request_id or uuid.uuid4().hex
        pending = self.run.pending_requests
        if request_id in pending:
            raise WorkflowRunnerException(f"a request with id {request_id!r} is already pending")
        request = PendingRequest(request_id, executor_id, data, response_type)
        pending[request_id] = request
        self._sink(request.to_event())
        if len(pending) == 1:
            self._sink(WorkflowEvent.status(WorkflowRunState.IN_PROGRESS_PENDING_REQUESTS))
        return request_id

    # endregion

    async def execute(self, announce: list[PendingRequest]) -> WorkflowRunState:
        """Run supersteps until none is pending; the state the run ends in.

        Args:
            announce: Requests from earlier calls that are still pending (re-announced so
                that every result lists what waits for an answer).

        Raises:
            ExecutorFailedException: An executor raised.
            WorkflowConvergenceException: The run exceeded the superstep limit.
        """
        return await get_telemetry_observer().workflow_run(
            self._workflow, self.run, self._supersteps(announce)
        )

    async def _supersteps(self, announce: list[PendingRequest]) -> WorkflowRunState:
        sink, run = self._sink, self.run
        sink(WorkflowEvent.started())
        sink(WorkflowEvent.status(WorkflowRunState.IN_PROGRESS))
        for request in announce:
            sink(request.to_event())
        limit = self._workflow.max_iterations
        steps = 0
        try:
            while run.inbox:
                if steps >= limit:
                    raise WorkflowConvergenceException(
                        f"workflow {self._workflow.name!r} did not finish within {limit} "
                        f"supersteps (messages are still pending for {sorted(run.inbox)}); "
                        "raise max_iterations on the WorkflowBuilder if the run is meant to "
                        "be this long, or check the loops of the graph"
                    )
                steps += 1
                run.iteration += 1
                sink(quick_event("superstep_started", None, None, run.iteration))
                await get_telemetry_observer().superstep(run.iteration, self._superstep())
                sink(quick_event("superstep_completed", None, None, run.iteration))
                if self._storage is not None:
                    from agentry.workflows._checkpointing import save_checkpoint

                    await save_checkpoint(self._workflow, run, self._storage)
        except asyncio.CancelledError:
            run.failed = True
            sink(WorkflowEvent.status(WorkflowRunState.CANCELLED))
            raise
        except Exception as error:
            run.failed = True
            if isinstance(error, ExecutorFailedException) and error.__cause__ is not None:
                details = WorkflowErrorDetails.from_exception(
                    error.__cause__, executor_id=error.executor_id
                )
            else:
                details = WorkflowErrorDetails.from_exception(error)
            sink(WorkflowEvent.failed(details))
            sink(WorkflowEvent.status(WorkflowRunState.FAILED))
            raise
        final = (
            WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
            if run.pending_requests
            else WorkflowRunState.IDLE
        )
        sink(WorkflowEvent.status(final))
        return final

    async def _superstep(self) -> None:
        run = self.run
        inbox = run.inbox
        run.inbox = {}
        executors = self._executors
        execute = self._execute_observed
        if self._invoker is not None:
            self._planned = self._plan_invocations(inbox)
            self._invoker.begin_superstep([i for p in self._planned.values() for i in p], self)
        if len(inbox) == 1:
            ((executor_id, deliveries),) = inbox.items()
            outbox: list[tuple[object, str | None]] = []
            await execute(executors[executor_id], deliveries, outbox)
            outboxes = [(executor_id, outbox)]
        else:
            outboxes: list[tuple[str, list[tuple[object, str | None]]]] = [
                (executor_id, []) for executor_id in inbox
            ]
            await asyncio.gather(
                *(
                    execute(executors[executor_id], deliveries, outbox)
                    for (executor_id, deliveries), (_, outbox) in zip(
                        inbox.items(), outboxes, strict=True
                    )
                )
            )
        if self._failures:
            executor_id, error = self._failures[0]
            raise ExecutorFailedException(
                f"executor {executor_id!r} failed: {type(error).__name__}: {error}",
                executor_id=executor_id,
            ) from error
        await self._route(outboxes, run.inbox)

    async def _execute(
        self,
        executor: Executor,
        deliveries: list[tuple[Any, Any, Any]],
        outbox: list[tuple[Any, str | None]],
    ) -> None:
        """Handle an executor's messages in order; a failure stops it and is recorded."""
        sink = self._sink
        executor_id = executor.id
        invoker = self._invoker
        planned = self._planned.get(executor_id) if invoker is not None else None
        for index, (message, source, entry) in enumerate(deliveries):
            sink(quick_event("executor_invoked", message, executor_id, None))
            try:
                if invoker is not None and planned is not None:
                    result = await invoker.invoke(planned[index], self, outbox)
                else:
                    ctx: WorkflowContext[object, object] = WorkflowContext(
                        self, executor_id, source, outbox, index=index
                    )
                    if entry is not None:
                        result = await entry.call(message, ctx)
                    else:
                        result = await deliver(executor, message, ctx)
                if result is not None:
                    outbox.append((result, None))
            except Exception as error:
                details = WorkflowErrorDetails.from_exception(error, executor_id=executor_id)
                sink(WorkflowEvent.executor_failed(executor_id, details))
                self._failures.append((executor_id, error))
                return
            sink(quick_event("executor_completed", None, executor_id, None))

    def _plan_invocations(self, inbox: Inbox) -> dict[str, list[Invocation]]:
        """Every invocation of a superstep, by executor, in a fixed order."""
        run, executors = self.run, self._executors
        return {
            executor_id: [
                Invocation(
                    executors[executor_id],
                    message,
                    source,
                    run_id=run.run_id,
                    iteration=run.iteration,
                    index=index,
                    entry=entry,
                )
                for index, (message, source, entry) in enumerate(deliveries)
            ]
            for executor_id, deliveries in inbox.items()
        }

    def _execute_observed(
        self,
        executor: Executor,
        deliveries: list[tuple[Any, Any, Any]],
        outbox: list[tuple[Any, str | None]],
    ) -> Awaitable[None]:
        """`_execute`, as the telemetry observer sees it (an `executor.process` span)."""
        work = self._execute(executor, deliveries, outbox)
        return get_telemetry_observer().executor_step(executor, deliveries, self._failures, work)

    async def _route(
        self, outboxes: list[tuple[str, list[tuple[Any, str | None]]]], inbox: Inbox
    ) -> None:
        routers, route_state = self._routers, self.run.route
        for source, outbox in outboxes:
            if not outbox:
                continue
            source_routers = routers.get(source, ())
            for message, target_id in outbox:
                delivered = False
                try:
                    for router in source_routers:
                        if router.is_async:
                            taken = await router.route_async(
                                message, target_id, source, inbox, route_state
                            )
                        else:
                            taken = router.route(message, target_id, source, inbox, route_state)
                        delivered = taken or delivered
                except Exception as error:
                    raise ExecutorFailedException(
                        f"routing a message from executor {source!r} failed: "
                        f"{type(error).__name__}: {error}",
                        executor_id=source,
                    ) from error
                if not delivered and source_routers:
                    # A terminal executor's sends go nowhere by design; a message that
                    # its edges all refused is worth a warning.
                    self._sink(
                        WorkflowEvent.warning(
                            f"a {type_name(type(message))} message from {source!r}"
                            + (f" to {target_id!r}" if target_id else "")
                            + " reached no executor: none of its edges took it (their "
                            "conditions, selections and the targets' handler types decide)",
                            executor_id=source,
                        )
                    )
        for router in self._holding:
            router.flush(inbox, route_state)


def apply_responses(run: RunState, responses: Mapping[str, object]) -> None:
    """Queue the caller's answers for delivery in the next superstep.

    Raises:
        WorkflowRunnerException: An id is not pending, or an answer has the wrong type.
    """
    pending = run.pending_requests
    for request_id, answer in responses.items():
        request = pending.get(request_id)
        if request is None:
            raise WorkflowRunnerException(
                f"no pending request has id {request_id!r}; pending requests: "
                f"{sorted(pending) or 'none'}"
            )
        check_answer(request_id, request.response_type, answer)
    for request_id, answer in responses.items():
        request = pending.pop(request_id)
        delivery = (ResponseDelivery(request, answer), RESPONSE_SOURCE, None)
        run.inbox.setdefault(request.source_executor_id, []).append(delivery)


def check_answer(request_id: str, response_type: Any, answer: Any) -> None:
    """Raise `WorkflowRunnerException` unless `answer` has the type the request asks for."""
    if not compile_matcher(response_type).matches(answer):
        raise WorkflowRunnerException(
            f"the answer to request {request_id!r} must be a "
            f"{type_name(response_type)}, not a {type_name(type(answer))}"
        )
