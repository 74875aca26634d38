"""Each retry of a model call is an event on its chat span, plain and streamed, with the
attempt, the wait and the error's type and status: never the error's message."""

from __future__ import annotations

import pytest

from agentry import Agent, RetryPolicy
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ChatClientError, ChatClientTimeoutError
from tests.observability.conftest import Telemetry


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_each_retry_is_an_event_on_the_chat_span(telemetry: Telemetry, stream: bool) -> None:
    client = ScriptedChatClient(
        [
            ChatClientError("secret prompt echoed", status_code=429, retry_after=0.001),
            ChatClientTimeoutError("slow"),
            "Hello!",
        ],
        retry=RetryPolicy(initial_delay=0.001),
    )
    agent = Agent(client=client)

    if stream:
        await agent.run("Hi", stream=True).get_final_response()
    else:
        await agent.run("Hi")

    (chat,) = [span for span in telemetry.finished() if span.name.startswith("chat")]
    events = [dict(event.attributes or {}) for event in chat.events]
    assert [event["agentry.retry.attempt"] for event in events] == [1, 2]
    assert events[0]["agentry.retry.delay_s"] == 0.001
    assert events[0]["error.type"] == "ChatClientError"
    assert events[0]["http.response.status_code"] == 429
    assert events[1]["error.type"] == "ChatClientTimeoutError"
    assert "http.response.status_code" not in events[1]
    assert all(event.name == "agentry.chat.retry" for event in chat.events)
    assert "secret" not in str(events)
    assert chat.status.is_ok or chat.status.status_code.name == "UNSET"
