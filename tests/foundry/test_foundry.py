"""`FoundryChatClient` against the local front of tests/azure/front.py, which checks a
Foundry project's Responses URL and its Microsoft Entra ID token (and says where those
shapes are documented), with OpenAI's recorded Responses payloads behind it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent, tool
from agentry.errors import ChatClientError
from agentry.foundry import FoundryChatClient
from agentry.testing import ReplayServer
from tests.azure.entra import FakeAsyncCredential, FakeCredential, install_fake_az
from tests.azure.front import FOUNDRY_RESOURCE, AzureFront, entra_token

RECORDINGS = Path(__file__).parents[1] / "openai" / "recordings"
FOUNDRY_BEARER = f"Bearer {entra_token(FOUNDRY_RESOURCE)}"

FrontFor = Callable[[str], AzureFront]


@pytest.fixture
def front_for(monkeypatch: pytest.MonkeyPatch) -> Iterator[FrontFor]:
    for name in (
        "FOUNDRY_PROJECT_ENDPOINT",
        "AZURE_AI_PROJECT_ENDPOINT",
        "FOUNDRY_MODEL",
        "AZURE_AI_MODEL_DEPLOYMENT_NAME",
    ):
        monkeypatch.delenv(name, raising=False)
    with ExitStack() as stack:

        def start(recording: str) -> AzureFront:
            replay = stack.enter_context(ReplayServer(RECORDINGS / f"{recording}.json"))
            return stack.enter_context(AzureFront(replay.url))

        yield start


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}[city]


async def test_requests_go_to_the_projects_responses_api_with_a_foundry_token(
    front_for: FrontFor,
) -> None:
    front = front_for("responses_parallel_tools")
    credential = FakeCredential()
    client = FoundryChatClient(
        project_endpoint=f"{front.url}/api/projects/demo",
        credential=credential,
        model="gpt-4.1-mini",
    )
    agent = Agent(client=client, tools=[get_weather], default_options={"store": True})

    response = await agent.run("What is the weather in Paris and in Tokyo?")

    assert response.text == "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."
    assert [s.path for s in front.seen] == ["/api/projects/demo/openai/v1/responses"] * 2
    assert {s.headers["authorization"] for s in front.seen} == {FOUNDRY_BEARER}
    assert [s.body["model"] for s in front.seen] == ["gpt-4.1-mini"] * 2
    assert credential.scopes == [("https://ai.azure.com/.default",)]


async def test_settings_come_from_the_foundry_variables_and_streams_work(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = front_for("responses_text_stream")
    monkeypatch.setenv("FOUNDRY_PROJECT_ENDPOINT", f"{front.url}/api/projects/demo/")
    monkeypatch.setenv("FOUNDRY_MODEL", "gpt-4.1-mini")
    client = FoundryChatClient(credential=FakeAsyncCredential())

    stream = client.get_response("Say hello.", stream=True)
    pieces = [update.text async for update in stream]
    response = await stream.get_final_response()

    assert response.text == "".join(pieces) == "Hello! How can I help you today?"
    assert front.seen[0].path == "/api/projects/demo/openai/v1/responses"
    assert front.seen[0].headers["authorization"] == FOUNDRY_BEARER


async def test_the_real_azure_cli_credential_asks_az_for_a_foundry_token(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from azure.identity import AzureCliCredential

    monkeypatch.setenv("PATH", install_fake_az(tmp_path))
    front = front_for("responses_text")
    client = FoundryChatClient(
        "gpt-4.1-mini",
        project_endpoint=f"{front.url}/api/projects/demo",
        credential=AzureCliCredential(),
    )

    assert (await client.get_response("What is the capital of France?")).text == "Paris."
    assert front.seen[0].headers["authorization"] == FOUNDRY_BEARER


async def test_an_azure_openai_token_is_refused_by_the_project(front_for: FrontFor) -> None:
    def azure_openai_token() -> str:
        return entra_token("https://cognitiveservices.azure.com")

    front = front_for("responses_text")
    client = FoundryChatClient(
        "gpt-4.1-mini",
        project_endpoint=f"{front.url}/api/projects/demo",
        credential=azure_openai_token,
        max_retries=0,
    )

    with pytest.raises(ChatClientError) as caught:
        await client.get_response("Hello")
    assert caught.value.status_code == 401
    assert "check the credential's sign-in" in str(caught.value)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"project_endpoint": "https://a.services.ai.azure.com/api/projects/p"},
            "no Foundry model deployment given: pass model= or set one of FOUNDRY_MODEL, "
            "AZURE_AI_MODEL_DEPLOYMENT_NAME (tried in this order)",
        ),
        (
            {"model": "m"},
            "no Foundry project endpoint given: pass project_endpoint= or set one of "
            "FOUNDRY_PROJECT_ENDPOINT, AZURE_AI_PROJECT_ENDPOINT (tried in this order)",
        ),
        (
            {"model": "m", "project_endpoint": "https://a.openai.azure.com"},
            "the Foundry project endpoint looks like "
            "https://ACCOUNT.services.ai.azure.com/api/projects/PROJECT (the project's overview "
            "page in the Foundry portal shows it), not 'https://a.openai.azure.com'",
        ),
    ],
)
def test_missing_or_wrong_settings_say_what_to_set(
    front_for: FrontFor, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(ChatClientError) as caught:
        FoundryChatClient(credential=FakeCredential(), **arguments)
    assert str(caught.value) == message


async def test_aclose_closes_the_sdk_client_built_here_and_the_next_call_builds_another(
    front_for: FrontFor,
) -> None:
    front = front_for("responses_parallel_tools")
    client = FoundryChatClient(
        "gpt-4.1-mini",
        project_endpoint=f"{front.url}/api/projects/demo",
        credential=FakeCredential(),
    )
    await client.get_response("What is the weather in Paris and in Tokyo?")
    sdk = client.client

    await client.aclose()
    assert sdk.is_closed()
    response = await client.get_response("And now?")  # the recording's second answer

    assert response.text == "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."
    assert client.client is not sdk
    assert [s.path for s in front.seen] == ["/api/projects/demo/openai/v1/responses"] * 2
    assert {s.headers["authorization"] for s in front.seen} == {FOUNDRY_BEARER}
    await client.aclose()
