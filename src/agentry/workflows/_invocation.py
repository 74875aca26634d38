"""`Invocation` and `ExecutorInvoker`: the seam where an engine takes over handler calls.

The runner delivers each message of a superstep to one handler: that is an invocation.
By default the runner calls the handler itself. A durable-execution engine passes an
`ExecutorInvoker` instead, which runs each invocation as a recorded step (and on recovery
replays the recorded effects instead of calling the handler again). The superstep loop,
routing, fan-in, requests and events stay the runner's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agentry.workflows._errors import WorkflowRunnerException
from agentry.workflows._typing import type_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agentry.workflows._context import RunHooks, WorkflowContext
    from agentry.workflows._executor import Executor
    from agentry.workflows._handlers import HandlerEntry

__all__ = ["ExecutorInvoker", "Invocation", "Outbox", "deliver", "idempotency_key"]

Outbox = list[tuple[Any, "str | None"]]
"""What a handler sends: (message, target executor id, or None for every edge)."""


class Invocation:
    """One message through one handler of one executor, in one superstep of a run.

    Attributes:
        executor: The executor whose handler receives the message.
        message: The message (or, for a `@response_handler`, the answer on its way).
        source: Who sent it: an executor id, the ids of a fan-in, or an input marker.
        run_id: The run's id.
        iteration: The superstep's number (1 for the first).
        index: The message's place among those the executor receives in this superstep.
    """

    __slots__ = ("_entry", "executor", "index", "iteration", "message", "run_id", "source")

    def __init__(
        self,
        executor: Executor,
        message: object,
        source: str | tuple[str, ...],
        *,
        run_id: str,
        iteration: int,
        index: int,
        entry: HandlerEntry | None = None,
    ) -> None:
        self.executor = executor
        self.message = message
        self.source = source
        self.run_id = run_id
        self.iteration = iteration
        self.index = index
        self._entry = entry

    @property
    def executor_id(self) -> str:
        """The id of the executor handling the message."""
        return self.executor.id

    @property
    def is_response(self) -> bool:
        """Whether the message is an answer to a request, for a `@response_handler`."""
        from agentry.workflows._run_state import ResponseDelivery

        return isinstance(self.message, ResponseDelivery)

    @property
    def idempotency_key(self) -> str:
        """`run id/superstep/executor id/index`: the same every time this invocation runs
        again (after a resume or a recovery), and unique to it."""
        return idempotency_key(self.run_id, self.iteration, self.executor.id, self.index)

    async def run(self, ctx: WorkflowContext[object, object]) -> Any:
        """Call the handler with `ctx`; what it returns (sent on when not None).

        Raises:
            WorkflowRunnerException: The executor has no handler for the message.
        """
        if self._entry is not None:
            return await self._entry.call(self.message, ctx)
        return await deliver(self.executor, self.message, ctx)


async def deliver(executor: Executor, message: object, ctx: WorkflowContext[object, object]) -> Any:
    """Hand `message` to the executor's handler for it (or an answer to its response
    handler); what the handler returns.

    Raises:
        WorkflowRunnerException: The executor has no handler for the message.
    """
    from agentry.workflows._run_state import ResponseDelivery

    if isinstance(message, ResponseDelivery):
        await executor.deliver_response(message, ctx)
        return None
    found = executor.find_handler(message)
    if found is None:
        raise WorkflowRunnerException(
            f"executor {executor.id!r} has no handler for a "
            f"{type_name(type(message))} message; it accepts "
            f"{[type_name(t) for t in executor.input_types]}"
        )
    return await found.call(message, ctx)


def idempotency_key(run_id: str, iteration: int, executor_id: str, index: int) -> str:
    """The idempotency key of an invocation (see `Invocation.idempotency_key`)."""
    return f"{run_id}/{iteration}/{executor_id}/{index}"


class ExecutorInvoker(Protocol):
    """Runs a workflow's handler invocations in place of the runner (a durable engine).

    The runner calls `begin_superstep` with every invocation of a superstep, in a fixed
    order (executors in inbox order, each executor's messages in arrival order), then
    `invoke` for each: concurrently across executors, one at a time per executor. An
    engine that numbers its steps draws their numbers in `begin_superstep`, so that the
    numbering does not depend on timing.
    """

    def begin_superstep(self, invocations: Sequence[Invocation], hooks: RunHooks) -> None:
        """Prepare to run these invocations (all of one superstep, in a fixed order);
        `hooks.state` is the shared state as the superstep starts."""
        ...

    async def invoke(self, invocation: Invocation, hooks: RunHooks, outbox: Outbox) -> Any:
        """Run one invocation: its effects go to `hooks` and `outbox` as they would through
        `WorkflowContext(hooks, ..., outbox)`; returns the handler's return value.

        Raises:
            Exception: What the handler raised (the runner reports the executor failed).
        """
        ...
