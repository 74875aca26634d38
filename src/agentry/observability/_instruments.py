"""The tracer, the histograms, and the span helpers shared by agent, chat and tool spans.

Imported only once instrumentation is enabled: it imports OpenTelemetry.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from typing import Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agentry._version import __version__
from agentry.observability import _state
from agentry.observability._attributes import (
    ERROR_TYPE,
    OPERATION_DURATION,
    TIME_TO_FIRST_CHUNK,
    TOKEN_TYPE,
    TOKEN_USAGE,
)
from agentry.observability._exceptions import exception_attributes

__all__ = [
    "Instruments",
    "end_span",
    "fail_span",
    "instruments",
    "reset_instruments",
    "step_in_span",
]

T = TypeVar("T")

_TOKEN_BUCKETS = [4**n for n in range(14)]  # 1 .. 67M, as the conventions advise
_DURATION_BUCKETS = [0.01 * 2**n for n in range(14)]  # 10 ms .. 82 s


class Instruments:
    """The tracer and histograms of one pair of providers."""

    def __init__(self, tracer_provider: Any, meter_provider: Any) -> None:
        tracer_source = tracer_provider or trace.get_tracer_provider()
        meter_source = meter_provider or metrics.get_meter_provider()
        self.tracer = tracer_source.get_tracer("agentry", __version__)
        meter = meter_source.get_meter("agentry", __version__)
        self.token_usage = meter.create_histogram(
            TOKEN_USAGE,
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        )
        self.operation_duration = meter.create_histogram(
            OPERATION_DURATION,
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )
        self.time_to_first_chunk = meter.create_histogram(
            TIME_TO_FIRST_CHUNK,
            unit="s",
            description="Time to receive the first chunk of a streamed response.",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )

    def start_span(
        self, name: str, attributes: Mapping[str, object], *, kind: SpanKind = SpanKind.INTERNAL
    ) -> Span:
        """A started span, child of the current one (its name redacted like its text)."""
        redact = _redactor()
        if redact is not None:
            name = redact(name)
        return self.tracer.start_span(name, kind=kind, attributes=_clean(attributes))

    def record_tokens(
        self, usage: Mapping[str, object] | None, attributes: Mapping[str, object]
    ) -> None:
        """Record input and output token counts, when known."""
        if not usage:
            return
        base = _clean(attributes)
        for key, token_type in (("input_token_count", "input"), ("output_token_count", "output")):
            count = usage.get(key)
            if isinstance(count, int):
                self.token_usage.record(count, {**base, TOKEN_TYPE: token_type})

    def record_first_chunk(self, started: float, attributes: Mapping[str, object]) -> None:
        """Record the time from `started` to the first chunk of a stream."""
        self.time_to_first_chunk.record(time.perf_counter() - started, _clean(attributes))

    def record_duration(
        self, started: float, attributes: Mapping[str, object], error: BaseException | None = None
    ) -> None:
        """Record the time since `started` (a `time.perf_counter()` value)."""
        base = _clean(attributes)
        if error is not None:
            base[ERROR_TYPE] = type(error).__qualname__
        self.operation_duration.record(time.perf_counter() - started, base)


_cache: Instruments | None = None


def instruments() -> Instruments:
    """The instruments for the configured providers (built once, then reused)."""
    global _cache
    if _cache is None:
        _cache = Instruments(_state.tracer_provider, _state.meter_provider)
    return _cache


def reset_instruments() -> None:
    """Forget the cached instruments (the providers changed)."""
    global _cache
    _cache = None


def fail_span(span: Span, error: BaseException) -> None:
    """Mark `span` as failed by `error` and record it as an `exception` event: its type and
    frames, and only with sensitive data enabled its message and full traceback (both
    passed through the redactor)."""
    span.set_attribute(ERROR_TYPE, type(error).__qualname__)
    span.set_status(Status(StatusCode.ERROR, type(error).__qualname__))
    # The event `span.record_exception` would add, but with text that honours the
    # sensitive-data setting and the redactor.
    span.add_event(
        "exception",
        exception_attributes(error, sensitive=_state.sensitive_data, redact=_redactor()),
    )


def end_span(span: Span, attributes: Mapping[str, object]) -> None:
    """Set the final attributes of `span` and end it."""
    span.set_attributes(_clean(attributes))
    span.end()


async def step_in_span(
    span: Span,
    source: AsyncIterator[T],
    on_item: Callable[[T], None],
) -> AsyncGenerator[T, None]:
    """Iterate `source` with `span` current only while `source` works, not while the
    consumer handles each item (so attaching and detaching always pair up)."""
    span_context = trace.set_span_in_context(span)
    try:
        while True:
            token = otel_context.attach(span_context)
            try:
                item = await source.__anext__()
            except StopAsyncIteration:
                return
            finally:
                otel_context.detach(token)
            on_item(item)
            yield item
    finally:
        close = getattr(source, "aclose", None)
        if close is not None:
            await close()


def _redactor() -> Callable[[str], str] | None:
    """The redactor recorded text passes through: set, and sensitive data on."""
    return _state.redact_text if _state.sensitive_data else None


def _clean(attributes: Mapping[str, object]) -> dict[str, Any]:
    """Attributes without the unknown (`None`) values OpenTelemetry rejects; with sensitive
    data on and a redactor set, text values pass through the redactor."""
    redact = _redactor()
    if redact is None:
        return {k: v for k, v in attributes.items() if v is not None}
    return {
        k: redact(v) if isinstance(v, str) else v for k, v in attributes.items() if v is not None
    }
