"""A sync tool runs in a worker thread, inside its execute_tool span."""

from __future__ import annotations

import threading

from opentelemetry import trace

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from tests.observability.conftest import Telemetry


async def test_the_current_span_inside_a_sync_tool_is_its_tool_span(
    telemetry: Telemetry,
) -> None:
    seen: list[tuple[int, int]] = []

    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        seen.append((threading.get_ident(), trace.get_current_span().get_span_context().span_id))
        return key.upper()

    client = ScriptedChatClient([ScriptedChatClient.function_call("lookup", {"key": "k"}), "K"])
    await Agent(client=client, tools=[lookup]).run("Look k up")

    tool_span = telemetry.one("execute_tool lookup")
    assert tool_span.context is not None
    ((thread, current_span_id),) = seen
    assert thread != threading.get_ident()  # it ran in a worker thread
    assert current_span_id == tool_span.context.span_id  # spans a tool opens nest under it
