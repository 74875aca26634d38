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
