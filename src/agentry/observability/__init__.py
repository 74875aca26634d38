"""Observability: OpenTelemetry spans and metrics (GenAI semantic conventions), logging,
and the redaction that keeps secrets out of both.

Telemetry is off until you turn it on, and costs nothing while off: OpenTelemetry is only
imported once it is enabled.

Example:
    >>> from agentry.observability import configure_otel
    >>> setup = configure_otel("console")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentry.errors import lazy_exports
from agentry.observability._configure import ExporterChoice, OtelSetup, configure_otel
from agentry.observability._logging import (
    configure_logging,
    get_logger,
    is_sensitive_logging_enabled,
    log_failure,
)
from agentry.observability._observer import (
    TelemetryObserver,
    get_telemetry_observer,
    set_telemetry_observer,
)
from agentry.observability._redaction import DEFAULT_PATTERNS, RedactingFilter, Redactor
from agentry.observability._state import (
    disable_instrumentation,
    enable_instrumentation,
    is_instrumentation_enabled,
)

__all__ = [
    "DEFAULT_PATTERNS",
    "ExporterChoice",
    "OtelSetup",
    "RedactingFilter",
    "Redactor",
    "TelemetryObserver",
    "configure_logging",
    "configure_otel",
    "disable_instrumentation",
    "enable_instrumentation",
    "get_logger",
    "get_telemetry_observer",
    "is_instrumentation_enabled",
    "is_sensitive_logging_enabled",
    "log_failure",
    "set_telemetry_observer",
    "traced_call",
]

if TYPE_CHECKING:
    from agentry.observability._remote_spans import traced_call


# `traced_call` loads on first use: it imports OpenTelemetry.
__getattr__, __dir__ = lazy_exports(
    __name__, {"traced_call": "agentry.observability._remote_spans"}
)
