"""Where an Azure OpenAI resource is and how to sign in: arguments first, then the
environment; and the `openai` SDK client that goes there.

Two URL styles exist. The v1 API (`{endpoint}/openai/v1/...`, no `api-version`) is the
default; a dated `api_version` (`2024-10-21`, `2025-04-01-preview`) selects the classic
deployment URLs (`{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=`
and `{endpoint}/openai/responses?api-version=`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentry.azure._credentials import AZURE_OPENAI_SCOPE, entra_token_provider
from agentry.errors import ChatClientError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["AzureOpenAIConnection", "resolve_deployment"]

_DATED_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}(-preview)?$")


def resolve_deployment(model: str | None, model_env: tuple[str, ...]) -> str:
    """The deployment name: `model`, else the first variable of `model_env` that is set.

    Raises:
        ChatClientError: None is set; the message lists the variables tried.
    """
    resolved = model or next((os.environ[v] for v in model_env if os.environ.get(v)), None)
    if not resolved:
        raise ChatClientError(
            "no Azure OpenAI deployment given: pass model= (the deployment name) or set one "
            f"of {', '.join(model_env)} (tried in this order)"
        )
    return resolved


@dataclass(frozen=True)
class AzureOpenAIConnection:
    """A resolved Azure OpenAI connection: where the resource is, the URL style, the
    version, how to sign in, and the SDK client's options."""

    endpoint: str | None
    """The resource URL, `https://NAME.openai.azure.com` (unset when `base_url` is)."""
    base_url: str | None
    """A full v1 base URL used as it is (an API gateway, a custom domain)."""
    api_version: str | None
    """A dated version for the classic deployment URLs; `None` for the v1 API."""
    api_key: str | None
    credential: Any = None
    """A Microsoft Entra ID credential; with no key either, `DefaultAzureCredential`."""
    timeout: float | None = None
    max_retries: int | None = None
    default_headers: dict[str, str] | None = None

    @classmethod
    def resolve(
        cls,
        *,
        endpoint: str | None,
        base_url: str | None,
        api_key: str | None,
        credential: Any,
        api_version: str | None,
        timeout: float | None,
        max_retries: int | None,
        default_headers: dict[str, str] | None,
    ) -> AzureOpenAIConnection:
        """Fill unset arguments from `AZURE_OPENAI_ENDPOINT`, `AZURE_OPENAI_BASE_URL`,
        `AZURE_OPENAI_API_KEY` and `AZURE_OPENAI_API_VERSION`.

        Raises:
            ChatClientError: Both a key and a credential are given, no endpoint is set, the
                endpoint is a full API URL, or the API version is neither `v1` nor a dated
                version.
        """
        if api_key and credential is not None:
            raise ChatClientError("pass api_key= or credential=, not both")
        if endpoint and base_url:
            raise ChatClientError("pass endpoint= or base_url=, not both")
        if not endpoint and not base_url:
            base_url = os.environ.get("AZURE_OPENAI_BASE_URL") or None
            endpoint = None if base_url else os.environ.get("AZURE_OPENAI_ENDPOINT") or None
        if not endpoint and not base_url:
            raise ChatClientError(
                "no Azure OpenAI endpoint: pass endpoint= (https://NAME.openai.azure.com) or "
                "set AZURE_OPENAI_ENDPOINT (or AZURE_OPENAI_BASE_URL to a full .../openai/v1/ URL)"
            )
        version = api_version or os.environ.get("AZURE_OPENAI_API_VERSION") or None
        if version == "v1" or base_url:
            version = None
        elif version is not None and not _DATED_VERSION.match(version):
            raise ChatClientError(
                f"api_version {version!r} is not an Azure OpenAI API version: use 'v1' (the "
                "default) or a dated version such as '2024-10-21' or '2025-04-01-preview'"
            )
        if credential is None:
            api_key = api_key or os.environ.get("AZURE_OPENAI_API_KEY") or None
        return cls(
            endpoint=_checked_endpoint(endpoint) if endpoint else None,
            base_url=base_url,
            api_version=version,
            api_key=api_key,
            credential=credential,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
        )

    @property
    def v1_base_url(self) -> str:
        """The base URL of the v1 API."""
        if self.base_url:
            return self.base_url
        return f"{self.endpoint}/openai/v1/"

    def sdk_client(self) -> AsyncOpenAI:
        """The `openai` SDK client: an `AsyncAzureOpenAI` for the classic URLs, an
        `AsyncOpenAI` for the v1 API.

        The key travels in the `api-key` header on classic URLs and as a bearer token on the
        v1 API (both as Azure documents them); with `credential` (or no key at all) a
        Microsoft Entra ID token does, as `Authorization: Bearer`.

        Raises:
            MissingExtraError: A token is needed and `azure-identity` is not installed.
        """
        from openai import AsyncAzureOpenAI, AsyncOpenAI

        token_provider = None
        if self.credential is not None or self.api_key is None:
            token_provider = entra_token_provider(self.credential, AZURE_OPENAI_SCOPE)
        options: dict[str, Any] = {"default_headers": self.default_headers}
        if self.timeout is not None:
            options["timeout"] = self.timeout
        if self.max_retries is not None:
            options["max_retries"] = self.max_retries
        if self.api_version is None:
            return AsyncOpenAI(
                base_url=self.v1_base_url, api_key=token_provider or self.api_key, **options
            )
        if token_provider is not None:
            options["azure_ad_token_provider"] = token_provider
        else:
            options["api_key"] = self.api_key
        return AsyncAzureOpenAI(
            azure_endpoint=self.endpoint or "", api_version=self.api_version, **options
        )


def _checked_endpoint(endpoint: str) -> str:
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ChatClientError(
            f"the Azure OpenAI endpoint must be a URL such as https://NAME.openai.azure.com, "
            f"not {endpoint!r}"
        )
    if parts.path.rstrip("/").endswith(("/openai", "/openai/v1")):
        raise ChatClientError(
            f"{endpoint!r} is an API URL, not the resource endpoint: pass "
            f"{parts.scheme}://{parts.netloc} as endpoint=, or the full URL as base_url= "
            "(AZURE_OPENAI_BASE_URL)"
        )
    return endpoint.rstrip("/")
