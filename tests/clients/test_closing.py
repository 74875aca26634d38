"""Provider chat clients close the SDK clients they built, and only those: the server sees
the connections end, and the next call opens new ones. Through the `openai` and
`anthropic` SDKs against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from agentry import Agent
from agentry.anthropic import AnthropicChatClient
from agentry.clients import FallbackChatClient
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from agentry.testing import Exchange, load_exchanges
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI
from tests.anthropic.conftest import message_exchange
from tests.clients.answers import respond
from tests.clients.faulty_server import FaultyServer
from tests.openai.conftest import RECORDINGS

ProviderClient = OpenAIChatCompletionClient | OpenAIChatClient | AnthropicChatClient


@dataclass(frozen=True)
class Provider:
    """A provider's chat client, how to make its SDK client, and an answer of its API."""

    name: str
    chat_client: Callable[..., ProviderClient]
    sdk_client: Callable[[str], AsyncOpenAI | AsyncAnthropic]
    answer: Callable[[], Exchange]

    def make(self, url: str, **options: Any) -> ProviderClient:
        return self.chat_client("some-model", base_url=url, api_key="sk-test", **options)

    def __str__(self) -> str:
        return self.name


def _recorded(name: str) -> Callable[[], Exchange]:
    def answer() -> Exchange:
        (exchange,) = load_exchanges(RECORDINGS / f"{name}.json")
        return exchange

    return answer


PROVIDERS = [
    Provider(
        "chat_completions",
        OpenAIChatCompletionClient,
        lambda url: AsyncOpenAI(base_url=url, api_key="sk-test"),
        _recorded("chat_completions_text"),
    ),
    Provider(
        "responses",
        OpenAIChatClient,
        lambda url: AsyncOpenAI(base_url=url, api_key="sk-test"),
        _recorded("responses_text"),
    ),
    Provider(
        "anthropic",
        AnthropicChatClient,
        lambda url: AsyncAnthropic(base_url=url, api_key="sk-test"),
        lambda: message_exchange([{"type": "text", "text": "Hello!"}], "end_turn"),
    ),
]


def _base_url(provider: Provider, server: FaultyServer) -> str:
    return server.url if provider.name == "anthropic" else f"{server.url}/v1"


async def _all_closed(server: FaultyServer) -> None:
    await asyncio.wait_for(server.all_connections_closed(), timeout=10)


@pytest.mark.parametrize("provider", PROVIDERS, ids=str)
async def test_aclose_ends_the_connections_it_opened_and_the_next_call_opens_new_ones(
    provider: Provider,
) -> None:
    async with FaultyServer([provider.answer(), provider.answer()]) as server:
        model = provider.make(_base_url(provider, server))
        first = await respond(model, "Say hello.", stream=False)
        assert server.open_connections == 1  # kept alive for the next call
        sdk = model.client

        await model.aclose()
        await _all_closed(server)
        assert sdk.is_closed()

        second = await respond(model, "Say hello.", stream=False)
        assert second.text == first.text
        assert model.client is not sdk
        await model.aclose()
        await _all_closed(server)


@pytest.mark.parametrize("provider", PROVIDERS, ids=str)
async def test_an_sdk_client_passed_in_is_left_open_for_its_owner(provider: Provider) -> None:
    async with FaultyServer([provider.answer()]) as server:
        url = _base_url(provider, server)
        sdk = provider.sdk_client(url)
        model = provider.make(url, client=sdk)
        assert not model.owns_client
        await respond(model, "Say hello.", stream=False)

        await model.aclose()
        assert not sdk.is_closed()
        assert server.open_connections == 1

        await sdk.close()
        await _all_closed(server)


async def test_an_agent_leaving_async_with_closes_its_client_which_still_serves_later_runs() -> (
    None
):
    provider = PROVIDERS[0]
    async with FaultyServer([provider.answer(), provider.answer()]) as server:
        model = provider.make(_base_url(provider, server))
        async with Agent(client=model) as agent:
            first = await agent.run("Say hello.")
            assert server.open_connections == 1
        await _all_closed(server)

        async with Agent(client=model) as another:
            assert (await another.run("Say hello.")).text == first.text
        await _all_closed(server)


async def test_a_fallback_closes_the_clients_it_asks() -> None:
    openai, anthropic = PROVIDERS[0], PROVIDERS[2]
    async with (
        FaultyServer([openai.answer()]) as openai_server,
        FaultyServer([anthropic.answer()]) as anthropic_server,
    ):
        primary = openai.make(_base_url(openai, openai_server))
        backup = anthropic.make(_base_url(anthropic, anthropic_server))
        async with FallbackChatClient([primary, backup]) as fallback:
            await respond(fallback, "Say hello.", stream=False)
            await respond(backup, "Say hello.", stream=False)
            assert openai_server.open_connections == anthropic_server.open_connections == 1
        await _all_closed(openai_server)
        await _all_closed(anthropic_server)


async def test_an_sdk_client_set_later_is_the_callers_too() -> None:
    provider = PROVIDERS[0]
    async with FaultyServer([provider.answer()]) as server:
        model = OpenAIChatCompletionClient("some-model", base_url=f"{server.url}/v1", api_key="k")
        await model.aclose()  # the client it built, before it is replaced
        sdk = AsyncOpenAI(base_url=f"{server.url}/v1", api_key="sk-test")
        model.client = sdk
        await respond(model, "Say hello.", stream=False)

        await model.aclose()
        assert not model.owns_client
        assert not sdk.is_closed()
        await sdk.close()
        await _all_closed(server)
