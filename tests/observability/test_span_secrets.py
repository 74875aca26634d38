"""Secrets and model-chosen text in spans: exception events, span names, unknown tools."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import disable_instrumentation, enable_instrumentation
from agentry.security import Redactor
from tests.observability.conftest import Telemetry

TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4"
KEY = "sk-abcdefghijklmnopqrstuvwx"


@tool
def connect(api_key: str) -> str:
    """Connect to the service."""
    raise ValueError(f"refused token {TOKEN}")


@pytest.fixture
def redacted_telemetry() -> Iterator[Telemetry]:
    """Sensitive data on, passed through a redactor that also knows one exact secret."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    enable_instrumentation(
        enable_sensitive_data=True,
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        redact=Redactor(secrets=['pa"ss']).redact,
    )
    try:
        yield Telemetry(exporter, reader)
    finally:
        disable_instrumentation()
        tracer_provider.shutdown()
        meter_provider.shutdown()


def _recorded_text(spans: list[ReadableSpan]) -> list[str]:
    """Every span name, attribute and event attribute, as `where: text`."""
    texts: list[str] = []
    for span in spans:
        texts.append(f"{span.name} (name): {span.name}")
        texts += [f"{span.name} {k}: {v}" for k, v in (span.attributes or {}).items()]
        texts += [
            f"{span.name} {event.name}.{k}: {v}"
            for event in span.events
            for k, v in (event.attributes or {}).items()
        ]
    return texts


async def test_no_secret_reaches_a_span_through_the_redactor(redacted_telemetry: Telemetry) -> None:
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("connect", {"api_key": "live-123456"}),
            'ok, your password is pa"ss',
        ]
    )
    await Agent(client=client, tools=[connect]).run("go")

    texts = _recorded_text(redacted_telemetry.finished())
    for needle in ("live-123456", "SflKxwRJSMeKKF2QT4", 'pa\\"ss', 'pa"ss'):
        assert [t for t in texts if needle in t] == []
    assert any("[REDACTED]" in t for t in texts)


async def test_an_exception_event_keeps_its_redacted_message_and_stacktrace(
    redacted_telemetry: Telemetry,
) -> None:
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("connect", {"api_key": "k"}), "."]
    )
    await Agent(client=client, tools=[connect]).run("go")

    (event,) = redacted_telemetry.one("execute_tool connect").events
    assert event.name == "exception"
    assert event.attributes is not None
    assert event.attributes["exception.type"] == "ValueError"
    assert event.attributes["exception.message"] == "refused token [REDACTED]"
    stacktrace = str(event.attributes["exception.stacktrace"])
    assert "in connect" in stacktrace
    assert stacktrace.endswith("ValueError: refused token [REDACTED]\n")


async def test_the_name_of_an_unknown_tool_is_redacted_with_sensitive_data_on(
    redacted_telemetry: Telemetry,
) -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call(KEY, {}), "ok"])
    await Agent(client=client, tools=[connect]).run("go")

    span = redacted_telemetry.one("execute_tool [REDACTED]")
    assert span.attributes is not None
    assert span.attributes["gen_ai.tool.name"] == "[REDACTED]"
    assert [t for t in _recorded_text(redacted_telemetry.finished()) if KEY in t] == []


async def test_an_unknown_tool_gets_a_fixed_name_with_sensitive_data_off(
    telemetry: Telemetry,
) -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call(KEY, {}), "ok"])
    await Agent(client=client, tools=[connect]).run("go")

    span = telemetry.one("execute_tool (unknown tool)")
    assert span.attributes is not None
    assert span.attributes["gen_ai.tool.name"] == "(unknown tool)"
    assert span.attributes["error.type"] == "unknown_tool"
    assert [t for t in _recorded_text(telemetry.finished()) if KEY in t] == []
    tool_durations = [
        point.attributes
        for point in telemetry.histogram_points("gen_ai.client.operation.duration")
        if point.attributes.get("gen_ai.operation.name") == "execute_tool"
    ]
    assert tool_durations == [
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "(unknown tool)",
        }
    ]


async def test_without_sensitive_data_an_exception_event_has_no_message(
    telemetry: Telemetry,
) -> None:
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("connect", {"api_key": "k"}), "."]
    )
    await Agent(client=client, tools=[connect]).run("go")

    (event,) = telemetry.one("execute_tool connect").events
    assert event.attributes is not None
    assert set(event.attributes) == {"exception.type", "exception.stacktrace"}
    assert "SflKxwRJSMeKKF2QT4" not in str(event.attributes["exception.stacktrace"])
