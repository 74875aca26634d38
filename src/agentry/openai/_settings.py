"""Connection settings of the OpenAI clients: API key, base URL, model, retries, timeouts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import openai

from agentry.clients import BaseChatClient
from agentry.errors import ChatClientError
from agentry.types import ChatOptions

__all__ = ["OpenAIClientBase"]

_NO_KEY_PLACEHOLDER = "not-needed"
"""Sent as the API key to a custom `base_url` when none is configured (local servers)."""


class OpenAIClientBase(BaseChatClient):
    """What both OpenAI clients share: the SDK client and the default model."""

    __abstract__ = True
    OTEL_PROVIDER_NAME = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        organization: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        default_headers: Mapping[str, str] | None = None,
        http_client: Any = None,
        async_client: openai.AsyncOpenAI | None = None,
        middleware: Any = None,
        additional_properties: dict[str, Any] | None = None,
    ) -> None:
        """Create a client.

        Args:
            model: The default model; `OPENAI_MODEL` when not given. `options["model"]`
                overrides it per request.
            api_key: The API key; `OPENAI_API_KEY` when not given.
            base_url: The API's base URL (any OpenAI-compatible server, such as
                `http://127.0.0.1:8080/v1`); `OPENAI_BASE_URL` when not given.
            organization: The OpenAI organization; `OPENAI_ORG_ID` when not given.
            timeout: Seconds before a request times out (the SDK's default when not given).
            max_retries: How often the SDK retries failed requests (SDK default: 2).
            default_headers: Headers sent with every request.
            http_client: An `openai.DefaultAsyncHttpxClient` to send requests through (for
                proxies, or the recorder of `agentry.testing`).
            async_client: A ready `openai.AsyncOpenAI`; the connection arguments above are
                then ignored.
            middleware: Chat middleware.
            additional_properties: Free-form properties of this client.
        """
        super().__init__(middleware=middleware, additional_properties=additional_properties)
        self.model = model or os.environ.get("OPENAI_MODEL") or None
        if async_client is not None:
            self.client = async_client
            return
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
        if api_key is None:
            if base_url is None:
                raise ChatClientError(
                    "no OpenAI API key: pass api_key= or set OPENAI_API_KEY "
                    "(or pass base_url= for a server that needs no key)"
                )
            api_key = _NO_KEY_PLACEHOLDER
        arguments: dict[str, Any] = {"api_key": api_key, "base_url": base_url}
        if organization is not None:
            arguments["organization"] = organization
        if timeout is not None:
            arguments["timeout"] = timeout
        if max_retries is not None:
            arguments["max_retries"] = max_retries
        if default_headers is not None:
            arguments["default_headers"] = default_headers
        if http_client is not None:
            arguments["http_client"] = http_client
        self.client = openai.AsyncOpenAI(**arguments)

    def _model_for(self, options: ChatOptions) -> str:
        model = options.get("model") or self.model
        if not model:
            raise ChatClientError(
                f"{type(self).__name__} has no model: pass model= when creating it, "
                "set OPENAI_MODEL, or give options={'model': ...}"
            )
        return model

    def __repr__(self) -> str:
        base_url = str(self.client.base_url)
        return f"{type(self).__name__}(model={self.model!r}, base_url={base_url!r})"
