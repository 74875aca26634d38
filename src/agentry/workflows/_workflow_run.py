"""`WorkflowRun`: one run of a workflow, driven by an execution engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from agentry.workflows._errors import WorkflowRunnerException
from agentry.workflows._events import WorkflowEvent, WorkflowRunState
from agentry.workflows._run_state import INPUT_SOURCE, RunState
from agentry.workflows._runner import Runner, apply_responses, check_answer
from agentry.workflows._typing import type_name

if TYPE_CHECKING:
    from agentry.workflows._invocation import ExecutorInvoker
    from agentry.workflows._workflow import Workflow

__all__ = ["WorkflowRun"]


def _ignore(_: WorkflowEvent[object]) -> None:
    return None


class WorkflowRun:
    """One run of a workflow, driven by its caller: the entry point of execution engines.

    Applications call `Workflow.run`. An engine that runs the handlers itself (a durable
    engine records each call as a step) drives a `WorkflowRun` instead: `execute` runs
    supersteps until nothing is pending, `answer` queues answers to the run's requests,
    and `execute` goes on. The run uses the workflow's executors, so one workflow instance
    should drive one run at a time.

    Args:
        workflow: The workflow to run.
        message: The input, for the start executor.
        run_id: The run's id (default: a new random one).
        invoker: Runs each handler call (default: the runner calls handlers itself).

    Raises:
        WorkflowRunnerException: The start executor has no handler for `message`.

    Example:
        >>> import asyncio
        >>> from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
        >>> @executor
        ... async def shout(text: str, ctx: WorkflowContext[None, str]) -> None:
        ...     await ctx.yield_output(text.upper())
        >>> run = WorkflowRun(WorkflowBuilder(start_executor=shout).build(), "hi", run_id="r1")
        >>> asyncio.run(run.execute()), run.outputs
        (<WorkflowRunState.IDLE: 'idle'>, ['HI'])
    """

    def __init__(
        self,
        workflow: Workflow,
        message: object,
        *,
        run_id: str | None = None,
        invoker: ExecutorInvoker | None = None,
    ) -> None:
        start = workflow.get_start_executor()
        if not start.can_handle(message):
            raise WorkflowRunnerException(
                f"the start executor {start.id!r} has no handler for a "
                f"{type_name(type(message))} input; it accepts "
                f"{[type_name(t) for t in start.input_types]}"
            )
        self.workflow = workflow
        self._invoker = invoker
        self._state = RunState(run_id)
        self._state.inbox[start.id] = [(message, INPUT_SOURCE, None)]

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self._state.run_id

    @property
    def outputs(self) -> list[object]:
        """The Workflow Output yielded so far, in order."""
        return [data for _, data in self._state.outputs]

    @property
    def pending_requests(self) -> list[WorkflowEvent[object]]:
        """`request_info` events of the requests waiting for an answer."""
        return [request.to_event() for request in self._state.pending_requests.values()]

    async def execute(
        self,
        *,
        sink: Callable[[WorkflowEvent[object]], None] | None = None,
        streaming: bool = False,
    ) -> WorkflowRunState:
        """Run supersteps until none is pending; the state the run is left in.

        Args:
            sink: Receives each event as it happens.
            streaming: Tell handlers the caller streams (agents then stream updates).

        Raises:
            ExecutorFailedException: A handler raised (the run cannot go on).
            WorkflowConvergenceException: The run passed the superstep limit.
            WorkflowRunnerException: The run failed before.
        """
        if self._state.failed:
            raise WorkflowRunnerException(f"run {self.run_id!r} failed and cannot go on")
        runner = Runner(
            self.workflow,
            self._state,
            sink=sink or _ignore,
            streaming=streaming,
            storage=None,
            invoker=self._invoker,
        )
        return await runner.execute(list(self._state.pending_requests.values()))

    def answer(self, responses: Mapping[str, object]) -> None:
        """Queue answers to pending requests (by request id) for the next `execute`.

        Raises:
            WorkflowRunnerException: An id is not pending, or an answer has the wrong
                type; no answer is queued then.
        """
        apply_responses(self._state, responses)

    @staticmethod
    def check_answer(request: WorkflowEvent[object], answer: object) -> None:
        """Check an answer against a `request_info` event, before sending it elsewhere.

        Raises:
            WorkflowRunnerException: The answer is not of the type the request asks for.
        """
        if request.request_id is None:
            raise WorkflowRunnerException(f"{request!r} is not a request_info event")
        check_answer(request.request_id, request.response_type, answer)
