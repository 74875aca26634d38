"""A served A2A request is a server span, with the agent's run nested under it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from agentry.observability import disable_instrumentation, enable_instrumentation

from .conftest import a2a_client, serve
from .helpers import adding_agent, script_addition, send_blocking, user_message

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    enable_instrumentation(tracer_provider=provider)
    try:
        yield exporter
    finally:
        disable_instrumentation()
        provider.shutdown()


async def test_served_requests_are_server_spans(spans: InMemorySpanExporter) -> None:
    agent, model = adding_agent()
    script_addition(model)
    async with serve(agent) as server, a2a_client(server.url, "JSONRPC", streaming=False) as client:
        task = await send_blocking(client, user_message("What is 2 + 3?"))
    finished = {s.name: s for s in spans.get_finished_spans()}
    served = next(s for name, s in finished.items() if name.startswith("SendMessage"))
    assert served.kind == SpanKind.SERVER
    assert served.attributes is not None
    assert served.attributes["a2a.task.id"] == task.id
    assert served.attributes["a2a.context.id"] == task.context_id
    run = next(s for name, s in finished.items() if name.startswith("invoke_agent"))
    assert run.parent is not None
    assert served.context is not None
    assert run.parent.span_id == served.context.span_id
