from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentry.observability import disable_instrumentation, enable_instrumentation


@dataclass
class Telemetry:
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.finished() if s.name == name]

    def one(self, name: str) -> ReadableSpan:
        (span,) = self.named(name)
        return span

    def histogram_points(self, metric_name: str) -> list[Any]:
        data = self.metrics.get_metrics_data()
        assert data is not None
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == metric_name
            for point in metric.data.data_points  # type: ignore[union-attr]
        ]


def capture_telemetry(sensitive: bool) -> Iterator[Telemetry]:
    """Instrumentation on, spans and metrics kept in memory, until the generator closes."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    enable_instrumentation(
        enable_sensitive_data=sensitive,
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
    )
    try:
        yield Telemetry(exporter, reader)
    finally:
        disable_instrumentation()
        tracer_provider.shutdown()
        meter_provider.shutdown()


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    """Instrumentation on, sensitive data off, spans and metrics kept in memory."""
    yield from capture_telemetry(sensitive=False)


@pytest.fixture
def sensitive_telemetry() -> Iterator[Telemetry]:
    """Instrumentation on with sensitive data recorded."""
    yield from capture_telemetry(sensitive=True)
