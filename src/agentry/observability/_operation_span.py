"""`OperationSpan`: the span of one agent run or chat call, its start time and metric
attributes, failed or finished with its response's attributes."""

from __future__ import annotations

import time

from opentelemetry.trace import Span

from agentry.observability import _state
from agentry.observability._attributes import (
    OUTPUT_MESSAGES,
    RESPONSE_FINISH_REASONS,
    RESPONSE_ID,
    USAGE_INPUT_TOKENS,
    USAGE_OUTPUT_TOKENS,
    messages_json,
)
from agentry.observability._instruments import fail_span, instruments
from agentry.types import AgentResponse, ChatResponse

__all__ = ["OperationSpan", "response_attributes"]


class OperationSpan:
    """One operation's span; a subclass starts `span` and sets `metric_attributes`."""

    span: Span
    metric_attributes: dict[str, object]

    def __init__(self) -> None:
        self.instruments = instruments()
        self.started = time.perf_counter()

    def fail(self, error: BaseException) -> None:
        """End the span as failed by `error`, and record the operation's duration."""
        fail_span(self.span, error)
        self.span.end()
        self.instruments.record_duration(self.started, self.metric_attributes, error)


def response_attributes(response: ChatResponse | AgentResponse) -> dict[str, object]:
    """What a finished operation's span ends with: the response's id, finish reason and
    token usage, and with sensitive data on its messages."""
    usage = response.usage_details or {}
    attributes: dict[str, object] = {
        RESPONSE_ID: response.response_id,
        RESPONSE_FINISH_REASONS: [response.finish_reason] if response.finish_reason else None,
        USAGE_INPUT_TOKENS: usage.get("input_token_count"),
        USAGE_OUTPUT_TOKENS: usage.get("output_token_count"),
    }
    if _state.sensitive_data:
        attributes[OUTPUT_MESSAGES] = messages_json(
            response.messages, finish_reason=response.finish_reason or "stop"
        )
    return attributes
