"""Connection settings of the OpenAI clients: arguments first, then the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentry.clients.sdk_errors import sdk_max_retries, without_sdk_retries
from agentry.errors import ChatClientError

if TYPE_CHECKING:
    from agentry.types import RetryPolicy
    from openai import AsyncOpenAI

__all__ = ["NO_KEY", "OpenAISettings", "make_async_client"]

NO_KEY = "not-needed"
"""The key sent to OpenAI-compatible servers that need none (they take any)."""


@dataclass(frozen=True)
class OpenAISettings:
    """Resolved settings: explicit arguments win over environment variables."""

    model: str
    api_key: str | None
    base_url: str | None

    @classmethod
    def resolve(
        cls,
        *,
        model: str | None,
        api_key: str | None,
        base_url: str | None,
        model_env: tuple[str, ...],
    ) -> OpenAISettings:
        """Read `OPENAI_API_KEY`, `OPENAI_BASE_URL` and the model variables where unset.

        Raises:
            ChatClientError: No model name was given anywhere.
        """
        resolved_model = model or next(
            (os.environ[v] for v in model_env if os.environ.get(v)), None
        )
        if not resolved_model:
            names = ", ".join(model_env)
            raise ChatClientError(
                f"no model given: pass model= or set one of {names} (tried in this order)"
            )
        return cls(
            model=resolved_model,
            api_key=api_key or os.environ.get("OPENAI_API_KEY"),
            base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
        )


def make_async_client(
    settings: OpenAISettings,
    *,
    client: AsyncOpenAI | None = None,
    timeout: float | None,
    max_retries: int | None,
    default_headers: dict[str, str] | None,
    retry: RetryPolicy | None,
) -> AsyncOpenAI:
    """The `AsyncOpenAI` client of a chat client: `client` when given, else one made for
    these settings; its own retries are off while agentry's `retry` policy retries.

    Raises:
        ChatClientError: Neither an API key nor a base URL of a compatible server is set.
        ValueError: `max_retries` above 0 with a `retry` policy that retries.
    """
    sdk_retries = sdk_max_retries(retry, max_retries)
    if client is not None:
        return without_sdk_retries(client, retry)
    from openai import AsyncOpenAI

    if settings.api_key is None and settings.base_url is None:
        raise ChatClientError(
            "no OpenAI API key: pass api_key= or set OPENAI_API_KEY (or base_url= / "
            "OPENAI_BASE_URL for an OpenAI-compatible server)"
        )
    options: dict[str, Any] = {
        "api_key": settings.api_key or NO_KEY,
        "base_url": settings.base_url,
        "default_headers": default_headers,
    }
    if timeout is not None:
        options["timeout"] = timeout
    if sdk_retries is not None:
        options["max_retries"] = sdk_retries
    return without_sdk_retries(AsyncOpenAI(**options), retry)
