"""The instrumentation switch: one flag the hot path reads before any telemetry work.

This module imports nothing from OpenTelemetry, so the core can read `enabled` for free.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from agentry.observability._observer import set_telemetry_observer

__all__ = [
    "disable_instrumentation",
    "enable_instrumentation",
    "enabled",
    "is_instrumentation_enabled",
    "meter_provider",
    "sensitive_data",
    "tracer_provider",
]

_TRUE = {"1", "true", "yes", "on"}

enabled: bool = os.environ.get("AGENTRY_OTEL_ENABLED", "").lower() in _TRUE
"""Whether agent runs, chat calls and tool calls produce spans and metrics."""
sensitive_data: bool = os.environ.get("AGENTRY_OTEL_SENSITIVE_DATA", "").lower() in _TRUE
"""Whether spans carry prompts, responses, tool arguments and tool results."""
tracer_provider: Any = None
"""The tracer provider to use; `None` means the global one."""
meter_provider: Any = None
"""The meter provider to use; `None` means the global one."""
redact_text: Callable[[str], str] | None = None
"""Applied to recorded text (prompts, answers, tool arguments and results), if set."""


def enable_instrumentation(
    *,
    enable_sensitive_data: bool = False,
    tracer_provider: object = None,
    meter_provider: object = None,
    redact: Callable[[str], str] | None = None,
) -> None:
    """Turn on spans and metrics, sent to the given providers (default: the global ones).

    Use this when your application sets up OpenTelemetry itself; otherwise call
    :func:`agentry.observability.configure_otel`, which also builds the providers.

    Args:
        enable_sensitive_data: Record prompts, responses, tool arguments and results.
        tracer_provider: An OpenTelemetry `TracerProvider` (default: the global one).
        meter_provider: An OpenTelemetry `MeterProvider` (default: the global one).
        redact: Applied to every recorded text attribute while sensitive data is on,
            such as `agentry.observability.Redactor().redact`.

    Example:
        >>> from agentry.observability import enable_instrumentation, disable_instrumentation
        >>> enable_instrumentation()
        >>> disable_instrumentation()
    """
    global enabled, sensitive_data, redact_text
    _set_providers(tracer_provider, meter_provider)
    sensitive_data = enable_sensitive_data
    redact_text = redact
    enabled = True
    _install_observer()


def disable_instrumentation() -> None:
    """Turn spans and metrics off again (the default)."""
    global enabled, sensitive_data, redact_text
    enabled = False
    sensitive_data = False
    redact_text = None
    _set_providers(None, None)
    set_telemetry_observer(None)


def is_instrumentation_enabled() -> bool:
    """Whether agentry currently produces spans and metrics."""
    return enabled


def _install_observer() -> None:
    from agentry.observability._otel_observer import OpenTelemetryObserver

    set_telemetry_observer(OpenTelemetryObserver())


def _set_providers(tracer: object, meter: object) -> None:
    global tracer_provider, meter_provider
    tracer_provider = tracer
    meter_provider = meter
    if "agentry.observability._instruments" in sys.modules:
        from agentry.observability._instruments import reset_instruments

        reset_instruments()


if enabled:
    _install_observer()
