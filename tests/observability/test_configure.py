import json
import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import AgentryError
from agentry.observability import configure_otel, is_instrumentation_enabled
from tests.threaded_http import serving

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": SRC, **env},
        check=False,
    )


async def test_configure_with_an_exporter_instance_exports_spans() -> None:
    exporter = InMemorySpanExporter()
    setup = configure_otel(exporter, set_global=False, metrics=None)
    try:
        assert is_instrumentation_enabled()
        await Agent(client=ScriptedChatClient(["Hi"]), name="greeter").run("Hello")
        setup.force_flush()
        names = sorted(s.name for s in exporter.get_finished_spans())
        assert names == ["chat scripted", "invoke_agent greeter"]
        resource = exporter.get_finished_spans()[0].resource
        assert resource.attributes["service.name"] == "agentry"
    finally:
        setup.shutdown()
    assert not is_instrumentation_enabled()


def test_unknown_exporter_is_a_clear_error() -> None:
    with pytest.raises(AgentryError, match="unknown span exporter 'jaeger'"):
        configure_otel("jaeger", set_global=False)  # type: ignore[arg-type]
    assert not is_instrumentation_enabled()


def test_console_exporter_prints_spans_as_json() -> None:
    result = _python(
        "import asyncio\n"
        "from agentry import Agent\n"
        "from agentry.clients.scripted import ScriptedChatClient\n"
        "from agentry.observability import configure_otel\n"
        "setup = configure_otel('console', metrics=None)\n"
        "asyncio.run(Agent(client=ScriptedChatClient(['Hi']), name='bot').run('Hello'))\n"
        "setup.shutdown()\n"
    )
    assert result.returncode == 0, result.stderr
    assert '"name": "invoke_agent bot"' in result.stdout
    assert '"gen_ai.operation.name": "chat"' in result.stdout


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, int]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        self.received.append((self.path, self.headers.get("Content-Type", ""), length))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    _Collector.received = []
    with serving(_Collector) as url:
        yield url


def test_otlp_exporter_posts_traces_and_metrics_to_the_collector(collector: str) -> None:
    result = _python(
        "import asyncio\n"
        "from agentry import Agent\n"
        "from agentry.clients.scripted import ScriptedChatClient\n"
        "from agentry.observability import configure_otel\n"
        f"setup = configure_otel('otlp', endpoint={collector!r})\n"
        "asyncio.run(Agent(client=ScriptedChatClient(['Hi']), name='bot').run('Hello'))\n"
        "setup.shutdown()\n"
    )
    assert result.returncode == 0, result.stderr
    paths = {path for path, _, _ in _Collector.received}
    assert paths == {"/v1/traces", "/v1/metrics"}
    assert all(
        kind == "application/x-protobuf" and size > 0 for _, kind, size in _Collector.received
    )


def test_instrumentation_off_never_imports_opentelemetry() -> None:
    result = _python(
        "import asyncio, sys\n"
        "from agentry import Agent, tool\n"
        "from agentry.clients.scripted import ScriptedChatClient\n"
        "@tool\n"
        "def add(a: int, b: int) -> int:\n"
        "    '''Add.'''\n"
        "    return a + b\n"
        "client = ScriptedChatClient([ScriptedChatClient.function_call('add', {'a': 1, 'b': 2}),"
        " '3'])\n"
        "asyncio.run(Agent(client=client, tools=[add]).run('1+2?'))\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.replace("'", '"')) == []


def test_environment_variable_turns_instrumentation_on() -> None:
    result = _python(
        "from agentry.observability import is_instrumentation_enabled\n"
        "print(is_instrumentation_enabled())\n",
        AGENTRY_OTEL_ENABLED="true",
    )
    assert result.stdout.strip() == "True"


def test_observability_example_prints_the_span_tree() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "observability.py"
    result = subprocess.run(
        [sys.executable, str(example)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": SRC},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "It is sunny in Paris.",
        "invoke_agent weather  (output tokens: 7)",
        "  chat demo-model",
        "  execute_tool get_weather",
        "  chat demo-model  (output tokens: 7)",
    ]
