"""The OpenTelemetry observer: spans and metrics following the GenAI conventions.

The span modules import OpenTelemetry, so each method loads its module on first use.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from agentry.observability import _state
from agentry.observability._observer import InvokeOne, T, TelemetryObserver
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

__all__ = ["OpenTelemetryObserver"]


class OpenTelemetryObserver(TelemetryObserver):
    """Records each observed point as an OpenTelemetry span, with its metrics."""

    def agent_response(
        self,
        agent: object,
        messages: list[Message],
        session: AgentSession | None,
        options: ChatOptions | None,
        response: Awaitable[AgentResponse],
    ) -> Awaitable[AgentResponse]:
        from agentry.observability._agent_spans import traced_agent_response

        return traced_agent_response(agent, messages, session, options, response)

    def agent_stream(
        self,
        agent: object,
        messages: list[Message],
        session: AgentSession | None,
        options: ChatOptions | None,
        updates: AsyncIterator[AgentResponseUpdate],
    ) -> AsyncIterator[AgentResponseUpdate]:
        from agentry.observability._agent_spans import traced_agent_stream

        return traced_agent_stream(agent, messages, session, options, updates)

    def chat_response(
        self,
        client: object,
        messages: list[Message],
        options: ChatOptions,
        response: Awaitable[ChatResponse],
    ) -> Awaitable[ChatResponse]:
        from agentry.observability._chat_spans import traced_chat_response

        return traced_chat_response(client, messages, options, response)

    def chat_stream(
        self,
        client: object,
        messages: list[Message],
        options: ChatOptions,
        updates: AsyncIterator[ChatResponseUpdate],
    ) -> AsyncIterator[ChatResponseUpdate]:
        from agentry.observability._chat_spans import traced_chat_stream

        return traced_chat_stream(client, messages, options, updates)

    def chat_retry(self, client: object, attempt: int, delay: float, error: BaseException) -> None:
        from agentry.observability._chat_spans import record_retry

        record_retry(attempt, delay, error)

    def tool_calls(self, invoke_one: InvokeOne) -> InvokeOne:
        from agentry.observability._tool_spans import traced_tool_call

        return traced_tool_call(invoke_one)  # pyright: ignore[reportReturnType]

    def workflow_run(self, workflow: object, run: object, execution: Awaitable[T]) -> Awaitable[T]:
        from agentry.observability._workflow_spans import traced_workflow_run

        return traced_workflow_run(workflow, run, execution)

    def superstep(self, iteration: int, step: Awaitable[None]) -> Awaitable[None]:
        from agentry.observability._workflow_spans import traced_superstep

        return traced_superstep(iteration, step)

    def executor_step(
        self,
        executor: object,
        deliveries: Sequence[object],
        failures: Sequence[tuple[str, Exception]],
        work: Awaitable[None],
    ) -> Awaitable[None]:
        from agentry.observability._workflow_spans import traced_executor

        return traced_executor(executor, deliveries, failures, work)

    def remote_call(
        self,
        name: str,
        attributes: Mapping[str, object],
        call: Coroutine[Any, Any, T],
        *,
        side: Literal["client", "server"] = "client",
        sensitive_attributes: Callable[[], Mapping[str, object]] | None = None,
    ) -> Coroutine[Any, Any, T]:
        from agentry.observability._remote_spans import traced_call

        attributes = self.remote_call_attributes(attributes, sensitive_attributes)
        return traced_call(name, attributes, call, side=side)

    @property
    def records_sensitive_data(self) -> bool:
        """Whether `enable_sensitive_data` is on."""
        return _state.sensitive_data

    def remote_task_status(self, task_id: str, status: str) -> None:
        from opentelemetry import trace

        span = trace.get_current_span()
        span.set_attribute("mcp.task.id", task_id)
        span.add_event("mcp.task.status", {"mcp.task.status": status})
