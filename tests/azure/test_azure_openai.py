"""The Azure OpenAI clients against the local Azure front (tests/azure/front.py, which says
where the URL and header shapes it checks are documented), with OpenAI's recorded Responses
payloads behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from azure.core.exceptions import ClientAuthenticationError

from agentry import Agent, tool
from agentry.azure import AzureOpenAIChatClient, AzureOpenAIChatCompletionClient
from agentry.errors import ChatClientError
from openai import AsyncOpenAI
from tests.azure.conftest import FrontFor
from tests.azure.entra import FakeAsyncCredential, FakeCredential, install_fake_az
from tests.azure.front import API_KEY, AZURE_OPENAI_RESOURCE, entra_token

AZURE_SCOPE = "https://cognitiveservices.azure.com/.default"
AZURE_BEARER = f"Bearer {entra_token(AZURE_OPENAI_RESOURCE)}"


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}[city]


async def test_the_v1_api_is_the_default_and_sends_the_key(front_for: FrontFor) -> None:
    front = front_for("responses_text_stream")
    client = AzureOpenAIChatClient("my-deployment", endpoint=front.url, api_key=API_KEY)

    stream = client.get_response("Say hello.", stream=True)
    response = await stream.get_final_response()

    assert response.text == "Hello! How can I help you today?"
    (seen,) = front.seen
    assert seen.path == "/openai/v1/responses"
    assert seen.query == {}
    assert seen.headers["authorization"] == f"Bearer {API_KEY}"
    assert seen.body["model"] == "my-deployment"


async def test_a_dated_api_version_uses_the_classic_url_and_the_api_key_header(
    front_for: FrontFor,
) -> None:
    front = front_for("responses_text")
    client = AzureOpenAIChatClient(
        "my-deployment",
        endpoint=f"{front.url}/",
        api_key=API_KEY,
        api_version="2025-04-01-preview",
    )

    response = await client.get_response("What is the capital of France?")

    assert response.text == "Paris."
    (seen,) = front.seen
    assert (seen.path, seen.query) == ("/openai/responses", {"api-version": "2025-04-01-preview"})
    assert seen.headers["api-key"] == API_KEY
    assert "authorization" not in seen.headers
    assert seen.body["model"] == "my-deployment"


async def test_an_entra_id_credential_sends_a_bearer_token_for_the_azure_openai_scope(
    front_for: FrontFor,
) -> None:
    front = front_for("responses_parallel_tools")
    credential = FakeCredential()
    client = AzureOpenAIChatClient("my-deployment", endpoint=front.url, credential=credential)
    agent = Agent(client=client, tools=[get_weather], default_options={"store": True})

    response = await agent.run("What is the weather in Paris and in Tokyo?")

    assert response.text == "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."
    assert [s.headers["authorization"] for s in front.seen] == [AZURE_BEARER, AZURE_BEARER]
    assert all("api-key" not in s.headers for s in front.seen)
    assert credential.scopes == [(AZURE_SCOPE,)]  # the token is kept until it expires


async def test_an_async_credential_signs_classic_requests_too(front_for: FrontFor) -> None:
    front = front_for("responses_text")
    credential = FakeAsyncCredential()
    client = AzureOpenAIChatClient(
        "my-deployment", endpoint=front.url, credential=credential, api_version="2025-03-01-preview"
    )

    assert (await client.get_response("What is the capital of France?")).text == "Paris."
    (seen,) = front.seen
    assert seen.path == "/openai/responses"
    assert seen.headers["authorization"] == AZURE_BEARER
    assert credential.scopes == [(AZURE_SCOPE,)]


async def test_the_real_azure_cli_credential_gets_its_token_from_az(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from azure.identity import AzureCliCredential

    monkeypatch.setenv("PATH", install_fake_az(tmp_path))
    front = front_for("responses_text")
    client = AzureOpenAIChatClient(
        "my-deployment", endpoint=front.url, credential=AzureCliCredential()
    )

    assert (await client.get_response("What is the capital of France?")).text == "Paris."
    assert front.seen[0].headers["authorization"] == AZURE_BEARER


async def test_without_key_or_credential_the_default_azure_credential_signs_in(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    import azure.identity

    monkeypatch.setattr(azure.identity, "DefaultAzureCredential", FakeCredential)
    front = front_for("responses_text")
    client = AzureOpenAIChatClient("my-deployment", endpoint=front.url)

    assert (await client.get_response("What is the capital of France?")).text == "Paris."
    assert front.seen[0].headers["authorization"] == AZURE_BEARER


async def test_settings_come_from_the_azure_openai_variables(
    front_for: FrontFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = front_for("responses_text")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", front.url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2025-04-01-preview")
    monkeypatch.setenv("AZURE_OPENAI_RESPONSES_DEPLOYMENT_NAME", "from-env")

    client = AzureOpenAIChatClient()

    assert (await client.get_response("What is the capital of France?")).text == "Paris."
    (seen,) = front.seen
    assert seen.query == {"api-version": "2025-04-01-preview"}
    assert (seen.headers["api-key"], seen.body["model"]) == (API_KEY, "from-env")


async def test_a_full_base_url_is_used_as_it_is(front_for: FrontFor) -> None:
    front = front_for("responses_text")
    client = AzureOpenAIChatClient(
        "my-deployment", base_url=f"{front.url}/openai/v1/", api_key=API_KEY
    )

    assert (await client.get_response("What is the capital of France?")).text == "Paris."
    assert front.seen[0].path == "/openai/v1/responses"


async def test_a_wrong_key_is_an_error_that_names_the_azure_variable(
    front_for: FrontFor,
) -> None:
    front = front_for("responses_text")
    client = AzureOpenAIChatCompletionClient(
        "my-deployment", endpoint=front.url, api_key="wrong", max_retries=0
    )

    with pytest.raises(ChatClientError) as caught:
        await client.get_response("Hello")

    assert caught.value.status_code == 401
    message = str(caught.value)
    assert message.startswith("Azure OpenAI's Chat Completions API answered HTTP 401")
    assert "AZURE_OPENAI_API_KEY" in message
    assert "OPENAI_API_KEY or" not in message


async def test_a_credential_that_cannot_sign_in_says_what_to_do(front_for: FrontFor) -> None:
    class SignedOut:
        def get_token(self, *scopes: str, **options: Any) -> Any:
            raise ClientAuthenticationError("Please run 'az login' to set up an account")

    front = front_for("responses_text")
    client = AzureOpenAIChatClient("my-deployment", endpoint=front.url, credential=SignedOut())

    with pytest.raises(
        ChatClientError, match=r"SignedOut could not get a Microsoft Entra ID token"
    ):
        await client.get_response("Hello")
    assert front.seen == []


def test_a_missing_deployment_lists_the_variables_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AZURE_OPENAI_CHAT_COMPLETION_MODEL",
        "AZURE_OPENAI_CHAT_DEPLOYMENT_NAME",
        "AZURE_OPENAI_MODEL",
        "AZURE_OPENAI_DEPLOYMENT_NAME",
    ):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ChatClientError) as caught:
        AzureOpenAIChatCompletionClient(endpoint="https://r.openai.azure.com", api_key="k")
    assert str(caught.value) == (
        "no Azure OpenAI deployment given: pass model= (the deployment name) or set one of "
        "AZURE_OPENAI_CHAT_COMPLETION_MODEL, AZURE_OPENAI_CHAT_DEPLOYMENT_NAME, "
        "AZURE_OPENAI_MODEL, AZURE_OPENAI_DEPLOYMENT_NAME (tried in this order)"
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "no Azure OpenAI endpoint: pass endpoint="),
        (
            {"endpoint": "https://r.openai.azure.com/openai/v1/"},
            "is an API URL, not the resource endpoint: pass https://r.openai.azure.com",
        ),
        ({"endpoint": "r.openai.azure.com"}, "must be a URL such as https://NAME.openai.azure"),
        (
            {"endpoint": "https://r.openai.azure.com", "api_version": "latest"},
            "api_version 'latest' is not an Azure OpenAI API version: use 'v1'",
        ),
        (
            {"endpoint": "https://r.openai.azure.com", "credential": FakeCredential()},
            "pass api_key= or credential=, not both",
        ),
    ],
)
def test_bad_settings_are_refused_before_any_request(
    front_for: FrontFor, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(ChatClientError, match=message.replace("(", r"\(")):
        AzureOpenAIChatClient("d", api_key="k", **arguments)


def test_chat_completions_send_max_completion_tokens_as_azure_reasoning_models_need() -> None:
    client = AzureOpenAIChatCompletionClient(
        "d", endpoint="https://r.openai.azure.com", api_key="k"
    )
    assert client.max_tokens_parameter == "max_completion_tokens"
    assert str(client.client.base_url) == "https://r.openai.azure.com/openai/v1/"


@pytest.mark.parametrize("signed_in_by", ["key", "credential"])
async def test_aclose_closes_the_sdk_client_built_here_and_the_next_call_builds_another(
    front_for: FrontFor, signed_in_by: str
) -> None:
    front = front_for("responses_parallel_tools")
    sign_in: dict[str, Any] = (
        {"api_key": API_KEY} if signed_in_by == "key" else {"credential": FakeCredential()}
    )
    client = AzureOpenAIChatClient("my-deployment", endpoint=front.url, **sign_in)
    await client.get_response("What is the weather in Paris and in Tokyo?")
    sdk = client.client

    await client.aclose()
    assert sdk.is_closed()
    response = await client.get_response("And now?")  # the recording's second answer

    assert response.text == "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo."
    assert client.client is not sdk
    bearer = f"Bearer {API_KEY}" if signed_in_by == "key" else AZURE_BEARER
    assert [s.headers["authorization"] for s in front.seen] == [bearer, bearer]
    assert [s.path for s in front.seen] == ["/openai/v1/responses"] * 2
    await client.aclose()


@pytest.mark.parametrize("client_type", [AzureOpenAIChatClient, AzureOpenAIChatCompletionClient])
async def test_an_sdk_client_passed_in_is_left_open_for_its_owner(client_type: Any) -> None:
    sdk = AsyncOpenAI(base_url="https://example.openai.azure.com/openai/v1/", api_key=API_KEY)
    client = client_type("my-deployment", client=sdk)

    await client.aclose()

    assert not client.owns_client
    assert not sdk.is_closed()
    await sdk.close()
