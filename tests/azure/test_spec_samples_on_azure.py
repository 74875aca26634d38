"""The specification's samples that use `OpenAIChatClient`, written for Azure OpenAI and
for Azure AI Foundry: only the import and the client's name change. The settings come from
the environment, as a reader's would; the services are the local Azure front
(tests/azure/front.py) with recorded Responses payloads behind it, and Microsoft Entra ID
tokens come from the real `DefaultAzureCredential` asking a stand-in `az` command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.azure.conftest import FrontFor
from tests.azure.entra import install_fake_az


@pytest.fixture
def signed_in_with_az(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`az login` done: DefaultAzureCredential finds the Azure CLI (and only it)."""
    monkeypatch.setenv("PATH", install_fake_az(tmp_path))
    monkeypatch.setenv("AZURE_TOKEN_CREDENTIALS", "AzureCliCredential")


async def test_creating_an_agent_on_azure_openai(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = front_for("responses_text")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", front.url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-test-key")
    monkeypatch.setenv("AZURE_OPENAI_CHAT_MODEL", "gpt-4.1-mini")

    from agentry import Agent
    from agentry.azure import AzureOpenAIChatClient

    def my_function(city: str) -> str:
        """Look up a city."""
        return city

    agent = Agent(
        client=AzureOpenAIChatClient(),
        instructions="You are helpful.",
        tools=[my_function],
    )
    response = await agent.run("Hello")

    assert response.text == "Paris."
    (seen,) = front.seen
    assert seen.path == "/openai/v1/responses"
    assert seen.body["instructions"] == "You are helpful."
    assert seen.body["tools"][0]["name"] == "my_function"


@pytest.mark.usefixtures("signed_in_with_az")
async def test_as_agent_shorthand_on_azure_openai_signed_in_with_entra_id(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = front_for("responses_text")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", front.url)
    monkeypatch.setenv("AZURE_OPENAI_CHAT_MODEL", "gpt-4.1-mini")

    from agentry.azure import AzureOpenAIChatClient

    agent = AzureOpenAIChatClient().as_agent(
        name="Assistant",
        instructions="You are helpful.",
    )

    assert (agent.name, agent.instructions) == ("Assistant", "You are helpful.")
    assert (await agent.run("Hello")).text == "Paris."
    authorization = front.seen[0].headers["authorization"]
    assert authorization == "Bearer entra:https://cognitiveservices.azure.com"


@pytest.mark.usefixtures("signed_in_with_az")
async def test_creating_an_agent_on_a_foundry_project(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = front_for("responses_text")
    monkeypatch.setenv("FOUNDRY_PROJECT_ENDPOINT", f"{front.url}/api/projects/demo")
    monkeypatch.setenv("FOUNDRY_MODEL", "gpt-4.1-mini")

    from agentry import Agent
    from agentry.foundry import FoundryChatClient

    def my_function(city: str) -> str:
        """Look up a city."""
        return city

    agent = Agent(
        client=FoundryChatClient(),
        instructions="You are helpful.",
        tools=[my_function],
    )
    response = await agent.run("Hello")

    assert response.text == "Paris."
    (seen,) = front.seen
    assert seen.path == "/api/projects/demo/openai/v1/responses"
    assert seen.headers["authorization"] == "Bearer entra:https://ai.azure.com"
    assert seen.body["tools"][0]["name"] == "my_function"


@pytest.mark.usefixtures("signed_in_with_az")
async def test_as_agent_shorthand_on_a_foundry_project(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = front_for("responses_text")
    monkeypatch.setenv("FOUNDRY_PROJECT_ENDPOINT", f"{front.url}/api/projects/demo")
    monkeypatch.setenv("FOUNDRY_MODEL", "gpt-4.1-mini")

    from agentry.foundry import FoundryChatClient

    agent = FoundryChatClient().as_agent(
        name="Assistant",
        instructions="You are helpful.",
    )

    assert (agent.name, agent.instructions) == ("Assistant", "You are helpful.")
    assert (await agent.run("Hello")).text == "Paris."
