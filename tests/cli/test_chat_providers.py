"""`agentry chat --client` for Azure OpenAI, Foundry, Anthropic and the named
OpenAI-compatible servers (`PROVIDER:MODEL`)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentry.azure import AzureOpenAIChatClient, AzureOpenAIChatCompletionClient
from agentry.cli._clients import make_client
from agentry.cli._errors import CliError
from agentry.foundry import FoundryChatClient
from agentry.openai import OpenAIChatCompletionClient
from agentry.testing import ReplayServer
from tests.azure.entra import install_fake_az
from tests.azure.front import API_KEY, AzureFront
from tests.cli.conftest import Agentry
from tests.providers.llama_server import API_KEY as LLAMA_SERVER_KEY

RECORDINGS = Path(__file__).parents[1] / "openai" / "recordings"


@pytest.fixture
def front() -> Iterator[AzureFront]:
    with (
        ReplayServer(RECORDINGS / "responses_text_stream.json") as replay,
        AzureFront(replay.url) as started,
    ):
        yield started


def test_provider_and_model_name_an_openai_compatible_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)

    named = make_client("ollama:qwen2.5")
    with_model = make_client("ollama", model="qwen2.5")

    for client in (named, with_model):
        assert isinstance(client, OpenAIChatCompletionClient)
        assert client.model == "qwen2.5"
        assert str(client.client.base_url) == "http://localhost:11434/v1/"


def test_two_models_or_an_unknown_provider_are_usage_errors() -> None:
    with pytest.raises(CliError, match="name two models; give one") as twice:
        make_client("ollama:qwen2.5", model="llama3.2")
    with pytest.raises(CliError, match=r"provider of: ollama, vllm, lmstudio") as unknown:
        make_client("olama:qwen2.5")
    assert twice.value.exit_code == unknown.value.exit_code == 2


def test_azure_and_foundry_clients_are_built_from_their_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://r.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    monkeypatch.setenv("FOUNDRY_PROJECT_ENDPOINT", "https://a.services.ai.azure.com/api/projects/p")

    azure = make_client("azure", model="dep")
    azure_chat = make_client("azure-chat", model="dep")
    foundry = make_client("foundry", model="gpt-4.1-mini")

    assert isinstance(azure, AzureOpenAIChatClient)
    assert isinstance(azure_chat, AzureOpenAIChatCompletionClient)
    assert isinstance(foundry, FoundryChatClient)
    assert str(foundry.client.base_url) == (
        "https://a.services.ai.azure.com/api/projects/p/openai/v1/"
    )


def test_the_anthropic_client_is_looked_up_by_its_module_and_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class AnthropicChatClient:
        def __init__(self, model: str | None = None) -> None:
            self.model = model

    stand_in = types.ModuleType("agentry.anthropic")
    stand_in.AnthropicChatClient = AnthropicChatClient  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agentry.anthropic", stand_in)

    client = make_client("anthropic", model="claude-sonnet-4-5")

    assert isinstance(client, AnthropicChatClient)
    assert client.model == "claude-sonnet-4-5"


def test_the_anthropic_client_of_this_installation_is_the_one_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    try:
        from agentry.anthropic import (  # pyright: ignore[reportMissingImports]
            AnthropicChatClient,  # pyright: ignore[reportUnknownVariableType]
        )
    except ModuleNotFoundError:
        # An installation without the Anthropic client says so, and how to go on.
        with pytest.raises(CliError, match=r"has no anthropic chat client \(agentry.anthropic"):
            make_client("anthropic", model="claude-sonnet-4-5")
        return
    client = make_client("anthropic", model="claude-sonnet-4-5")
    assert isinstance(client, AnthropicChatClient)
    assert client.model == "claude-sonnet-4-5"


def test_chat_on_azure_openai(agentry: Agentry, front: AzureFront) -> None:
    result = agentry(
        "chat",
        "--client",
        "azure",
        "--model",
        "chat-deployment",
        stdin="Say hello.\n",
        env={"AZURE_OPENAI_ENDPOINT": front.url, "AZURE_OPENAI_API_KEY": API_KEY},
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello! How can I help you today?\n"
    assert [(s.path, s.body["model"]) for s in front.seen] == [
        ("/openai/v1/responses", "chat-deployment")
    ]


def test_chat_on_a_foundry_project_signed_in_with_the_azure_cli(
    agentry: Agentry, front: AzureFront, tmp_path: Path
) -> None:
    result = agentry(
        "chat",
        "--client",
        "foundry",
        stdin="Say hello.\n",
        env={
            "FOUNDRY_PROJECT_ENDPOINT": f"{front.url}/api/projects/demo",
            "FOUNDRY_MODEL": "gpt-4.1-mini",
            "PATH": install_fake_az(tmp_path),
            "AZURE_TOKEN_CREDENTIALS": "AzureCliCredential",
        },
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello! How can I help you today?\n"
    assert front.seen[0].headers["authorization"] == "Bearer entra:https://ai.azure.com"


def test_a_provider_without_its_key_stops_with_one_line_that_names_it(agentry: Agentry) -> None:
    result = agentry(
        "chat", "--client", "openrouter:openai/gpt-4o", stdin="Hi\n", env={"OPENROUTER_API_KEY": ""}
    )

    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "agentry: error: OpenRouter needs an API key: pass api_key= or set OPENROUTER_API_KEY"
    )


def test_chat_with_a_named_llama_cpp_server(agentry: Agentry, llama_server: str) -> None:
    result = agentry(
        "chat",
        "--client",
        "llamacpp:local",
        "--instructions",
        "Answer with one word.",
        stdin="Name one colour.\n",
        env={"LLAMA_CPP_BASE_URL": f"{llama_server}/v1", "LLAMA_API_KEY": LLAMA_SERVER_KEY},
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
