"""The provider examples run as their readers would: Azure OpenAI and Foundry against the
local Azure front (tests/azure/front.py) with a recorded exchange behind it, the named-server
example against llama.cpp's server with the default local model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentry.testing import ReplayServer
from tests.azure.entra import install_fake_az
from tests.azure.front import API_KEY, AzureFront
from tests.examples.running import EXAMPLES, run_example
from tests.providers.llama_server import API_KEY as LLAMA_SERVER_KEY

ANSWER = "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."


@pytest.fixture
def front() -> Iterator[AzureFront]:
    with (
        ReplayServer(EXAMPLES / "recordings" / "openai_weather.json") as replay,
        AzureFront(replay.url) as started,
    ):
        yield started


def test_the_azure_openai_example(front: AzureFront, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", front.url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("AZURE_OPENAI_CHAT_MODEL", "gpt-4.1-mini")

    completed = run_example("azure_openai_agent.py", timeout=120)

    assert completed.stdout.splitlines() == [
        '[called get_weather({"city":"Paris"})]',
        '[called get_weather({"city":"Tokyo"})]',
        ANSWER,
    ]
    assert [s.path for s in front.seen] == ["/openai/v1/responses"] * 2


def test_the_foundry_example_signs_in_with_the_azure_cli(
    front: AzureFront, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", install_fake_az(tmp_path))
    monkeypatch.setenv("FOUNDRY_PROJECT_ENDPOINT", f"{front.url}/api/projects/demo")
    monkeypatch.setenv("FOUNDRY_MODEL", "gpt-4.1-mini")

    completed = run_example("foundry_agent.py", timeout=120)

    assert completed.stdout.splitlines() == [ANSWER]
    assert {s.headers["authorization"] for s in front.seen} == {"Bearer entra:https://ai.azure.com"}


def test_the_named_server_example_streams_from_llama_cpp(
    llama_server: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LLAMA_CPP_BASE_URL", f"{llama_server}/v1")
    monkeypatch.setenv("LLAMA_API_KEY", LLAMA_SERVER_KEY)

    completed = run_example("openai_compatible_server.py", "llamacpp", "local", timeout=120)

    assert completed.stdout.strip()
