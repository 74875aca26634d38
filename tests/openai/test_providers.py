"""Named OpenAI-compatible providers: base URLs, keys and models from the table and the
environment, and requests that reach the named server."""

from __future__ import annotations

import pytest

from agentry.errors import ChatClientError
from agentry.openai import OpenAIChatCompletionClient
from agentry.openai.providers import PROVIDERS, get_provider
from agentry.testing import Exchange, ReplayServer

_ENV = (
    [f"{p.env_prefix}_{suffix}" for p in PROVIDERS.values() for suffix in ("BASE_URL", "MODEL")]
    + [name for p in PROVIDERS.values() for name in p.api_key_env]
    + ["OLLAMA_HOST"]
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")


@pytest.mark.parametrize(
    ("name", "base_url"),
    [
        ("ollama", "http://localhost:11434/v1/"),
        ("vllm", "http://localhost:8000/v1/"),
        ("lmstudio", "http://localhost:1234/v1/"),
        ("llamacpp", "http://localhost:8080/v1/"),
    ],
)
def test_local_servers_get_their_default_url_and_never_the_openai_key(
    name: str, base_url: str
) -> None:
    client = OpenAIChatCompletionClient.for_provider(name, model="m")

    assert str(client.client.base_url) == base_url
    assert client.client.api_key == "not-needed"
    assert (client.model, client.max_tokens_parameter) == ("m", "max_tokens")
    assert name == client.OTEL_PROVIDER_NAME


def test_hosted_services_take_their_own_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key")

    openrouter = OpenAIChatCompletionClient.for_provider("openrouter", model="openai/gpt-4o")
    gemini = OpenAIChatCompletionClient.for_provider("gemini", model="gemini-2.5-flash")

    assert (str(openrouter.client.base_url), openrouter.client.api_key) == (
        "https://openrouter.ai/api/v1/",
        "or-key",
    )
    assert (str(gemini.client.base_url), gemini.client.api_key) == (
        "https://generativelanguage.googleapis.com/v1beta/openai/",
        "google-key",
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("openrouter", "OpenRouter needs an API key: pass api_key= or set OPENROUTER_API_KEY"),
        (
            "gemini",
            "Gemini needs an API key: pass api_key= or set GEMINI_API_KEY or GOOGLE_API_KEY",
        ),
    ],
)
def test_a_hosted_service_without_a_key_is_refused(name: str, message: str) -> None:
    with pytest.raises(ChatClientError) as caught:
        OpenAIChatCompletionClient.for_provider(name, model="m")
    assert str(caught.value) == message


def test_the_model_and_base_url_come_from_the_providers_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VLLM_MODEL", "Qwen/Qwen2.5-7B-Instruct")
    monkeypatch.setenv("VLLM_BASE_URL", "http://gpu-box:9000/v1")
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11500")

    vllm = OpenAIChatCompletionClient.for_provider("vllm")
    ollama = OpenAIChatCompletionClient.for_provider("ollama", model="qwen2.5")

    assert (vllm.model, str(vllm.client.base_url)) == (
        "Qwen/Qwen2.5-7B-Instruct",
        "http://gpu-box:9000/v1/",
    )
    assert str(ollama.client.base_url) == "http://0.0.0.0:11500/v1/"


def test_no_model_says_how_to_name_one() -> None:
    with pytest.raises(ChatClientError) as caught:
        OpenAIChatCompletionClient.for_provider("ollama")
    assert str(caught.value) == (
        "no model for Ollama: pass model= (on the command line, --client ollama:MODEL) "
        "or set OLLAMA_MODEL"
    )


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(
        ChatClientError,
        match=r"unknown OpenAI-compatible provider 'olama'; known: ollama, vllm, lmstudio, llamacpp, openrouter, gemini",
    ):
        get_provider("olama")


async def test_requests_go_to_the_named_server_and_errors_name_its_key() -> None:
    answer = Exchange(
        method="POST",
        path="/v1/chat/completions",
        body={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1763800000,
            "model": "openai/gpt-4o",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Hi."},
                    "finish_reason": "stop",
                }
            ],
        },
    )
    refusal = Exchange(
        method="POST",
        path="/v1/chat/completions",
        status=401,
        body={"error": {"message": "No auth credentials found", "code": 401}},
    )
    with ReplayServer([answer, refusal]) as server:
        client = OpenAIChatCompletionClient.for_provider(
            "openrouter", model="openai/gpt-4o", api_key="k", base_url=f"{server.url}/v1"
        )
        first = await client.get_response("Hello")
        with pytest.raises(ChatClientError) as caught:
            await client.get_response("Hello")

    assert first.text == "Hi."
    assert server.bodies[0]["model"] == "openai/gpt-4o"
    assert str(caught.value) == (
        "OpenRouter (Chat Completions API) answered HTTP 401: No auth credentials found "
        "(check the API key: pass api_key= or set OPENROUTER_API_KEY)"
    )
