"""The retry policy of chat clients, on the scripted model double and a custom client:
what is retried, how long it waits, where it is configured, what it logs."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from agentry import (
    Agent,
    BaseChatClient,
    ChatOptions,
    ChatResponseUpdate,
    Message,
    RetryPolicy,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.clients.sdk_errors import retry_after_seconds
from agentry.errors import (
    ChatClientConnectionError,
    ChatClientError,
    ChatClientTimeoutError,
    StreamInterruptedError,
)
from agentry.types import is_transient_error
from tests.clients.answers import BreaksAfterText, read_texts, respond

FAST = RetryPolicy(initial_delay=0.001, max_delay=0.002)


def busy(status: int = 503, **usage: int) -> ChatClientError:
    return ChatClientError("busy", status_code=status, usage_details=usage or None)


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (ChatClientError("rate limited", status_code=429), True),
        (ChatClientError("request timeout", status_code=408), True),
        (ChatClientError("bad gateway", status_code=502), True),
        (ChatClientError("overloaded", status_code=529), True),
        (ChatClientTimeoutError("slow"), True),
        (ChatClientConnectionError("refused"), True),
        (ChatClientError("bad request", status_code=400), False),
        (ChatClientError("bad key", status_code=401), False),
        (ChatClientError("conflict", status_code=409), False),
        (ChatClientError("no status"), False),
        (StreamInterruptedError("cut", updates_received=2, status_code=500), False),
        (ValueError("not a client error"), False),
    ],
)
def test_only_passing_failures_are_transient(error: Exception, transient: bool) -> None:
    assert is_transient_error(error) is transient


def test_the_backoff_is_full_jitter_under_a_growing_capped_ceiling() -> None:
    policy = RetryPolicy(initial_delay=0.5, multiplier=2.0, max_delay=3.0)
    error = busy()

    ceilings = [policy.delay(error, retry, draw=lambda: 1.0) for retry in range(1, 6)]
    floors = [policy.delay(error, retry, draw=lambda: 0.0) for retry in range(1, 6)]

    assert ceilings == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert floors == [0.0] * 5
    assert 0 <= policy.delay(error, 2) <= 1.0


def test_retry_after_replaces_the_backoff() -> None:
    error = ChatClientError("slow down", status_code=429, retry_after=7.5)
    assert RetryPolicy().delay(error, 1) == 7.5


def test_retry_after_headers_in_milliseconds_seconds_and_dates() -> None:
    in_ten = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=10), usegmt=True)
    past = format_datetime(datetime.now(timezone.utc) - timedelta(seconds=10), usegmt=True)

    assert retry_after_seconds({"Retry-After-Ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert 8 < (retry_after_seconds({"retry-after": in_ten}) or 0) <= 10
    assert retry_after_seconds({"retry-after": past}) == 0.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


@pytest.mark.parametrize(
    ("bounds", "named"),
    [
        ({"max_attempts": 0}, "max_attempts=0"),
        ({"initial_delay": -1}, "initial_delay=-1"),
        ({"max_elapsed": -5}, "max_elapsed=-5"),
        ({"multiplier": 0.5}, "multiplier=0.5"),
    ],
)
def test_a_policy_out_of_bounds_names_the_bound(bounds: dict[str, float], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        RetryPolicy(**bounds)  # type: ignore[arg-type]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_transient_error_is_retried_and_failed_usage_is_kept(stream: bool) -> None:
    client = ScriptedChatClient(
        [busy(input_token_count=5, total_token_count=5), "Hello!"], retry=FAST
    )
    response = await respond(client, "Hi", stream=stream)

    assert response.text == "Hello!"
    assert len(client.calls) == 2
    assert response.usage_details == {"input_token_count": 5, "total_token_count": 5}


async def test_the_default_policy_is_on() -> None:
    client = ScriptedChatClient([ChatClientTimeoutError("slow"), "Hello!"])
    assert client.retry == RetryPolicy()

    # The default waits up to half a second before its first retry; the call's own
    # policy here keeps the test short.
    response = await client.get_response("Hi", options={"retry": FAST})

    assert response.text == "Hello!"


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_client_error_that_is_not_transient_is_raised_at_once(stream: bool) -> None:
    client = ScriptedChatClient([busy(401), "never"], retry=FAST)

    with pytest.raises(ChatClientError, match="busy") as caught:
        await respond(client, "Hi", stream=stream)

    assert caught.value.attempts == 1
    assert client.remaining == 1


async def test_a_client_without_retries_raises_the_first_failure() -> None:
    client = ScriptedChatClient([busy(), "never"], retry=None)

    with pytest.raises(ChatClientError):
        await client.get_response("Hi")

    assert client.remaining == 1


async def test_an_agent_and_a_run_choose_their_policy_through_options() -> None:
    client = ScriptedChatClient([busy(), busy(), "third time"], retry=None)
    agent = Agent(client=client, default_options={"retry": FAST})

    assert (await agent.run("Hi")).text == "third time"

    client.add(busy(), "never")
    with pytest.raises(ChatClientError, match="busy"):
        await agent.run("Hi", options={"retry": RetryPolicy(max_attempts=1)})


async def test_giving_up_is_logged_and_each_retry_too_without_the_conversation(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = ScriptedChatClient([busy(500), busy(500)], retry=None)
    options: ChatOptions = {"retry": RetryPolicy(max_attempts=2, initial_delay=0.001)}
    caplog.set_level(logging.INFO, logger="agentry.clients")

    with pytest.raises(ChatClientError, match="gave up retrying after 2 attempts"):
        await client.get_response("my secret question", options=options)

    retry, gave_up = caplog.records
    assert retry.levelno == logging.INFO
    assert "failed with ChatClientError (HTTP 500) (attempt 1 of 2)" in retry.getMessage()
    assert gave_up.levelno == logging.WARNING
    assert "gave up retrying after 2 attempts" in gave_up.getMessage()
    assert all("secret" not in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("retry", [FAST, None], ids=["retries on", "retries off"])
async def test_a_stream_that_breaks_after_text_is_not_restarted(retry: RetryPolicy | None) -> None:
    client = BreaksAfterText(retry=retry)
    stream = client.get_response("Hi", stream=True)
    texts: list[str] = []

    with pytest.raises(StreamInterruptedError, match="broke off after 1 updates") as caught:
        await read_texts(stream, texts)

    assert texts == ["Hel"]
    assert client.attempts == 1
    assert caught.value.updates_received == 1
    assert isinstance(caught.value.__cause__, ChatClientConnectionError)


@pytest.mark.parametrize("retry", [FAST, None], ids=["retries on", "retries off"])
async def test_an_agents_stream_that_breaks_after_text_is_not_restarted(
    retry: RetryPolicy | None,
) -> None:
    client = BreaksAfterText(retry=retry)
    texts: list[str] = []

    with pytest.raises(StreamInterruptedError, match="broke off after 1 updates") as caught:
        await read_texts(Agent(client=client).run("Hi", stream=True), texts)

    assert texts == ["Hel"]
    assert client.attempts == 1
    assert isinstance(caught.value.__cause__, ChatClientConnectionError)


@pytest.mark.parametrize("through_agent", [False, True], ids=["client", "agent"])
async def test_a_stream_that_breaks_after_text_for_good_raises_its_own_error(
    through_agent: bool,
) -> None:
    refused = ChatClientError("content refused", status_code=400)
    client = BreaksAfterText(retry=FAST, breaks_with=refused)
    stream = (
        Agent(client=client).run("Hi", stream=True)
        if through_agent
        else client.get_response("Hi", stream=True)
    )
    texts: list[str] = []

    with pytest.raises(ChatClientError) as caught:
        await read_texts(stream, texts)

    assert caught.value is refused
    assert texts == ["Hel"]


class _RecordsClosing(BaseChatClient):
    """Fails transiently `failures` times before any text, then streams two pieces; it
    records each attempt's stream being closed."""

    def __init__(self, failures: int) -> None:
        super().__init__(retry=FAST)
        self.failures = failures
        self.closed: list[int] = []
        self.attempts = 0

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        self.attempts += 1
        attempt = self.attempts
        try:
            if attempt <= self.failures:
                raise busy(input_token_count=3)
            yield ChatResponseUpdate(role="assistant", contents=["Hel"])
            yield ChatResponseUpdate(role="assistant", contents=["lo"])
        finally:
            self.closed.append(attempt)


@pytest.mark.parametrize("failures", [0, 1], ids=["first attempt", "after a retry"])
async def test_a_caller_that_stops_a_stream_early_closes_the_models_stream(failures: int) -> None:
    client = _RecordsClosing(failures)
    stream = client.get_response("Hi", stream=True)
    async for update in stream:
        if update.text:
            break
    await stream.aclose()

    assert client.closed == list(range(1, failures + 2))


async def test_a_streamed_retry_passes_the_failed_attempts_usage_before_the_answer() -> None:
    client = _RecordsClosing(failures=1)

    updates = [update async for update in client.get_response("Hi", stream=True)]

    assert [c.type for u in updates for c in u.contents] == ["usage", "text", "text"]
    assert updates[0].contents[0].usage_details == {"input_token_count": 3}
    assert "".join(u.text for u in updates) == "Hello"
