"""Retries and fallback against llama.cpp's OpenAI-compatible server (`llama-server`)
running the default local model on 127.0.0.1: the happy path with agentry's default
policy, and a fallback from a server that is down to llama-server."""

from __future__ import annotations

import socket

import pytest

from agentry import ChatOptions, FallbackChatClient, RetryPolicy
from agentry.clients import ANSWERED_BY
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from tests.clients.answers import respond
from tests.providers.llama_server import API_KEY

SHORT: ChatOptions = {"temperature": 0.0, "seed": 7, "max_tokens": 8}
CLIENTS = [OpenAIChatCompletionClient, OpenAIChatClient]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("client_class", CLIENTS, ids=lambda c: c.__name__)
async def test_the_default_policy_answers_on_a_healthy_server(
    llama_server: str,
    client_class: type[OpenAIChatClient] | type[OpenAIChatCompletionClient],
    stream: bool,
) -> None:
    client = client_class("local", base_url=f"{llama_server}/v1", api_key=API_KEY)
    assert client.retry == RetryPolicy()
    assert client.client.max_retries == 0  # one retry layer: agentry's

    response = await respond(client, "Say hi.", stream=stream, options=SHORT)

    assert response.text
    assert response.usage_details


def _url_with_nothing_listening() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_fallback_moves_from_a_server_that_is_down_to_llama_server(
    llama_server: str, stream: bool
) -> None:
    quick = RetryPolicy(max_attempts=2, initial_delay=0.001)
    down = OpenAIChatCompletionClient(
        "gpt-4.1", base_url=_url_with_nothing_listening(), api_key="k", retry=quick
    )
    local = OpenAIChatCompletionClient(
        "local", base_url=f"{llama_server}/v1", api_key=API_KEY, retry=quick
    )
    client = FallbackChatClient({"cloud": down, "llama-server": local})

    response = await respond(client, "Say hi.", stream=stream, options=SHORT)

    assert response.text
    assert response.additional_properties == {ANSWERED_BY: "llama-server"}
    assert response.model is not None
    assert response.model != "gpt-4.1"
