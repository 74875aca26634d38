"""Spans and metrics of chat calls: `chat {model}`, one per model call."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Sequence

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

from agentry.observability import _state
from agentry.observability._attributes import (
    CONVERSATION_ID,
    ERROR_TYPE,
    INPUT_MESSAGES,
    OPERATION_NAME,
    PROVIDER_NAME,
    REQUEST_MAX_TOKENS,
    REQUEST_MODEL,
    REQUEST_SEED,
    REQUEST_STOP_SEQUENCES,
    REQUEST_STREAM,
    REQUEST_TEMPERATURE,
    REQUEST_TOP_P,
    RESPONSE_MODEL,
    SYSTEM_INSTRUCTIONS,
    messages_json,
)
from agentry.observability._instruments import end_span, step_in_span
from agentry.observability._operation_span import OperationSpan, response_attributes
from agentry.types import ChatOptions, ChatResponse, ChatResponseUpdate, Message

__all__ = [
    "RETRY_EVENT",
    "model_of",
    "provider_of",
    "record_retry",
    "traced_chat_response",
    "traced_chat_stream",
]

RETRY_EVENT = "agentry.chat.retry"
"""The chat span's event for a failed attempt that is tried again."""


def provider_of(client: object) -> str:
    """The provider name of a chat client, as the conventions spell it."""
    return str(getattr(client, "OTEL_PROVIDER_NAME", None) or "unknown")


def model_of(client: object, options: ChatOptions | None) -> str | None:
    """The requested model: from the options, else the client's own setting."""
    model = (options or {}).get("model")
    if model is None:
        model = getattr(client, "model_id", None) or getattr(client, "model", None)
    return model if isinstance(model, str) else None


async def traced_chat_response(
    client: object,
    messages: list[Message],
    options: ChatOptions,
    response: Awaitable[ChatResponse],
) -> ChatResponse:
    """Await `response` inside a chat span."""
    call = _ChatCall(client, messages, options, stream=False)
    try:
        with trace.use_span(
            call.span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        ):
            result = await response
    except BaseException as error:
        call.fail(error)
        raise
    call.finish(result)
    return result


async def traced_chat_stream(
    client: object,
    messages: list[Message],
    options: ChatOptions,
    updates: AsyncIterator[ChatResponseUpdate],
) -> AsyncIterator[ChatResponseUpdate]:
    """Stream `updates` inside a chat span that ends with the stream."""
    call = _ChatCall(client, messages, options, stream=True)
    seen: list[ChatResponseUpdate] = []

    def collect(update: ChatResponseUpdate) -> None:
        if not seen:
            call.instruments.record_first_chunk(call.started, call.metric_attributes)
        seen.append(update)

    iterator = step_in_span(call.span, updates, collect)
    try:
        async for update in iterator:
            yield update
    except GeneratorExit:  # the consumer stopped early: what was seen is the response
        await iterator.aclose()
        call.finish(_fold(seen, options))
        raise
    except BaseException as error:
        call.fail(error)
        raise
    call.finish(_fold(seen, options))


def record_retry(attempt: int, delay: float, error: BaseException) -> None:
    """Add a retry event to the current chat span: the failed attempt, the wait before
    the next one, and the error's type and HTTP status (never its message)."""
    attributes: dict[str, object] = {
        "agentry.retry.attempt": attempt,
        "agentry.retry.delay_s": delay,
        ERROR_TYPE: type(error).__name__,
    }
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        attributes["http.response.status_code"] = status
    trace.get_current_span().add_event(RETRY_EVENT, attributes)  # pyright: ignore[reportArgumentType]


def _fold(updates: list[ChatResponseUpdate], options: ChatOptions) -> ChatResponse:
    return ChatResponse.from_updates(updates, response_format=options.get("response_format"))


class _ChatCall(OperationSpan):
    """One chat span with its metric attributes and start time."""

    def __init__(
        self, client: object, messages: list[Message], options: ChatOptions, *, stream: bool
    ) -> None:
        super().__init__()
        model = model_of(client, options)
        self.metric_attributes: dict[str, object] = {
            OPERATION_NAME: "chat",
            PROVIDER_NAME: provider_of(client),
            REQUEST_MODEL: model,
        }
        attributes: dict[str, object] = {
            **self.metric_attributes,
            REQUEST_TEMPERATURE: options.get("temperature"),
            REQUEST_TOP_P: options.get("top_p"),
            REQUEST_MAX_TOKENS: options.get("max_tokens"),
            REQUEST_SEED: options.get("seed"),
            REQUEST_STOP_SEQUENCES: _stop_sequences(options.get("stop")),
            REQUEST_STREAM: stream,
            CONVERSATION_ID: options.get("conversation_id"),
        }
        if _state.sensitive_data:
            attributes[INPUT_MESSAGES] = messages_json(messages)
            instructions = options.get("instructions")
            if instructions:
                attributes[SYSTEM_INSTRUCTIONS] = messages_json([Message("system", [instructions])])
        name = f"chat {model}" if model else "chat"
        self.span: Span = self.instruments.start_span(name, attributes, kind=SpanKind.CLIENT)

    def finish(self, response: ChatResponse) -> None:
        usage: dict[str, object] = dict(response.usage_details or {})
        end_span(self.span, {**response_attributes(response), RESPONSE_MODEL: response.model})
        metric_attributes = {**self.metric_attributes, RESPONSE_MODEL: response.model}
        self.instruments.record_duration(self.started, metric_attributes)
        self.instruments.record_tokens(usage, metric_attributes)


def _stop_sequences(stop: str | Sequence[str] | None) -> list[str] | None:
    if stop is None:
        return None
    if isinstance(stop, str):
        return [stop]
    return [str(s) for s in stop]
