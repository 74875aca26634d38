from collections.abc import Iterator

import pytest

from tests.providers.clients import PROVIDERS, ProviderCase
from tests.providers.memo_relay import memo_relay


@pytest.fixture(params=PROVIDERS, ids=str)
def provider(request: pytest.FixtureRequest) -> ProviderCase:
    """Each client of the conformance suite in turn."""
    return request.param


@pytest.fixture(scope="session")
def remembering_llama_server(llama_server: str) -> Iterator[str]:
    """llama-server behind a relay that answers a request it has seen before from memory
    (see `memo_relay`): clients of one wire format send it the same requests."""
    with memo_relay(llama_server) as url:
        yield url


@pytest.fixture
def live_url(provider: ProviderCase, remembering_llama_server: str) -> Iterator[str]:
    """The URL the provider's client talks to llama-server through (its front, if any)."""
    with provider.reach(remembering_llama_server) as url:
        yield url
