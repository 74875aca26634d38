"""Messages API errors become `ChatClientError`s that say what to do; settings come from
arguments, then the environment."""

from __future__ import annotations

from typing import Any

import pytest

from agentry.anthropic import AnthropicChatClient
from agentry.clients.sdk_errors import CONTEXT_ADVICE
from agentry.errors import ChatClientError
from agentry.testing import Exchange, ReplayServer
from tests.anthropic.conftest import error_exchange

_ENVIRONMENT = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_CHAT_MODEL",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("status", "error_type", "message", "advice"),
    [
        (
            401,
            "authentication_error",
            "invalid x-api-key",
            "check the API key: pass api_key= or set ANTHROPIC_API_KEY",
        ),
        (404, "not_found_error", "model: claude-nope", "check the model name and base_url"),
        (
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization.",
            "rate limited or out of quota; retry later, lower the request rate or allow more "
            "retries: retry=RetryPolicy(max_attempts=..., max_elapsed=...)",
        ),
        (
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
            "the request is too large; send fewer or smaller messages",
        ),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 215000 tokens > 200000 maximum",
            CONTEXT_ADVICE,
        ),
        (529, "overloaded_error", "Overloaded", "the service failed or is overloaded; retry later"),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_http_errors_keep_the_status_the_message_and_say_what_to_do(
    status: int, error_type: str, message: str, advice: str, stream: bool
) -> None:
    with ReplayServer([error_exchange(status, error_type, message)]) as server:
        client = AnthropicChatClient(
            "claude-nope", base_url=server.url, api_key="sk-ant-test", max_retries=0, retry=None
        )

        async def ask() -> object:
            if stream:
                return await client.get_response("Hi", stream=True).get_final_response()
            return await client.get_response("Hi")

        with pytest.raises(ChatClientError) as caught:
            await ask()

    assert caught.value.status_code == status
    assert str(caught.value) == (
        f"the Anthropic Messages API answered HTTP {status}: {message} [{error_type}] ({advice})"
    )
    assert len(server.requests) == 1  # retries off: one attempt


async def test_an_error_inside_a_stream_keeps_the_status_of_its_type() -> None:
    events: list[Any] = [
        {"event": "message_start", "data": {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}}},
        {"event": "error", "data": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}},
    ]  # fmt: skip
    broken = Exchange(method="POST", path="/v1/messages", sse=events)
    with ReplayServer([broken]) as server:
        client = AnthropicChatClient(
            "m", base_url=server.url, api_key="sk-ant-test", max_retries=0, retry=None
        )
        with pytest.raises(ChatClientError) as caught:
            await client.get_response("Hi", stream=True).get_final_response()

    assert caught.value.status_code == 529
    assert str(caught.value) == (
        "the Anthropic Messages API reported an error in its stream: Overloaded "
        "[overloaded_error] (the service failed or is overloaded; retry later)"
    )


async def test_an_unreachable_server_says_to_check_base_url() -> None:
    client = AnthropicChatClient("m", base_url="http://127.0.0.1:9", max_retries=0)

    with pytest.raises(
        ChatClientError, match=r"cannot reach the Anthropic Messages API .* check base_url"
    ):
        await client.get_response("Hi")


def test_no_model_names_the_variables_tried() -> None:
    with pytest.raises(ChatClientError) as caught:
        AnthropicChatClient(api_key="sk-ant-test")

    assert "pass model= or set one of ANTHROPIC_CHAT_MODEL, ANTHROPIC_MODEL" in str(caught.value)


def test_no_key_and_no_server_says_what_to_set() -> None:
    with pytest.raises(ChatClientError, match="pass api_key= or set ANTHROPIC_API_KEY"):
        AnthropicChatClient("claude-sonnet-5-5")


def test_settings_come_from_arguments_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080")
    monkeypatch.setenv("ANTHROPIC_MODEL", "env-model")

    from_env = AnthropicChatClient()
    given = AnthropicChatClient(
        "arg-model", api_key="sk-ant-arg", base_url="http://localhost:1", timeout=3
    )

    assert (from_env.model, from_env.client.api_key, str(from_env.client.base_url)) == (
        "env-model",
        "sk-ant-env",
        "http://127.0.0.1:8080",
    )
    assert (given.model, given.client.api_key, str(given.client.base_url)) == (
        "arg-model",
        "sk-ant-arg",
        "http://localhost:1",
    )
    assert given.client.timeout == 3


def test_anthropics_api_and_other_servers_get_their_own_defaults() -> None:
    anthropic_api = AnthropicChatClient("claude-sonnet-5-5", api_key="sk-ant-test")
    local = AnthropicChatClient("local", base_url="http://127.0.0.1:8080")
    chosen = AnthropicChatClient(
        "local",
        base_url="http://127.0.0.1:8080",
        structured_output="json_schema",
        send_sampling_options=False,
    )

    assert (anthropic_api.structured_output, anthropic_api.send_sampling_options) == (
        "json_schema",
        False,
    )
    assert (local.structured_output, local.send_sampling_options) == ("tool", True)
    assert (chosen.structured_output, chosen.send_sampling_options) == ("json_schema", False)
