"""Microsoft Entra ID bearer tokens for Azure services, through `azure-identity`."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, cast

from agentry.errors import ChatClientError, MissingExtraError

__all__ = ["AZURE_OPENAI_SCOPE", "FOUNDRY_SCOPE", "TokenProvider", "entra_token_provider"]

AZURE_OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default"
"""The token scope of Azure OpenAI resources."""
FOUNDRY_SCOPE = "https://ai.azure.com/.default"
"""The token scope of Azure AI Foundry project endpoints."""

TokenProvider = Callable[[], Awaitable[str]]
"""An async callable returning a bearer token, as the `openai` SDK takes for `api_key`."""


def entra_token_provider(credential: Any, scope: str) -> TokenProvider:
    """An async callable that returns a Microsoft Entra ID token for `scope` on each call.

    `azure-identity` caches the token and renews it before it expires.

    Args:
        credential: An `azure-identity` credential, sync (`AzureCliCredential()`) or async
            (`azure.identity.aio.AzureCliCredential()`); a callable returning a token
            (or an awaitable of one); or `None` for `DefaultAzureCredential` (signed-in
            Azure CLI, managed identity, environment variables...).
        scope: The token scope, such as `AZURE_OPENAI_SCOPE`.

    Raises:
        MissingExtraError: `azure-identity` is not installed (the `azure` extra).
        ChatClientError: `credential` is none of the above.

    Example:
        >>> from azure.identity import AzureCliCredential
        >>> provider = entra_token_provider(AzureCliCredential(), AZURE_OPENAI_SCOPE)
    """
    source = credential if credential is not None else _default_credential()
    get_token = getattr(source, "get_token", None)
    if get_token is not None:
        is_async = inspect.iscoroutinefunction(get_token)
        fetch = _fetch_with_bearer_policy(source, scope, is_async=is_async)
    elif callable(source):
        fetch = cast(Callable[[], Any], source)
    else:
        raise ChatClientError(
            "credential must be an azure-identity credential (with get_token), a callable "
            f"returning a token, or None for DefaultAzureCredential; got {type(source).__name__}"
        )
    name = type(source).__name__

    async def token() -> str:
        from azure.core.exceptions import ClientAuthenticationError

        try:
            value = fetch()
            if inspect.isawaitable(value):
                value = await value
        except ClientAuthenticationError as error:
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ChatClientError(
                f"{name} could not get a Microsoft Entra ID token for {scope}: {first_line} "
                "(sign in with `az login`, check the credential, or use an API key)"
            ) from error
        if not isinstance(value, str) or not value:
            raise ChatClientError(f"{name} returned no token for {scope}")
        return value

    return token


def _fetch_with_bearer_policy(credential: Any, scope: str, *, is_async: bool) -> Callable[[], Any]:
    try:
        if is_async:
            from azure.identity.aio import get_bearer_token_provider as get_async_provider

            return get_async_provider(credential, scope)
        from azure.identity import get_bearer_token_provider
    except ImportError as error:
        raise MissingExtraError("Microsoft Entra ID sign-in", "azure") from error
    provider = get_bearer_token_provider(credential, scope)

    def fetch() -> Awaitable[str]:
        # A sync credential may call the network or a CLI: keep the event loop free.
        return asyncio.to_thread(provider)

    return fetch


def _default_credential() -> Any:
    try:
        from azure.identity import DefaultAzureCredential
    except ImportError as error:
        raise MissingExtraError("Microsoft Entra ID sign-in", "azure") from error
    return DefaultAzureCredential()
