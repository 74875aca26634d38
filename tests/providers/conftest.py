from collections.abc import Iterator

import pytest

from tests.providers.clients import PROVIDERS, ProviderCase
from tests.providers.llama_server import running_llama_server


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """The base URL (without `/v1`) of a llama-server running the default local model."""
    with running_llama_server() as url:
        yield url


@pytest.fixture(params=PROVIDERS, ids=str)
def provider(request: pytest.FixtureRequest) -> ProviderCase:
    """Each client of the conformance suite in turn."""
    return request.param


@pytest.fixture
def live_url(provider: ProviderCase, llama_server: str) -> Iterator[str]:
    """The URL the provider's client talks to llama-server through (its front, if any)."""
    if provider.front is None:
        yield llama_server
        return
    with provider.front(llama_server) as url:
        yield url
