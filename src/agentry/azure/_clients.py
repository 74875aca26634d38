"""The Azure OpenAI chat clients: agentry's OpenAI clients on an Azure-bound SDK client.

Requests and responses are mapped by `OpenAIChatClient` and `OpenAIChatCompletionClient`;
only the URL, the version and the sign-in differ, and those live in the SDK client.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agentry.azure._connection import AzureOpenAIConnection, resolve_deployment
from agentry.clients.sdk_errors import sdk_max_retries
from agentry.middleware import MiddlewareTypes
from agentry.openai import MaxTokensParameter, OpenAIChatClient, OpenAIChatCompletionClient
from agentry.types import RetryPolicy

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["AzureOpenAIChatClient", "AzureOpenAIChatCompletionClient"]

RESPONSES_DEPLOYMENT_ENV = (
    "AZURE_OPENAI_CHAT_MODEL",
    "AZURE_OPENAI_RESPONSES_DEPLOYMENT_NAME",
    "AZURE_OPENAI_MODEL",
    "AZURE_OPENAI_DEPLOYMENT_NAME",
)
CHAT_COMPLETION_DEPLOYMENT_ENV = (
    "AZURE_OPENAI_CHAT_COMPLETION_MODEL",
    "AZURE_OPENAI_CHAT_DEPLOYMENT_NAME",
    "AZURE_OPENAI_MODEL",
    "AZURE_OPENAI_DEPLOYMENT_NAME",
)


def _azure_advice(deployment: str) -> Mapping[int, str]:
    """What an Azure OpenAI error advises, over the defaults: Azure's own answers to an
    unknown deployment do not name it, so the advice does."""
    return {
        401: "check the key (api_key= or AZURE_OPENAI_API_KEY) or the credential's sign-in",
        403: "the identity may not use this resource: give it the 'Cognitive Services OpenAI "
        "User' role, or check the resource's network rules",
        404: f"check the deployment name {deployment!r} (model=) and the endpoint; on classic "
        "URLs, also that api_version serves this API",
    }


class AzureOpenAIChatClient(OpenAIChatClient):
    """A chat client for the Responses API of an Azure OpenAI resource.

    Everything `OpenAIChatClient` maps works the same; the model is the deployment name.
    Sign-in: an API key, or a Microsoft Entra ID `credential` (`azure-identity`); with
    neither, `DefaultAzureCredential` (the `azure` extra).

    Args:
        model: The deployment name (default: the first of `AZURE_OPENAI_CHAT_MODEL`,
            `AZURE_OPENAI_RESPONSES_DEPLOYMENT_NAME`, `AZURE_OPENAI_MODEL` and
            `AZURE_OPENAI_DEPLOYMENT_NAME` that is set).
        endpoint: The resource, `https://NAME.openai.azure.com` (default:
            `AZURE_OPENAI_ENDPOINT`).
        base_url: A full v1 base URL instead of `endpoint`, used as it is (default:
            `AZURE_OPENAI_BASE_URL`).
        api_key: The resource key (default: `AZURE_OPENAI_API_KEY`).
        credential: An `azure-identity` credential (sync or async) or a token callable.
        api_version: `v1` (default) for `{endpoint}/openai/v1/responses`, or a dated
            version such as `2025-04-01-preview` for `{endpoint}/openai/responses?api-version=`
            (default: `AZURE_OPENAI_API_VERSION`).
        client: An `openai.AsyncOpenAI` (or `AsyncAzureOpenAI`) to use instead (the caller
            closes it; `aclose()` closes only one the chat client built).
        timeout: Seconds per request (the SDK's default otherwise).
        max_retries: The SDK's own retries of failed requests: only with `retry=None`
            (while agentry's policy retries, the SDK's retries are off).
        default_headers: Headers sent with every request.
        middleware: Chat middleware.
        retry: How failed calls are retried (default: `RetryPolicy()`; `None`: not by
            agentry).

    Example:
        >>> from agentry import Agent
        >>> client = AzureOpenAIChatClient(
        ...     "gpt-4.1-mini", endpoint="https://my-resource.openai.azure.com", api_key="..."
        ... )
        >>> agent = Agent(client=client, instructions="You are helpful.")
    """

    OTEL_PROVIDER_NAME = "azure.ai.openai"
    service_name = "Azure OpenAI's Responses API"

    def __init__(
        self,
        model: str | None = None,
        *,
        endpoint: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        credential: Any = None,
        api_version: str | None = None,
        client: AsyncOpenAI | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        default_headers: dict[str, str] | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
    ) -> None:
        deployment = resolve_deployment(model, RESPONSES_DEPLOYMENT_ENV)
        build = None  # how the SDK client is built again after aclose(), if it is built here
        if client is None:
            build = AzureOpenAIConnection.resolve(
                endpoint=endpoint,
                base_url=base_url,
                api_key=api_key,
                credential=credential,
                api_version=api_version,
                timeout=timeout,
                max_retries=sdk_max_retries(retry, max_retries),
                default_headers=default_headers,
            ).sdk_client
            client = build()
        super().__init__(deployment, client=client, middleware=middleware, retry=retry)
        if build is not None:
            self._hold_sdk(self.client, build)
        self.error_advice = _azure_advice(deployment)


class AzureOpenAIChatCompletionClient(OpenAIChatCompletionClient):
    """A chat client for the Chat Completions API of an Azure OpenAI resource.

    Everything `OpenAIChatCompletionClient` maps works the same; the model is the
    deployment name. Sign-in as for `AzureOpenAIChatClient`.

    Args:
        model: The deployment name (default: the first of
            `AZURE_OPENAI_CHAT_COMPLETION_MODEL`, `AZURE_OPENAI_CHAT_DEPLOYMENT_NAME`,
            `AZURE_OPENAI_MODEL` and `AZURE_OPENAI_DEPLOYMENT_NAME` that is set).
        endpoint: The resource, `https://NAME.openai.azure.com` (default:
            `AZURE_OPENAI_ENDPOINT`).
        base_url: A full v1 base URL instead of `endpoint`, used as it is (default:
            `AZURE_OPENAI_BASE_URL`).
        api_key: The resource key (default: `AZURE_OPENAI_API_KEY`).
        credential: An `azure-identity` credential (sync or async) or a token callable.
        api_version: `v1` (default) for `{endpoint}/openai/v1/chat/completions`, or a
            dated version such as `2024-10-21` for
            `{endpoint}/openai/deployments/{model}/chat/completions?api-version=`
            (default: `AZURE_OPENAI_API_VERSION`).
        client: An `openai.AsyncOpenAI` (or `AsyncAzureOpenAI`) to use instead (the caller
            closes it; `aclose()` closes only one the chat client built).
        timeout: Seconds per request (the SDK's default otherwise).
        max_retries: The SDK's own retries of failed requests: only with `retry=None`
            (while agentry's policy retries, the SDK's retries are off).
        default_headers: Headers sent with every request.
        max_tokens_parameter: The request field of `max_tokens` (default:
            `max_completion_tokens`, which Azure's reasoning models need).
        middleware: Chat middleware.
        retry: How failed calls are retried (default: `RetryPolicy()`; `None`: not by
            agentry).

    Example:
        >>> client = AzureOpenAIChatCompletionClient(
        ...     "gpt-4o-mini", endpoint="https://my-resource.openai.azure.com", api_key="..."
        ... )
    """

    OTEL_PROVIDER_NAME = "azure.ai.openai"
    service_name = "Azure OpenAI's Chat Completions API"

    def __init__(
        self,
        model: str | None = None,
        *,
        endpoint: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        credential: Any = None,
        api_version: str | None = None,
        client: AsyncOpenAI | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        default_headers: dict[str, str] | None = None,
        max_tokens_parameter: MaxTokensParameter = "max_completion_tokens",
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
    ) -> None:
        deployment = resolve_deployment(model, CHAT_COMPLETION_DEPLOYMENT_ENV)
        build = None  # how the SDK client is built again after aclose(), if it is built here
        if client is None:
            build = AzureOpenAIConnection.resolve(
                endpoint=endpoint,
                base_url=base_url,
                api_key=api_key,
                credential=credential,
                api_version=api_version,
                timeout=timeout,
                max_retries=sdk_max_retries(retry, max_retries),
                default_headers=default_headers,
            ).sdk_client
            client = build()
        super().__init__(
            deployment,
            client=client,
            max_tokens_parameter=max_tokens_parameter,
            middleware=middleware,
            retry=retry,
        )
        if build is not None:
            self._hold_sdk(self.client, build)
        self.error_advice = _azure_advice(deployment)
