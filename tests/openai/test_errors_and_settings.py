"""Provider errors become `ChatClientError`s; settings come from arguments or the environment."""

from __future__ import annotations

import pytest

import openai
from agentry.errors import ChatClientError
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from agentry.testing import ReplayServer, load_exchanges
from tests.openai.conftest import RECORDINGS, error_exchange

CLIENTS = [
    (OpenAIChatCompletionClient, "/v1/chat/completions", "Chat Completions"),
    (OpenAIChatClient, "/v1/responses", "Responses"),
]


@pytest.mark.parametrize(("client_class", "path", "api"), CLIENTS)
@pytest.mark.parametrize(
    ("status", "message", "error_type", "code", "hint"),
    [
        (
            401,
            "Incorrect API key provided: sk-test.",
            "invalid_request_error",
            "invalid_api_key",
            "set OPENAI_API_KEY",
        ),
        (
            429,
            "Rate limit reached for gpt-4.1-mini on tokens per min (TPM).",
            "tokens",
            "rate_limit_exceeded",
            "retry later",
        ),
        (
            500,
            "The server had an error while processing your request.",
            "server_error",
            None,
            "retry later",
        ),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_http_errors_keep_the_status_and_the_providers_message(
    client_class: type[OpenAIChatClient | OpenAIChatCompletionClient],
    path: str,
    api: str,
    status: int,
    message: str,
    error_type: str,
    code: str | None,
    hint: str,
    stream: bool,
) -> None:
    exchange = error_exchange(path, status, message, error_type, code)
    with ReplayServer([exchange]) as server:
        client = client_class(
            "gpt-4.1-mini",
            base_url=f"{server.url}/v1",
            api_key="sk-test",
            max_retries=0,
            retry=None,
        )

        async def ask() -> object:
            if stream:
                return await client.get_response("Hi", stream=True).get_final_response()
            return await client.get_response("Hi")

        with pytest.raises(ChatClientError) as caught:
            await ask()

    assert caught.value.status_code == status
    text = str(caught.value)
    assert f"the {api} API answered HTTP {status}" in text
    assert message in text
    assert hint in text
    assert len(server.requests) == 1  # retries off: one attempt


def test_the_sdk_and_agentry_do_not_both_retry() -> None:
    with pytest.raises(ValueError, match=r"max_retries=2 asks the SDK to retry, and agentry"):
        OpenAIChatCompletionClient("m", base_url="http://127.0.0.1:9/v1", max_retries=2)
    sdk = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=5)

    assert OpenAIChatClient("m", client=sdk).client.max_retries == 0
    assert OpenAIChatClient("m", client=sdk, retry=None).client.max_retries == 5
    assert OpenAIChatClient("m", base_url="http://127.0.0.1:9/v1").client.max_retries == 0


async def test_the_sdk_retries_a_server_error_when_asked() -> None:
    failing = error_exchange("/v1/chat/completions", 500, "Try again.", "server_error", None)
    failing.headers = {"retry-after-ms": "1"}
    answer = load_exchanges(RECORDINGS / "chat_completions_text.json")
    with ReplayServer([failing, *answer]) as server:
        client = OpenAIChatCompletionClient(
            "gpt-4.1-mini",
            base_url=f"{server.url}/v1",
            api_key="sk-test",
            max_retries=1,
            retry=None,
        )

        response = await client.get_response("Say hello.")

    assert response.text == "Hello! How can I help you today?"
    assert len(server.requests) == 2


async def test_an_unreachable_server_says_to_check_base_url() -> None:
    client = OpenAIChatClient(
        "gpt-4.1-mini", base_url="http://127.0.0.1:9/v1", api_key="sk-test", max_retries=0
    )

    with pytest.raises(ChatClientError, match="check base_url"):
        await client.get_response("Hi")


def test_no_key_and_no_base_url_says_what_to_set() -> None:
    with pytest.raises(ChatClientError, match="OPENAI_API_KEY"):
        OpenAIChatClient("gpt-4.1-mini")


def test_no_model_says_how_to_give_one() -> None:
    with pytest.raises(ChatClientError, match="OPENAI_MODEL"):
        OpenAIChatCompletionClient(base_url="http://127.0.0.1:9/v1")


def test_settings_come_from_arguments_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.setenv("OPENAI_MODEL", "env-model")

    from_env = OpenAIChatClient()
    given = OpenAIChatClient(
        "arg-model", api_key="sk-arg", base_url="http://localhost:1/v1", timeout=3
    )

    assert (from_env.model, from_env.client.api_key, str(from_env.client.base_url)) == (
        "env-model",
        "sk-env",
        "http://127.0.0.1:8080/v1/",
    )
    assert (given.model, given.client.api_key, str(given.client.base_url)) == (
        "arg-model",
        "sk-arg",
        "http://localhost:1/v1/",
    )
    assert given.client.timeout == 3


async def test_unknown_tool_choice_and_response_format_are_refused() -> None:
    client = OpenAIChatCompletionClient("m", base_url="http://127.0.0.1:9/v1")

    with pytest.raises(ChatClientError, match="tool_choice must be"):
        await client.get_response("Hi", options={"tool_choice": "sometimes"})  # type: ignore[typeddict-item]
    with pytest.raises(ChatClientError, match="response_format must be"):
        await client.get_response("Hi", options={"response_format": 42})
