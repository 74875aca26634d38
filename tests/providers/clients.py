"""The clients under the conformance suite: one `ProviderCase` each, in `PROVIDERS`.

To put a client under the suite, add a case: how to build it for a server URL and key,
the path its requests go to, its provider's error bodies and advice, and recordings in its
wire format (a plain text answer, and two parallel tool calls followed by the final answer,
plain and streamed). A client whose service has URL shapes or headers of its own (Azure
OpenAI, Azure AI Foundry) gives a `front` that puts them in front of the server.
The live scenarios run against llama.cpp's `llama-server`; what one local server cannot
show (parallel calls, unknown models, rate limits) is replayed from the recordings, through
the same front.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentry.anthropic import AnthropicChatClient
from agentry.azure import AzureOpenAIChatClient, AzureOpenAIChatCompletionClient
from agentry.clients import BaseChatClient
from agentry.foundry import FoundryChatClient
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from agentry.types import RetryPolicy
from tests.azure.entra import FakeCredential
from tests.azure.front import AZURE_OPENAI_RESOURCE, AzureFront
from tests.providers.llama_server import API_KEY

TESTS = Path(__file__).resolve().parents[1]
OPENAI_RECORDINGS = TESTS / "openai" / "recordings"
ANTHROPIC_RECORDINGS = TESTS / "anthropic" / "recordings"

MakeClient = Callable[[str, str, RetryPolicy | None], BaseChatClient]
"""(server URL without `/v1`, API key, retry policy) -> a client for the model "local"."""
Front = Callable[[str], AbstractContextManager[str]]
"""Given a server's URL, a context that yields the URL the client talks to instead: a
local front that checks the provider's URL shapes and headers and passes requests on."""


@dataclass(frozen=True)
class ProviderCase:
    """How the conformance suite builds and replays one client."""

    id: str
    make: MakeClient
    path: str
    """The path of the server behind any front its requests go to, such as "/v1/messages"."""
    unknown_model_error: Any
    """The provider's JSON error body for a model it does not have (HTTP 404)."""
    rate_limit_error: Any
    """The provider's JSON error body for a rate limit (HTTP 429)."""
    bad_key_advice: str
    """What the error for a refused key (HTTP 401) tells the user to do."""
    text_recording: Path
    parallel_tools_recording: Path
    """Two `get_weather` calls (Paris, Tokyo), then the answer "It is sunny and 21°C in
    Paris, and rainy and 16°C in Tokyo."."""
    parallel_tools_stream_recording: Path
    """The same exchanges, streamed."""
    unknown_model_advice: str = "check the model name and base_url"
    """What the error for an unknown model (HTTP 404) tells the user to do."""
    structured_recording: Path | None = None
    """Set when the local server cannot show this client's structured output: a `CityFacts`
    answer about Paris (city "Paris", country "France"), replayed instead."""
    front: Front | None = None
    """Set when the client cannot talk to the server as it is (see `Front`)."""
    stop_sequences: bool = True
    """Whether its API takes stop sequences (OpenAI's Responses API has none)."""

    def reach(self, server_url: str) -> AbstractContextManager[str]:
        """The URL to give `make` for a server: the server's own, or its front's."""
        return nullcontext(server_url) if self.front is None else self.front(server_url)

    def __str__(self) -> str:
        return self.id


# As OpenAI's and Anthropic's API references document their error bodies.
_OPENAI_UNKNOWN_MODEL = {
    "error": {
        "message": "The model `nope` does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "param": None,
        "code": "model_not_found",
    }
}
_OPENAI_RATE_LIMIT = {
    "error": {
        "message": "Rate limit reached for gpt-4.1-mini on requests per min (RPM): Limit 3, "
        "Used 3, Requested 1.",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
}
_ANTHROPIC_UNKNOWN_MODEL = {
    "type": "error",
    "error": {"type": "not_found_error", "message": "model: nope"},
}
_ANTHROPIC_RATE_LIMIT = {
    "type": "error",
    "error": {
        "type": "rate_limit_error",
        "message": "This request would exceed the rate limit for your organization of 50 "
        "requests per minute.",
    },
}
# As Azure OpenAI answers (its reference's ErrorResponse: a code and a message); a Foundry
# project's OpenAI endpoint serves the deployments of its resource and answers alike.
_AZURE_UNKNOWN_DEPLOYMENT = {
    "error": {
        "code": "DeploymentNotFound",
        "message": "The API deployment for this resource does not exist. If you created the "
        "deployment within the last 5 minutes, please wait a moment and try again.",
    }
}
_AZURE_RATE_LIMIT = {
    "error": {
        "code": "429",
        "message": "Requests to the Create Operation under Azure OpenAI API have exceeded "
        "token rate limit of your current AIServices S0 pricing tier. Please retry after 1 "
        "second.",
    }
}
_AZURE_BAD_KEY = "check the key (api_key= or AZURE_OPENAI_API_KEY) or the credential's sign-in"
_AZURE_UNKNOWN_DEPLOYMENT_ADVICE = "check the deployment name 'local' (model=) and the endpoint"


def _identity(key: str, *, audience: str | None = None) -> FakeCredential:
    """A Microsoft Entra ID identity standing for `key`: signed in for the scope asked when
    it is the suite's key; for any other, one whose tokens are for another audience, which
    the service refuses."""
    return FakeCredential(audience=None if key == API_KEY else audience)


def _azure_front(path: str) -> Front:
    """A front accepting only `path`, Azure's key being the suite's key."""

    @contextmanager
    def front(server_url: str) -> Generator[str]:
        with AzureFront(
            server_url, upstream_key=API_KEY, api_key=API_KEY, only_path=path
        ) as started:
            yield started.url

    return front


def _azure_case(
    id: str, make: MakeClient, *, api: Literal["responses", "chat"], front_path: str
) -> ProviderCase:
    """A case of the Azure OpenAI or Foundry clients: OpenAI's wire format behind a front."""
    if api == "responses":
        path, recording, structured = "/v1/responses", "responses", "responses_structured"
    else:
        path, recording, structured = "/v1/chat/completions", "chat_completions", None
    foundry = front_path.startswith("/api/projects/")
    return ProviderCase(
        id=id,
        make=make,
        path=path,
        unknown_model_error=_AZURE_UNKNOWN_DEPLOYMENT,
        rate_limit_error=_AZURE_RATE_LIMIT,
        bad_key_advice="check the credential's sign-in" if foundry else _AZURE_BAD_KEY,
        unknown_model_advice=(
            "check the model deployment 'local' (model=, FOUNDRY_MODEL)"
            if foundry
            else _AZURE_UNKNOWN_DEPLOYMENT_ADVICE
        ),
        text_recording=OPENAI_RECORDINGS / f"{recording}_text.json",
        parallel_tools_recording=OPENAI_RECORDINGS / f"{recording}_parallel_tools.json",
        parallel_tools_stream_recording=OPENAI_RECORDINGS
        / f"{recording}_parallel_tools_stream.json",
        structured_recording=OPENAI_RECORDINGS / f"{structured}.json" if structured else None,
        front=_azure_front(front_path),
        stop_sequences=api == "chat",
    )


PROVIDERS = [
    ProviderCase(
        id="openai-responses",
        make=lambda url, key, retry: OpenAIChatClient(
            "local", base_url=f"{url}/v1", api_key=key, retry=retry, max_retries=0
        ),
        path="/v1/responses",
        unknown_model_error=_OPENAI_UNKNOWN_MODEL,
        rate_limit_error=_OPENAI_RATE_LIMIT,
        bad_key_advice="check the API key: pass api_key= or set OPENAI_API_KEY",
        text_recording=OPENAI_RECORDINGS / "responses_text.json",
        parallel_tools_recording=OPENAI_RECORDINGS / "responses_parallel_tools.json",
        parallel_tools_stream_recording=OPENAI_RECORDINGS / "responses_parallel_tools_stream.json",
        # llama-server's Responses API does not apply `text.format`.
        structured_recording=OPENAI_RECORDINGS / "responses_structured.json",
        stop_sequences=False,
    ),
    ProviderCase(
        id="openai-chat-completions",
        make=lambda url, key, retry: OpenAIChatCompletionClient(
            "local", base_url=f"{url}/v1", api_key=key, retry=retry, max_retries=0
        ),
        path="/v1/chat/completions",
        unknown_model_error=_OPENAI_UNKNOWN_MODEL,
        rate_limit_error=_OPENAI_RATE_LIMIT,
        bad_key_advice="check the API key: pass api_key= or set OPENAI_API_KEY",
        text_recording=OPENAI_RECORDINGS / "chat_completions_text.json",
        parallel_tools_recording=OPENAI_RECORDINGS / "chat_completions_parallel_tools.json",
        parallel_tools_stream_recording=OPENAI_RECORDINGS
        / "chat_completions_parallel_tools_stream.json",
    ),
    ProviderCase(
        id="anthropic",
        make=lambda url, key, retry: AnthropicChatClient(
            "local", base_url=url, api_key=key, retry=retry, max_retries=0
        ),
        path="/v1/messages",
        unknown_model_error=_ANTHROPIC_UNKNOWN_MODEL,
        rate_limit_error=_ANTHROPIC_RATE_LIMIT,
        bad_key_advice="check the API key: pass api_key= or set ANTHROPIC_API_KEY",
        text_recording=ANTHROPIC_RECORDINGS / "messages_text.json",
        parallel_tools_recording=ANTHROPIC_RECORDINGS / "messages_parallel_tools.json",
        parallel_tools_stream_recording=ANTHROPIC_RECORDINGS
        / "messages_parallel_tools_stream.json",
    ),
    # Azure OpenAI: each API on each URL style, signed in with the key on one and with
    # Microsoft Entra ID on the other.
    _azure_case(
        "azure-responses-v1-key",
        lambda url, key, retry: AzureOpenAIChatClient(
            "local", endpoint=url, api_key=key, retry=retry, max_retries=0
        ),
        api="responses",
        front_path="/openai/v1/responses",
    ),
    _azure_case(
        "azure-responses-classic-entra",
        lambda url, key, retry: AzureOpenAIChatClient(
            "local",
            endpoint=url,
            credential=_identity(key, audience="https://management.azure.com"),
            api_version="2025-04-01-preview",
            retry=retry,
            max_retries=0,
        ),
        api="responses",
        front_path="/openai/responses",
    ),
    _azure_case(
        "azure-chat-completions-classic-key",
        lambda url, key, retry: AzureOpenAIChatCompletionClient(
            "local", endpoint=url, api_key=key, api_version="2024-10-21", retry=retry, max_retries=0
        ),
        api="chat",
        front_path="/openai/deployments/local/chat/completions",
    ),
    _azure_case(
        "azure-chat-completions-v1-entra",
        lambda url, key, retry: AzureOpenAIChatCompletionClient(
            "local",
            endpoint=url,
            credential=_identity(key, audience="https://management.azure.com"),
            retry=retry,
            max_retries=0,
        ),
        api="chat",
        front_path="/openai/v1/chat/completions",
    ),
    _azure_case(
        "foundry",
        lambda url, key, retry: FoundryChatClient(
            "local",
            project_endpoint=f"{url}/api/projects/demo",
            # An Azure OpenAI token is the usual mistake: a project refuses it.
            credential=_identity(key, audience=AZURE_OPENAI_RESOURCE),
            retry=retry,
            max_retries=0,
        ),
        api="responses",
        front_path="/api/projects/demo/openai/v1/responses",
    ),
]
