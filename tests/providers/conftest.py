from collections.abc import Iterator

import pytest

from tests.providers.clients import PROVIDERS, ProviderCase


@pytest.fixture(params=PROVIDERS, ids=str)
def provider(request: pytest.FixtureRequest) -> ProviderCase:
    """Each client of the conformance suite in turn."""
    return request.param


@pytest.fixture
def live_url(provider: ProviderCase, llama_server: str) -> Iterator[str]:
    """The URL the provider's client talks to llama-server through (its front, if any)."""
    with provider.reach(llama_server) as url:
        yield url
