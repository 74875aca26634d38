"""`configure_otel`: one call to send agentry's spans and metrics somewhere."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Union, cast

from agentry.errors import AgentryError, MissingExtraError
from agentry.observability import _state

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

__all__ = ["ExporterChoice", "OtelSetup", "configure_otel"]

ExporterChoice = Union[Literal["console", "otlp"], "SpanExporter"]
"""Where spans go: `"console"` (stdout), `"otlp"` (an OTLP/HTTP collector), or an exporter."""
MetricsChoice = Union[Literal["console", "otlp", "auto"], "MetricReader", None]


@dataclass
class OtelSetup:
    """The providers `configure_otel` built. Call `shutdown()` before the program ends
    to flush what is still buffered."""

    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def force_flush(self) -> None:
        """Export every finished span and the current metrics now."""
        self.tracer_provider.force_flush()
        self.meter_provider.force_flush()

    def shutdown(self) -> None:
        """Flush, stop the exporters and turn instrumentation off."""
        if _state.tracer_provider is self.tracer_provider:
            _state.disable_instrumentation()
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def configure_otel(
    exporter: ExporterChoice | Sequence[ExporterChoice] = "console",
    *,
    enable_sensitive_data: bool = False,
    endpoint: str | None = None,
    service_name: str = "agentry",
    metrics: MetricsChoice = "auto",
    set_global: bool = True,
    redact: Callable[[str], str] | None = None,
) -> OtelSetup:
    """Export agentry's spans and metrics, following the GenAI semantic conventions.

    Args:
        exporter: `"console"`, `"otlp"` (OTLP over HTTP, needs the `otel` extra's exporter),
            an OpenTelemetry `SpanExporter`, or several of these.
        enable_sensitive_data: Also record prompts, responses, tool arguments and results.
        endpoint: The OTLP collector's base URL (default: the `OTEL_EXPORTER_OTLP_*`
            environment variables, else `http://localhost:4318`).
        service_name: The `service.name` of the exported resource.
        metrics: `"console"`, `"otlp"`, a `MetricReader`, or `None` for no metrics;
            `"auto"` follows the first of `exporter` when it is a name, else no metrics.
        set_global: Also make the providers OpenTelemetry's global ones (if none is set yet),
            so other instrumented libraries share them.
        redact: Applied to every recorded text while sensitive data is on, such as
            `agentry.observability.Redactor().redact`.

    Returns:
        The providers, to flush or shut down.

    Raises:
        MissingExtraError: OpenTelemetry (or its OTLP exporter) is not installed.
        AgentryError: `exporter` or `metrics` is not one of the choices above.

    Example:
        >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
        ...     InMemorySpanExporter)
        >>> setup = configure_otel(InMemorySpanExporter())
        >>> setup.shutdown()
    """
    try:
        from opentelemetry import metrics as otel_metrics
        from opentelemetry import trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError as error:
        raise MissingExtraError("OpenTelemetry export", "otel") from error

    exporters: list[ExporterChoice] = (
        [exporter]
        if isinstance(exporter, str) or not isinstance(exporter, Sequence)
        else [*exporter]
    )
    if not exporters:
        raise AgentryError("configure_otel needs at least one exporter: 'console' or 'otlp'")
    resource = Resource.create({"service.name": service_name})
    tracer_provider = TracerProvider(resource=resource)
    for choice in exporters:
        tracer_provider.add_span_processor(_span_processor(choice, endpoint))
    if metrics == "auto":
        metrics = exporters[0] if isinstance(exporters[0], str) else None
    readers = [] if metrics is None else [_metric_reader(metrics, endpoint)]
    meter_provider = MeterProvider(resource=resource, metric_readers=readers)
    if set_global:
        _set_global(trace, otel_metrics, tracer_provider, meter_provider)
    _state.enable_instrumentation(
        enable_sensitive_data=enable_sensitive_data,
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        redact=redact,
    )
    return OtelSetup(tracer_provider, meter_provider)


def _span_processor(choice: ExporterChoice, endpoint: str | None) -> Any:
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
        SpanExporter,
    )

    if choice == "console":
        return SimpleSpanProcessor(ConsoleSpanExporter())
    if choice == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as error:
            raise MissingExtraError("OTLP export", "otel") from error
        url = f"{endpoint.rstrip('/')}/v1/traces" if endpoint else None
        return BatchSpanProcessor(OTLPSpanExporter(endpoint=url))
    if not isinstance(cast(object, choice), SpanExporter):
        raise AgentryError(
            f"unknown span exporter {choice!r}: "
            "use 'console', 'otlp' or an OpenTelemetry SpanExporter"
        )
    return BatchSpanProcessor(choice)


def _metric_reader(choice: Any, endpoint: str | None) -> Any:
    from opentelemetry.sdk.metrics.export import (
        ConsoleMetricExporter,
        MetricReader,
        PeriodicExportingMetricReader,
    )

    if choice == "console":
        return PeriodicExportingMetricReader(ConsoleMetricExporter())
    if choice == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
                OTLPMetricExporter,
            )
        except ImportError as error:
            raise MissingExtraError("OTLP export", "otel") from error
        url = f"{endpoint.rstrip('/')}/v1/metrics" if endpoint else None
        return PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=url))
    if isinstance(choice, MetricReader):
        return choice
    raise AgentryError(
        f"unknown metrics choice {choice!r}: use 'console', 'otlp', a MetricReader or None"
    )


def _set_global(trace: Any, otel_metrics: Any, tracer_provider: Any, meter_provider: Any) -> None:
    """Install the providers globally unless the application already did."""
    from opentelemetry.metrics import NoOpMeterProvider
    from opentelemetry.trace import NoOpTracerProvider, ProxyTracerProvider

    if isinstance(trace.get_tracer_provider(), (ProxyTracerProvider, NoOpTracerProvider)):
        trace.set_tracer_provider(tracer_provider)
    current_meter = otel_metrics.get_meter_provider()
    if isinstance(current_meter, NoOpMeterProvider) or type(current_meter).__name__.startswith(
        "_Proxy"
    ):
        otel_metrics.set_meter_provider(meter_provider)
