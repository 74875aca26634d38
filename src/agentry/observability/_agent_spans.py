"""Spans and metrics of agent runs: `invoke_agent {agent name}`, one per run of any agent."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING

from opentelemetry import trace
from opentelemetry.trace import Span

from agentry.observability import _state
from agentry.observability._attributes import (
    AGENT_DESCRIPTION,
    AGENT_ID,
    AGENT_NAME,
    CONVERSATION_ID,
    INPUT_MESSAGES,
    OPERATION_NAME,
    PROVIDER_NAME,
    REQUEST_MODEL,
    SYSTEM_INSTRUCTIONS,
    messages_json,
)
from agentry.observability._chat_spans import model_of, provider_of
from agentry.observability._instruments import end_span, step_in_span
from agentry.observability._operation_span import OperationSpan, response_attributes
from agentry.types import AgentResponse, AgentResponseUpdate, ChatOptions, Message

if TYPE_CHECKING:
    from agentry.sessions import AgentSession

__all__ = ["traced_agent_response", "traced_agent_stream"]


async def traced_agent_stream(
    agent: object,
    messages: list[Message],
    session: AgentSession | None,
    options: ChatOptions | None,
    updates: AsyncIterator[AgentResponseUpdate],
) -> AsyncIterator[AgentResponseUpdate]:
    """Stream the `updates` of one run of `agent` inside an `invoke_agent` span.

    Chat and tool spans started while the run works are its children.

    Args:
        agent: The agent: its `id`, `name`, `description`, and (when it has them) its
            `client` and `instructions` describe the run.
        messages: The run's input messages (recorded only with sensitive data on).
        session: The run's session, if any; its id is the conversation id.
        options: The run's chat options, if any (for the requested model).
        updates: The run's updates.
    """
    run = _AgentRun(agent, messages, session, options)
    seen: list[AgentResponseUpdate] = []
    iterator = step_in_span(run.span, updates, seen.append)
    try:
        async for update in iterator:
            yield update
    except GeneratorExit:  # the caller stopped early: the run ends here
        await iterator.aclose()
        run.finish(AgentResponse.from_updates(seen))
        raise
    except BaseException as error:
        run.fail(error)
        raise
    run.finish(AgentResponse.from_updates(seen))


async def traced_agent_response(
    agent: object,
    messages: list[Message],
    session: AgentSession | None,
    options: ChatOptions | None,
    response: Awaitable[AgentResponse],
) -> AgentResponse:
    """Await the `response` of one run of `agent` inside an `invoke_agent` span."""
    run = _AgentRun(agent, messages, session, options)
    try:
        with trace.use_span(
            run.span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        ):
            result = await response
    except BaseException as error:
        run.fail(error)
        raise
    run.finish(result)
    return result


class _AgentRun(OperationSpan):
    """One `invoke_agent` span with its metric attributes and start time."""

    def __init__(
        self,
        agent: object,
        messages: list[Message],
        session: AgentSession | None,
        options: ChatOptions | None,
    ) -> None:
        super().__init__()
        client = getattr(agent, "client", None)
        name: str | None = getattr(agent, "name", None)
        self.metric_attributes: dict[str, object] = {
            OPERATION_NAME: "invoke_agent",
            PROVIDER_NAME: provider_of(client) if client is not None else None,
            REQUEST_MODEL: model_of(client, options) if client is not None else None,
        }
        attributes: dict[str, object] = {
            **self.metric_attributes,
            AGENT_ID: getattr(agent, "id", None),
            AGENT_NAME: name,
            AGENT_DESCRIPTION: getattr(agent, "description", None),
            CONVERSATION_ID: getattr(session, "session_id", None),
        }
        if _state.sensitive_data:
            attributes[INPUT_MESSAGES] = messages_json(messages)
            instructions = getattr(agent, "instructions", None)
            if isinstance(instructions, str) and instructions:
                attributes[SYSTEM_INSTRUCTIONS] = messages_json([Message("system", [instructions])])
        span_name = f"invoke_agent {name}" if name else "invoke_agent"
        self.span: Span = self.instruments.start_span(span_name, attributes)

    def finish(self, response: AgentResponse) -> None:
        end_span(self.span, response_attributes(response))
        self.instruments.record_duration(self.started, self.metric_attributes)
