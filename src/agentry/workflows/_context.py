"""`WorkflowContext`: what a handler may do while it handles one message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Protocol

from typing_extensions import Never, TypeVar

if TYPE_CHECKING:
    from agentry.workflows._events import WorkflowEvent

__all__ = ["RunHooks", "WorkflowContext"]

OutT = TypeVar("OutT", contravariant=True, default=Never)
WorkflowOutT = TypeVar("WorkflowOutT", contravariant=True, default=Never)


class RunHooks(Protocol):
    """The part of a running workflow that contexts talk to (implemented by the runner).

    An `ExecutorInvoker` implements it too, to record what a handler does.
    """

    streaming: bool
    state: dict[str, Any]

    @property
    def run_id(self) -> str:
        """The run's id."""
        ...

    @property
    def iteration(self) -> int:
        """The number of the superstep under way."""
        ...

    def emit(self, event: WorkflowEvent[Any]) -> None: ...

    def yield_output(self, executor_id: str, output: object) -> None: ...

    def pass_on_intermediate_output(self, executor_id: str, output: object) -> None: ...

    def request_info(
        self, executor_id: str, data: object, response_type: object, request_id: str | None
    ) -> str: ...


class WorkflowContext(Generic[OutT, WorkflowOutT]):
    """The handle a handler gets to send messages, yield outputs, share state and ask.

    The type parameters document (and let `build()` check) what the handler may send on
    (`OutT`) and yield as output (`WorkflowOutT`): `WorkflowContext` sends and yields
    nothing, `WorkflowContext[str]` sends text, `WorkflowContext[Never, str]` only yields.

    Example:
        >>> from agentry.workflows import WorkflowContext, executor
        >>> @executor(id="shout")
        ... async def shout(text: str, ctx: WorkflowContext[str, str]) -> None:
        ...     await ctx.send_message(text.upper())
        ...     await ctx.yield_output(text.upper())
    """

    __slots__ = ("_executor_id", "_index", "_outbox", "_run", "_source")

    def __init__(
        self,
        run: RunHooks,
        executor_id: str,
        source: str | tuple[str, ...],
        outbox: list[tuple[Any, str | None]],
        *,
        index: int = 0,
    ) -> None:
        self._run = run
        self._executor_id = executor_id
        self._source = source
        self._outbox = outbox
        self._index = index

    @property
    def run_hooks(self) -> RunHooks:
        """The running workflow this context reports to, for executors that run a workflow
        of their own and pass its events on synchronously as they happen."""
        return self._run

    @property
    def executor_id(self) -> str:
        """The id of the executor handling the message."""
        return self._executor_id

    @property
    def source_executor_ids(self) -> list[str]:
        """Who sent the message: one id, or every source of a fan-in."""
        source = self._source
        return [source] if isinstance(source, str) else list(source)

    @property
    def idempotency_key(self) -> str:
        """A key unique to this handler call in this run, the same each time the call runs
        again: after a resume from a checkpoint, or when a durable run recovers a step
        that was under way when its process died.

        Pass it to outside systems (a payment API's idempotency key, a unique column) so
        that a write made by a handler that runs again happens once. It reads
        `run id/superstep/executor id/index`.
        """
        from agentry.workflows._invocation import idempotency_key

        run = self._run
        return idempotency_key(run.run_id, run.iteration, self._executor_id, self._index)

    @property
    def is_streaming(self) -> bool:
        """Whether the caller streams events (agents then stream their updates)."""
        return self._run.streaming

    async def send_message(self, message: OutT, target_id: str | None = None) -> None:
        """Send `message` along this executor's edges; it arrives in the next superstep.

        Args:
            message: The message.
            target_id: Deliver only to this connected executor.
        """
        self._outbox.append((message, target_id))

    async def yield_output(self, output: WorkflowOutT) -> None:
        """Yield `output` to the caller, as Workflow Output or Intermediate Output.

        Which one (or neither) depends on the builder's `output_from` and
        `intermediate_output_from`.
        """
        self._run.yield_output(self._executor_id, output)

    async def add_event(self, event: WorkflowEvent[Any]) -> None:
        """Emit an event of the executor's own to the caller."""
        if event.executor_id is None:
            event.executor_id = self._executor_id
        self._run.emit(event)

    async def request_info(
        self, request_data: object, response_type: object, *, request_id: str | None = None
    ) -> str:
        """Ask the caller for information; the answer comes to a `@response_handler`.

        The run ends idle with pending requests once nothing else is left to do; the caller
        answers with `workflow.run(responses={request_id: answer})`.

        Args:
            request_data: What to show the caller (any value a checkpoint can hold).
            response_type: The type the answer must have.
            request_id: A chosen id (default: a random one).

        Returns:
            The request id.
        """
        return self._run.request_info(self._executor_id, request_data, response_type, request_id)

    def get_state(self, key: str, default: object = None) -> Any:
        """A value of the run's shared state, or `default`."""
        return self._run.state.get(key, default)

    def set_state(self, key: str, value: object) -> None:
        """Set a value of the run's shared state (seen by every executor, checkpointed)."""
        self._run.state[key] = value

    def has_state(self, key: str) -> bool:
        """Whether the shared state holds `key`."""
        return key in self._run.state

    def delete_state(self, key: str) -> None:
        """Remove `key` from the shared state, if present."""
        self._run.state.pop(key, None)
