"""Spans and metrics of agent runs: `invoke_agent {agent name}`, one per run."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from agentry.observability import _state
from agentry.observability._attributes import (
    AGENT_DESCRIPTION,
    AGENT_ID,
    AGENT_NAME,
    CONVERSATION_ID,
    INPUT_MESSAGES,
    OPERATION_NAME,
    OUTPUT_MESSAGES,
    PROVIDER_NAME,
    REQUEST_MODEL,
    RESPONSE_FINISH_REASONS,
    RESPONSE_ID,
    SYSTEM_INSTRUCTIONS,
    USAGE_INPUT_TOKENS,
    USAGE_OUTPUT_TOKENS,
    messages_json,
)
from agentry.observability._instruments import end_span, fail_span, instruments, step_in_span
from agentry.types import AgentResponse, AgentResponseUpdate, Message

__all__ = ["traced_agent_run"]


async def traced_agent_run(
    agent: Any,
    messages: list[Message],
    updates: AsyncIterator[AgentResponseUpdate],
    *,
    response: Callable[[], AgentResponse],
    session: Any = None,
    provider: str | None = None,
    model: str | None = None,
    instructions: str | None = None,
) -> AsyncIterator[AgentResponseUpdate]:
    """Stream the `updates` of one run of `agent` inside an `invoke_agent` span.

    Chat and tool spans started while the run works are its children.

    Args:
        agent: The agent (its `id`, `name` and `description` become attributes).
        messages: The run's input messages (recorded only with sensitive data on).
        updates: The run's updates.
        response: Returns the run's response so far (called when the run ends).
        session: The run's session; its id is the conversation id.
        provider: The model provider's name, when the agent has one.
        model: The requested model, when known.
        instructions: The agent's instructions (recorded only with sensitive data on).
    """
    recorder = instruments()
    name: str | None = getattr(agent, "name", None)
    metric_attributes: dict[str, Any] = {
        OPERATION_NAME: "invoke_agent",
        PROVIDER_NAME: provider,
        REQUEST_MODEL: model,
    }
    attributes: dict[str, Any] = {
        **metric_attributes,
        AGENT_ID: getattr(agent, "id", None),
        AGENT_NAME: name,
        AGENT_DESCRIPTION: getattr(agent, "description", None),
        CONVERSATION_ID: getattr(session, "session_id", None),
    }
    if _state.sensitive_data:
        attributes[INPUT_MESSAGES] = messages_json(messages)
        if instructions:
            attributes[SYSTEM_INSTRUCTIONS] = messages_json([Message("system", [instructions])])
    span = recorder.start_span(f"invoke_agent {name}" if name else "invoke_agent", attributes)
    started = time.perf_counter()
    iterator = step_in_span(span, updates, _ignore)
    try:
        async for update in iterator:
            yield update
    except GeneratorExit:  # the caller stopped early: the run ends here
        await iterator.aclose()
        _finish(span, response(), recorder, started, metric_attributes)
        raise
    except BaseException as error:
        fail_span(span, error)
        span.end()
        recorder.record_duration(started, metric_attributes, error)
        raise
    _finish(span, response(), recorder, started, metric_attributes)


def _ignore(update: AgentResponseUpdate) -> None:
    pass


def _finish(
    span: Any,
    response: AgentResponse,
    recorder: Any,
    started: float,
    metric_attributes: dict[str, Any],
) -> None:
    usage: dict[str, Any] = dict(response.usage_details or {})
    attributes: dict[str, Any] = {
        RESPONSE_ID: response.response_id,
        RESPONSE_FINISH_REASONS: [response.finish_reason] if response.finish_reason else None,
        USAGE_INPUT_TOKENS: usage.get("input_token_count"),
        USAGE_OUTPUT_TOKENS: usage.get("output_token_count"),
    }
    if _state.sensitive_data:
        attributes[OUTPUT_MESSAGES] = messages_json(
            response.messages, finish_reason=response.finish_reason or "stop"
        )
    end_span(span, attributes)
    recorder.record_duration(started, metric_attributes)
