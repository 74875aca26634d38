"""`Workflow`: a validated graph of executors, and how to run it."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import deque
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

from typing_extensions import TypedDict, Unpack

from agentry.types import ResponseStream
from agentry.workflows._checkpoint import CheckpointStorage, WorkflowCheckpoint
from agentry.workflows._edge_runner import compile_routers
from agentry.workflows._edges import EdgeGroup, SwitchCaseEdgeGroup, SwitchCaseEdgeGroupDefault
from agentry.workflows._encoding import CheckpointTypeRegistry
from agentry.workflows._errors import WorkflowRunnerException
from agentry.workflows._events import WorkflowEvent, WorkflowRunState
from agentry.workflows._executor import Executor
from agentry.workflows._result import WorkflowRunResult
from agentry.workflows._run_state import INPUT_SOURCE, PendingRequest, RunState
from agentry.workflows._runner import Runner, apply_responses
from agentry.workflows._typing import type_name

if TYPE_CHECKING:
    from agentry.workflows._workflow_agent import WorkflowAgent

__all__ = ["DEFAULT_MAX_ITERATIONS", "OutputKind", "Workflow", "WorkflowRunOptions"]


class WorkflowRunOptions(TypedDict, total=False):
    """The keyword arguments `Workflow.run` takes besides `message` and `stream`."""

    responses: Mapping[str, object] | None
    """Answers to pending requests, by request id."""
    checkpoint_id: str | None
    """Resume the run saved in this checkpoint."""
    checkpoint_storage: CheckpointStorage | None
    """Where to load from and save checkpoints to (default: the builder's storage)."""
    include_status_events: bool
    """Keep `"status"` events in a non-streaming result."""


DEFAULT_MAX_ITERATIONS = 100
OutputKind = Literal["output", "intermediate"] | None


@dataclass
class _Plan:
    """What one `run` call asks for, checked before anything runs."""

    message: object = None
    responses: Mapping[str, Any] | None = None
    checkpoint_id: str | None = None
    storage: CheckpointStorage | None = None
    final_state: WorkflowRunState | None = None
    restored_outputs: list[Any] = field(default_factory=list[Any])


class Workflow:
    """A graph of executors joined by edges, run in supersteps. Build it with
    `WorkflowBuilder`.

    `await workflow.run(message)` returns a `WorkflowRunResult`;
    `workflow.run(message, stream=True)` streams `WorkflowEvent`s as they happen. A
    workflow runs one run at a time; a run that ends with pending requests continues
    with `workflow.run(responses={request_id: answer})`, and any run can resume from a
    checkpoint with `workflow.run(checkpoint_id=..., checkpoint_storage=...)`.

    Example:
        >>> import asyncio
        >>> from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
        >>> @executor
        ... async def shout(text: str, ctx: WorkflowContext[str, str]) -> None:
        ...     await ctx.yield_output(text.upper())
        >>> workflow = WorkflowBuilder(start_executor=shout).build()
        >>> asyncio.run(workflow.run("hi")).get_outputs()
        ['HI']
    """

    def __init__(
        self,
        *,
        executors: Mapping[str, Executor],
        edge_groups: Sequence[EdgeGroup],
        start_executor_id: str,
        name: str,
        description: str | None = None,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        checkpoint_storage: CheckpointStorage | None = None,
        output_kinds: Mapping[str, OutputKind] | None = None,
        default_output_kind: OutputKind = "output",
    ) -> None:
        self.executors: dict[str, Executor] = dict(executors)
        self.edge_groups: list[EdgeGroup] = list(edge_groups)
        self.start_executor_id = start_executor_id
        self.name = name
        self.description = description
        self.max_iterations = max_iterations
        self.checkpoint_storage = checkpoint_storage
        self._output_kinds: dict[str, OutputKind] = dict(output_kinds or {})
        self._default_output_kind: OutputKind = default_output_kind
        self.routers, self.holding_routers = compile_routers(self.edge_groups, self.executors)
        """The edge groups compiled for the runner: routers by source executor id, and those
        that hold messages back until a superstep ends (fan-in)."""
        self.checkpoint_registry = CheckpointTypeRegistry(
            t for e in self.executors.values() for t in e.checkpoint_types()
        )
        """The message and state types a checkpoint of this workflow may hold."""
        self.graph_signature = _graph_signature(self)
        self._run: RunState | None = None
        self._running = False

    # region introspection

    def get_start_executor(self) -> Executor:
        """The executor that receives the run's input."""
        return self.executors[self.start_executor_id]

    def get_executors_list(self) -> list[Executor]:
        """All executors, in the order they were added."""
        return list(self.executors.values())

    @property
    def type_registry(self) -> CheckpointTypeRegistry:
        """The types this workflow's values may have in checkpoints and durable records,
        and the codec between them and plain JSON (`encode`, `decode`)."""
        return self.checkpoint_registry

    @property
    def input_types(self) -> list[Any]:
        """The input types the workflow accepts (its start executor's)."""
        return self.get_start_executor().input_types

    def output_kind_of(self, executor_id: str) -> OutputKind:
        """What an executor's yields become: `"output"`, `"intermediate"`, or None (hidden)."""
        return self._output_kinds.get(executor_id, self._default_output_kind)

    @property
    def output_types(self) -> list[Any]:
        """Types of Workflow Output the output executors declare (empty when none say)."""
        found: list[object] = []
        for executor_id, executor in self.executors.items():
            if self.output_kind_of(executor_id) == "output":
                found.extend(t for t in executor.workflow_output_types or () if t not in found)
        return found

    @property
    def pending_requests(self) -> list[WorkflowEvent[Any]]:
        """`request_info` events of the requests the current run waits on."""
        if self._run is None:
            return []
        return [request.to_event() for request in self._run.pending_requests.values()]

    # endregion

    # region running

    # Not the agent or chat overloads: a workflow run returns a WorkflowRunResult or a
    # stream of WorkflowEvents and takes responses and checkpoints, so it has its own pair.
    @overload
    def run(
        self,
        message: object = None,
        *,
        stream: Literal[False] = False,
        **run_options: Unpack[WorkflowRunOptions],
    ) -> Coroutine[Any, Any, WorkflowRunResult]: ...

    @overload
    def run(
        self,
        message: object = None,
        *,
        stream: Literal[True],
        **run_options: Unpack[WorkflowRunOptions],
    ) -> ResponseStream[WorkflowEvent[Any], WorkflowRunResult]: ...

    def run(
        self,
        message: object = None,
        *,
        stream: bool = False,
        responses: Mapping[str, object] | None = None,
        checkpoint_id: str | None = None,
        checkpoint_storage: CheckpointStorage | None = None,
        include_status_events: bool = False,
    ) -> (
        Coroutine[Any, Any, WorkflowRunResult]
        | ResponseStream[WorkflowEvent[Any], WorkflowRunResult]
    ):
        """Start a run with `message`, answer pending requests, or resume from a checkpoint.

        Args:
            message: The input of a new run (for the start executor).
            stream: Return a `ResponseStream` of events instead of an awaitable result.
            responses: Answers to pending requests, by request id.
            checkpoint_id: Resume the run saved in this checkpoint (with `responses`, if
                given, answering its pending requests).
            checkpoint_storage: Where to load from and save checkpoints to (default: the
                builder's storage).
            include_status_events: Keep `"status"` events in a non-streaming result.

        Returns:
            An awaitable `WorkflowRunResult`, or with `stream=True` a `ResponseStream`
            whose final response is the `WorkflowRunResult`.

        Raises:
            WorkflowRunnerException: The arguments do not fit (see the message), or the
                start executor cannot handle `message`.
        """
        plan = self._plan(message, responses, checkpoint_id, checkpoint_storage)
        if stream:
            return ResponseStream(
                self._stream(plan),
                lambda events: WorkflowRunResult(
                    events, final_state=plan.final_state, restored_outputs=plan.restored_outputs
                ),
            )
        return self._run_to_result(plan, include_status_events)

    def _plan(
        self,
        message: object,
        responses: Mapping[str, object] | None,
        checkpoint_id: str | None,
        storage: CheckpointStorage | None,
    ) -> _Plan:
        storage = storage or self.checkpoint_storage
        if message is not None and (responses is not None or checkpoint_id is not None):
            raise WorkflowRunnerException(
                "pass either a message (a new run) or responses=/checkpoint_id= (continue a "
                "run), not both"
            )
        if message is None and responses is None and checkpoint_id is None:
            raise WorkflowRunnerException(
                "nothing to run: pass a message, responses= for pending requests, or "
                "checkpoint_id= to resume"
            )
        if checkpoint_id is not None and storage is None:
            raise WorkflowRunnerException(
                "checkpoint_id= needs a storage: pass checkpoint_storage= or build the "
                "workflow with one"
            )
        if message is not None:
            start = self.get_start_executor()
            if not start.can_handle(message):
                raise WorkflowRunnerException(
                    f"the start executor {start.id!r} has no handler for a "
                    f"{type_name(type(message))} input; it accepts "
                    f"{[type_name(t) for t in start.input_types]}"
                )
        elif checkpoint_id is None:
            self._check_continuable()
        return _Plan(message, responses, checkpoint_id, storage)

    def _check_continuable(self) -> None:
        if self._run is None:
            raise WorkflowRunnerException(
                "there is no run to continue: start one with a message, or resume one with "
                "checkpoint_id="
            )
        if self._run.failed:
            raise WorkflowRunnerException(
                "the last run failed and cannot be continued; resume it from a checkpoint "
                "with checkpoint_id=, or start a new run"
            )

    async def _prepare(self, plan: _Plan) -> tuple[RunState, list[PendingRequest]]:
        """The run to execute, and the still-pending requests to announce again."""
        if plan.message is not None:
            run = RunState()
            entry = self.get_start_executor().find_handler(plan.message)
            run.inbox[self.start_executor_id] = [(plan.message, INPUT_SOURCE, entry)]
            self._run = run
            return run, []
        if plan.checkpoint_id is not None:
            from agentry.workflows._checkpointing import load_run

            assert plan.storage is not None
            run = await load_run(self, plan.storage, plan.checkpoint_id)
            plan.restored_outputs = [data for _, data in run.outputs]
        else:
            self._check_continuable()
            assert self._run is not None
            run = self._run
        if plan.responses:
            apply_responses(run, plan.responses)
        self._run = run
        return run, list(run.pending_requests.values())

    async def save_run(self) -> WorkflowCheckpoint:
        """A checkpoint of the current run and executor state, not saved anywhere.

        Before the first run it holds the executors' initial state. With `restore_run`,
        this lets one workflow serve several conversations in turn.
        """
        from agentry.workflows._checkpointing import checkpoint_of

        self._check_idle("save its run")
        return await checkpoint_of(self, self._run or RunState())

    async def restore_run(self, checkpoint: WorkflowCheckpoint) -> None:
        """Make the run a checkpoint holds the current one, restoring executor state.

        Raises:
            WorkflowCheckpointException: The checkpoint is from another workflow or
                holds types this workflow does not know.
        """
        from agentry.workflows._checkpointing import restore_run

        self._check_idle("restore a run")
        self._run = await restore_run(self, checkpoint)

    def _check_idle(self, action: str) -> None:
        if self._running:
            raise WorkflowRunnerException(
                f"workflow {self.name!r} is running; wait for its run to end to {action}"
            )

    def _enter(self) -> None:
        if self._running:
            raise WorkflowRunnerException(
                f"workflow {self.name!r} is already running; a workflow runs one run at a "
                "time (build another instance to run in parallel)"
            )
        self._running = True

    async def _run_to_result(self, plan: _Plan, include_status_events: bool) -> WorkflowRunResult:
        self._enter()
        try:
            run, announce = await self._prepare(plan)
            events: list[WorkflowEvent[object]] = []
            runner = Runner(self, run, sink=events.append, streaming=False, storage=plan.storage)
            final = await runner.execute(announce)
        finally:
            self._running = False
        if not include_status_events:
            events = [e for e in events if e.type != "status"]
        return WorkflowRunResult(events, final_state=final, restored_outputs=plan.restored_outputs)

    async def _stream(self, plan: _Plan) -> AsyncIterator[WorkflowEvent[Any]]:
        self._enter()
        try:
            run, announce = await self._prepare(plan)
            channel = _EventChannel()
            runner = Runner(self, run, sink=channel.push, streaming=True, storage=plan.storage)
            task = asyncio.ensure_future(runner.execute(announce))
            task.add_done_callback(channel.wake)
            try:
                events = channel.events
                while True:
                    if events:
                        yield events.popleft()
                    elif task.done():
                        break
                    else:
                        await channel.wait()
                plan.final_state = task.result()
            finally:
                if not task.done():
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
        finally:
            self._running = False

    # endregion

    def as_agent(
        self, *, name: str | None = None, description: str | None = None, id: str | None = None
    ) -> WorkflowAgent:
        """This workflow as an agent: its input is the conversation, its stream the
        workflow's outputs, and its requests become approval requests.

        Raises:
            TypeError: The start executor does not accept `list[Message]`.
        """
        from agentry.workflows._workflow_agent import WorkflowAgent

        return WorkflowAgent(self, name=name, description=description, id=id)

    def __repr__(self) -> str:
        return (
            f"Workflow(name={self.name!r}, start={self.start_executor_id!r}, "
            f"executors={list(self.executors)})"
        )


class _EventChannel:
    """Events from a running task to the streaming consumer, with a cheap wake-up."""

    __slots__ = ("_waiter", "events")

    def __init__(self) -> None:
        self.events: deque[WorkflowEvent[Any]] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def push(self, event: WorkflowEvent[Any]) -> None:
        self.events.append(event)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def wake(self, _: object = None) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self) -> None:
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


def _graph_signature(workflow: Workflow) -> str:
    """A hash of the graph's shape: executors (id and class) and edges."""
    groups: list[object] = []
    for group in workflow.edge_groups:
        record: list[object] = [
            type(group).__name__,
            group.id,
            [[e.source_id, e.target_id] for e in group.edges],
        ]
        if isinstance(group, SwitchCaseEdgeGroup):
            record.append(
                [
                    [
                        "default" if isinstance(c, SwitchCaseEdgeGroupDefault) else "case",
                        c.target_id,
                    ]
                    for c in group.cases
                ]
            )
        groups.append(record)
    shape = {
        "start": workflow.start_executor_id,
        "executors": [[i, type(e).__qualname__] for i, e in workflow.executors.items()],
        "edges": groups,
    }
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()
