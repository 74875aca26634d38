"""The telemetry observer: the few points where agentry's core reports its work.

The core calls the current observer at each point (an agent run, a chat call, a batch of
tool calls, a workflow run, superstep and executor step, a remote call). The default
observer hands everything back unchanged, so telemetry that is off costs one method call;
`enable_instrumentation()` (or `configure_otel()`) installs the OpenTelemetry observer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from agentry.types import (
    AgentResponse,
    AgentResponseUpdate,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Message,
)

if TYPE_CHECKING:
    from agentry.sessions import AgentSession

__all__ = ["TelemetryObserver", "get_telemetry_observer", "set_telemetry_observer"]

T = TypeVar("T")
InvokeOne = TypeVar("InvokeOne", bound=Callable[..., Awaitable[Any]])


class TelemetryObserver:
    """Watches agent runs, model calls, tool calls, workflows and remote calls.

    Each method receives the work about to happen and returns it, wrapped or as it is;
    this base class returns it as it is. Subclass it and install the subclass with
    :func:`set_telemetry_observer` to trace runs with something other than OpenTelemetry.

    Example:
        >>> class CountingObserver(TelemetryObserver):
        ...     runs = 0
        ...     def agent_response(self, agent, messages, session, options, response):
        ...         CountingObserver.runs += 1
        ...         return response
    """

    def agent_response(
        self,
        agent: object,
        messages: list[Message],
        session: AgentSession | None,
        options: ChatOptions | None,
        response: Awaitable[AgentResponse],
    ) -> Awaitable[AgentResponse]:
        """A non-streaming agent run, after agent middleware."""
        return response

    def agent_stream(
        self,
        agent: object,
        messages: list[Message],
        session: AgentSession | None,
        options: ChatOptions | None,
        updates: AsyncIterator[AgentResponseUpdate],
    ) -> AsyncIterator[AgentResponseUpdate]:
        """A streaming agent run, after agent middleware."""
        return updates

    def chat_response(
        self,
        client: object,
        messages: list[Message],
        options: ChatOptions,
        response: Awaitable[ChatResponse],
    ) -> Awaitable[ChatResponse]:
        """A non-streaming call of a chat client."""
        return response

    def chat_stream(
        self,
        client: object,
        messages: list[Message],
        options: ChatOptions,
        updates: AsyncIterator[ChatResponseUpdate],
    ) -> AsyncIterator[ChatResponseUpdate]:
        """A streaming call of a chat client."""
        return updates

    def chat_retry(self, client: object, attempt: int, delay: float, error: BaseException) -> None:
        """A chat call's `attempt` (1 for the first) failed with `error`; the client tries
        again in `delay` seconds. Called inside the call's own `chat_*` work."""

    def tool_calls(self, invoke_one: InvokeOne) -> InvokeOne:
        """The function that runs one tool call of a batch (its arguments are the call's
        `Content` and the tools by name, then more)."""
        return invoke_one

    def workflow_run(self, workflow: object, run: object, execution: Awaitable[T]) -> Awaitable[T]:
        """A workflow run: `run` is its state, `execution` the run itself."""
        return execution

    def superstep(self, iteration: int, step: Awaitable[None]) -> Awaitable[None]:
        """One superstep of a workflow run."""
        return step

    def executor_step(
        self,
        executor: object,
        deliveries: Sequence[object],
        failures: Sequence[tuple[str, Exception]],
        work: Awaitable[None],
    ) -> Awaitable[None]:
        """An executor handling the messages delivered to it in a superstep."""
        return work

    def remote_call(
        self,
        name: str,
        attributes: Mapping[str, object],
        call: Coroutine[Any, Any, T],
        *,
        side: Literal["client", "server"] = "client",
        sensitive_attributes: Callable[[], Mapping[str, object]] | None = None,
    ) -> Coroutine[Any, Any, T]:
        """A call over MCP or A2A, made (`client`) or answered (`server`).

        `sensitive_attributes` computes the attributes that carry user data (tool
        arguments, for example); `remote_call_attributes` adds them when this observer
        records such data.
        """
        return call

    @property
    def records_sensitive_data(self) -> bool:
        """Whether this observer records user data: prompts, responses, tool arguments."""
        return False

    def remote_call_attributes(
        self,
        attributes: Mapping[str, object],
        sensitive_attributes: Callable[[], Mapping[str, object]] | None,
    ) -> Mapping[str, object]:
        """A remote call's attributes, with its sensitive ones if this observer records
        user data (`sensitive_attributes` is called only then)."""
        if sensitive_attributes is None or not self.records_sensitive_data:
            return attributes
        return {**attributes, **sensitive_attributes()}

    def remote_task_status(self, task_id: str, status: str) -> None:
        """A long-running remote task the current call follows changed status."""


_NO_OBSERVER = TelemetryObserver()
_current: TelemetryObserver = _NO_OBSERVER


def get_telemetry_observer() -> TelemetryObserver:
    """The observer the core reports to (the do-nothing base while telemetry is off)."""
    return _current


def set_telemetry_observer(observer: TelemetryObserver | None) -> None:
    """Report to `observer` from now on; `None` restores the do-nothing observer."""
    global _current
    _current = observer or _NO_OBSERVER
