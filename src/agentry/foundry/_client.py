"""`FoundryChatClient`: the OpenAI-compatible Responses API of an Azure AI Foundry project."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentry.azure import FOUNDRY_SCOPE, entra_token_provider
from agentry.clients.sdk_errors import sdk_max_retries
from agentry.errors import ChatClientError
from agentry.middleware import MiddlewareTypes
from agentry.openai import OpenAIChatClient
from agentry.types import RetryPolicy

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["FoundryChatClient"]

MODEL_ENV = ("FOUNDRY_MODEL", "AZURE_AI_MODEL_DEPLOYMENT_NAME")
PROJECT_ENDPOINT_ENV = ("FOUNDRY_PROJECT_ENDPOINT", "AZURE_AI_PROJECT_ENDPOINT")
_ENDPOINT_SHAPE = "https://ACCOUNT.services.ai.azure.com/api/projects/PROJECT"


class FoundryChatClient(OpenAIChatClient):
    """A chat client for an Azure AI Foundry project endpoint.

    It speaks the project's OpenAI-compatible Responses API
    (`{project_endpoint}/openai/v1/responses`) with a Microsoft Entra ID token for
    `https://ai.azure.com/.default`; everything `OpenAIChatClient` maps works the same.
    The model is the name of a model deployment of the project's resource.

    Args:
        model: The model deployment (default: `FOUNDRY_MODEL`, then
            `AZURE_AI_MODEL_DEPLOYMENT_NAME`).
        project_endpoint: The project endpoint, as the project's overview page in the
            Foundry portal shows it: `https://ACCOUNT.services.ai.azure.com/api/projects/PROJECT`
            (default: `FOUNDRY_PROJECT_ENDPOINT`, then `AZURE_AI_PROJECT_ENDPOINT`).
        credential: An `azure-identity` credential, sync or async, or a token callable
            (default: `DefaultAzureCredential`; needs the `azure` extra).
        client: An `openai.AsyncOpenAI` already pointed at the project, to use instead
            (the caller closes it; `aclose()` closes only one the chat client built).
        timeout: Seconds per request (the SDK's default otherwise).
        max_retries: The SDK's own retries of failed requests: only with `retry=None`
            (while agentry's policy retries, the SDK's retries are off).
        default_headers: Headers sent with every request.
        middleware: Chat middleware.
        retry: How failed calls are retried (default: `RetryPolicy()`; `None`: not by
            agentry).

    Example:
        >>> from azure.identity import AzureCliCredential
        >>> client = FoundryChatClient(
        ...     project_endpoint="https://my-account.services.ai.azure.com/api/projects/demo",
        ...     credential=AzureCliCredential(),
        ...     model="gpt-4.1-mini",
        ... )
    """

    OTEL_PROVIDER_NAME = "azure.ai.foundry"
    service_name = "the Foundry project's Responses API"

    def __init__(
        self,
        model: str | None = None,
        *,
        project_endpoint: str | None = None,
        credential: Any = None,
        client: AsyncOpenAI | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        default_headers: dict[str, str] | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
    ) -> None:
        deployment = _first_set(model, MODEL_ENV, "model deployment", "model=")
        build = None  # how the SDK client is built again after aclose(), if it is built here
        if client is None:
            from openai import AsyncOpenAI

            endpoint = _checked_endpoint(
                _first_set(
                    project_endpoint, PROJECT_ENDPOINT_ENV, "project endpoint", "project_endpoint="
                )
            )
            options: dict[str, Any] = {"default_headers": default_headers}
            if timeout is not None:
                options["timeout"] = timeout
            sdk_retries = sdk_max_retries(retry, max_retries)
            if sdk_retries is not None:
                options["max_retries"] = sdk_retries
            build = partial(
                AsyncOpenAI,
                base_url=f"{endpoint}/openai/v1/",
                api_key=entra_token_provider(credential, FOUNDRY_SCOPE),
                **options,
            )
            client = build()
        super().__init__(deployment, client=client, middleware=middleware, retry=retry)
        if build is not None:
            self._hold_sdk(self.client, build)
        self.error_advice = _foundry_advice(deployment)


def _foundry_advice(deployment: str) -> Mapping[int, str]:
    """What a project's errors advise, over the defaults (its 404 does not name the model)."""
    return {
        401: "check the credential's sign-in (for AzureCliCredential: az login)",
        403: "the identity may not use this project: give it the 'Azure AI User' role",
        404: f"check the model deployment {deployment!r} (model=, FOUNDRY_MODEL) and the "
        "project endpoint",
    }


def _first_set(given: str | None, env: tuple[str, ...], what: str, argument: str) -> str:
    value = given or next((os.environ[v] for v in env if os.environ.get(v)), None)
    if not value:
        raise ChatClientError(
            f"no Foundry {what} given: pass {argument} or set one of {', '.join(env)} "
            "(tried in this order)"
        )
    return value


def _checked_endpoint(endpoint: str) -> str:
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or "/api/projects/" not in f"{parts.path}/":
        raise ChatClientError(
            f"the Foundry project endpoint looks like {_ENDPOINT_SHAPE} (the project's overview "
            f"page in the Foundry portal shows it), not {endpoint!r}"
        )
    return endpoint.rstrip("/")
