"""Retries through the `openai` SDK against real HTTP servers on 127.0.0.1 that fail as
services do: rate limits with `Retry-After`, server errors, connections dropped in the
middle of a stream, and a server that is not there. Both OpenAI clients, plain and
streamed."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from agentry import ChatResponse, RetryPolicy
from agentry.errors import ChatClientConnectionError, ChatClientError, StreamInterruptedError
from agentry.observability import TelemetryObserver, set_telemetry_observer
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from agentry.testing import Exchange, load_exchanges
from tests.clients.answers import read_texts, respond
from tests.clients.faulty_server import Drop, FaultyServer
from tests.openai.conftest import RECORDINGS, error_exchange

FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)


@dataclass(frozen=True)
class Api:
    """One OpenAI client and the recordings of its API."""

    client: type[OpenAIChatClient] | type[OpenAIChatCompletionClient]
    path: str
    recording: str

    def answer(self, *, stream: bool) -> Exchange:
        name = f"{self.recording}_text_stream" if stream else f"{self.recording}_text"
        (exchange,) = load_exchanges(RECORDINGS / f"{name}.json")
        return exchange

    def __str__(self) -> str:
        return self.client.__name__


APIS = [
    Api(OpenAIChatCompletionClient, "/v1/chat/completions", "chat_completions"),
    Api(OpenAIChatClient, "/v1/responses", "responses"),
]


class RetryRecorder(TelemetryObserver):
    """Records each retry the clients report: (attempt, delay, error type)."""

    def __init__(self) -> None:
        self.retries: list[tuple[int, float, str]] = []

    def chat_retry(self, client: object, attempt: int, delay: float, error: BaseException) -> None:
        self.retries.append((attempt, delay, type(error).__name__))


@pytest.fixture
def recorder() -> Iterator[RetryRecorder]:
    observer = RetryRecorder()
    set_telemetry_observer(observer)
    yield observer
    set_telemetry_observer(None)


async def ask(
    api: Api, url: str, *, stream: bool, retry: RetryPolicy | None = FAST
) -> ChatResponse:
    client = api.client("gpt-4.1-mini", base_url=f"{url}/v1", api_key="sk-test", retry=retry)
    return await respond(client, "Say hello.", stream=stream)


async def clean_answer(api: Api, *, stream: bool) -> str:
    async with FaultyServer([api.answer(stream=stream)]) as server:
        return (await ask(api, server.url, stream=stream)).text


def rate_limited(api: Api, headers: dict[str, str]) -> Exchange:
    exchange = error_exchange(api.path, 429, "Rate limit reached.", "tokens", "rate_limit_exceeded")
    exchange.headers = headers
    return exchange


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("api", APIS, ids=str)
async def test_a_rate_limit_waits_as_long_as_retry_after_ms_says_then_answers(
    api: Api, stream: bool, recorder: RetryRecorder
) -> None:
    answers = [rate_limited(api, {"retry-after-ms": "30"}), api.answer(stream=stream)]
    async with FaultyServer(answers) as server:
        response = await ask(api, server.url, stream=stream)

    assert response.text == await clean_answer(api, stream=stream)
    assert len(server.requests) == 2
    assert recorder.retries == [(1, 0.03, "ChatClientError")]


async def test_retry_after_in_seconds_is_honoured_over_the_backoff(
    recorder: RetryRecorder,
) -> None:
    api = APIS[0]
    answers = [rate_limited(api, {"retry-after": "1"}), api.answer(stream=False)]
    async with FaultyServer(answers) as server:
        response = await ask(api, server.url, stream=False)

    assert response.text
    assert recorder.retries == [(1, 1.0, "ChatClientError")]


async def test_a_retry_after_beyond_max_elapsed_gives_up_at_once(recorder: RetryRecorder) -> None:
    api = APIS[0]
    answers = [rate_limited(api, {"retry-after": "3600"}), api.answer(stream=False)]
    async with FaultyServer(answers) as server:
        with pytest.raises(ChatClientError, match="would pass max_elapsed=60 s") as caught:
            await ask(api, server.url, stream=False, retry=RetryPolicy())

    assert caught.value.status_code == 429
    assert caught.value.retry_after == 3600
    assert len(server.requests) == 1
    assert recorder.retries == []


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("api", APIS, ids=str)
async def test_two_server_errors_are_retried_with_backoff_then_the_answer_comes(
    api: Api, stream: bool, recorder: RetryRecorder
) -> None:
    failing = error_exchange(api.path, 500, "The server had an error.", "server_error", None)
    async with FaultyServer([failing, failing, api.answer(stream=stream)]) as server:
        response = await ask(api, server.url, stream=stream)

    assert response.text == await clean_answer(api, stream=stream)
    assert len(server.requests) == 3
    assert [(attempt, kind) for attempt, _, kind in recorder.retries] == [
        (1, "ChatClientError"),
        (2, "ChatClientError"),
    ]
    first, second = (delay for _, delay, _ in recorder.retries)
    assert 0 <= first <= 0.01  # full jitter under the caps
    assert 0 <= second <= 0.02


@pytest.mark.parametrize("api", APIS, ids=str)
async def test_server_errors_past_max_attempts_raise_the_last_one(api: Api) -> None:
    failing = error_exchange(api.path, 503, "Overloaded.", "server_error", None)
    async with FaultyServer([failing] * 3) as server:
        with pytest.raises(ChatClientError, match="gave up retrying after 3 attempts") as caught:
            await ask(api, server.url, stream=False)

    assert caught.value.status_code == 503
    assert caught.value.attempts == 3
    assert len(server.requests) == 3


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_bad_request_is_not_retried(stream: bool, recorder: RetryRecorder) -> None:
    api = APIS[0]
    bad = error_exchange(api.path, 400, "Unknown parameter.", "invalid_request_error", None)
    async with FaultyServer([bad, api.answer(stream=stream)]) as server:
        with pytest.raises(ChatClientError, match="Unknown parameter") as caught:
            await ask(api, server.url, stream=stream)

    assert caught.value.status_code == 400
    assert len(server.requests) == 1
    assert recorder.retries == []


@pytest.mark.parametrize("api", APIS, ids=str)
async def test_a_stream_dropped_before_any_text_is_started_again(
    api: Api, recorder: RetryRecorder
) -> None:
    streamed = api.answer(stream=True)
    # The first events carry no text: the role (Chat Completions), or the response's
    # creation (Responses).
    async with FaultyServer([Drop(streamed, after=1), streamed]) as server:
        response = await ask(api, server.url, stream=True)

    assert response.text == await clean_answer(api, stream=True)
    assert len(server.requests) == 2
    assert [kind for _, _, kind in recorder.retries] == ["ChatClientConnectionError"]


@pytest.mark.parametrize("api", APIS, ids=str)
async def test_a_stream_dropped_after_text_is_not_restarted_and_says_so(api: Api) -> None:
    streamed = api.answer(stream=True)
    first_text = _first_text_event(streamed)
    async with FaultyServer([Drop(streamed, after=first_text + 1), streamed]) as server:
        client = api.client("gpt-4.1-mini", base_url=f"{server.url}/v1", api_key="k", retry=FAST)
        stream = client.get_response("Say hello.", stream=True)
        received: list[str] = []
        with pytest.raises(StreamInterruptedError, match="not restarted") as caught:
            await read_texts(stream, received)

    assert "".join(received)  # part of the answer came through before the break
    assert caught.value.updates_received >= 1
    assert isinstance(caught.value.__cause__, ChatClientConnectionError)
    assert len(server.requests) == 1


def _first_text_event(exchange: Exchange) -> int:
    for index, event in enumerate(exchange.sse or []):
        data: dict[str, Any] = event.get("data", event)
        if data.get("type") == "response.output_text.delta":
            return index
        choices: list[dict[str, Any]] = data.get("choices") or [{}]
        if choices[0].get("delta", {}).get("content"):
            return index
    raise AssertionError("the recording has no text")


def _port_with_nothing_listening() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("api", APIS, ids=str)
async def test_a_server_that_is_down_is_retried_then_reported(
    api: Api, stream: bool, recorder: RetryRecorder
) -> None:
    url = f"http://127.0.0.1:{_port_with_nothing_listening()}"

    with pytest.raises(ChatClientConnectionError, match="check base_url") as caught:
        await ask(api, url, stream=stream)

    assert caught.value.attempts == 3
    assert [attempt for attempt, _, _ in recorder.retries] == [1, 2]


async def test_retries_can_be_turned_off_for_one_call(recorder: RetryRecorder) -> None:
    api = APIS[0]
    failing = error_exchange(api.path, 500, "The server had an error.", "server_error", None)
    async with FaultyServer([failing, api.answer(stream=False)]) as server:
        client = api.client("gpt-4.1-mini", base_url=f"{server.url}/v1", api_key="k", retry=FAST)
        with pytest.raises(ChatClientError, match="HTTP 500"):
            await client.get_response("Hi", options={"retry": RetryPolicy(max_attempts=1)})

    assert len(server.requests) == 1
    assert recorder.retries == []
