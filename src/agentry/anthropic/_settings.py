"""Connection settings of the Anthropic client: arguments first, then the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentry.errors import ChatClientError

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["ANTHROPIC_HOST", "AnthropicSettings", "make_async_client"]

ANTHROPIC_HOST = "api.anthropic.com"
_MODEL_ENV = ("ANTHROPIC_CHAT_MODEL", "ANTHROPIC_MODEL")
_NO_KEY = "not-needed"  # compatible servers often take any key


@dataclass(frozen=True)
class AnthropicSettings:
    """Resolved settings: explicit arguments win over environment variables."""

    model: str
    api_key: str | None
    base_url: str | None

    @classmethod
    def resolve(
        cls, *, model: str | None, api_key: str | None, base_url: str | None
    ) -> AnthropicSettings:
        """Read `ANTHROPIC_MODEL`, `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` where unset.

        Raises:
            ChatClientError: No model name was given anywhere.
        """
        resolved_model = model or next(
            (os.environ[name] for name in _MODEL_ENV if os.environ.get(name)), None
        )
        if not resolved_model:
            raise ChatClientError(
                f"no model given: pass model= or set one of {', '.join(_MODEL_ENV)} "
                "(tried in this order), such as claude-sonnet-5-5"
            )
        return cls(
            model=resolved_model,
            api_key=api_key or os.environ.get("ANTHROPIC_API_KEY") or None,
            base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
        )


def make_async_client(
    settings: AnthropicSettings,
    *,
    timeout: float | None,
    max_retries: int | None,
    default_headers: dict[str, str] | None,
) -> AsyncAnthropic:
    """An `AsyncAnthropic` client for these settings.

    Raises:
        ChatClientError: Neither an API key nor a base URL of a compatible server is set.
    """
    from anthropic import AsyncAnthropic

    auth_token = os.environ.get("ANTHROPIC_AUTH_TOKEN") or None
    if settings.api_key is None and auth_token is None and settings.base_url is None:
        raise ChatClientError(
            "no Anthropic API key: pass api_key= or set ANTHROPIC_API_KEY (or base_url= / "
            "ANTHROPIC_BASE_URL for a compatible server; or pass client= with an "
            "anthropic.AsyncAnthropic built with other credentials)"
        )
    options: dict[str, Any] = {"base_url": settings.base_url, "default_headers": default_headers}
    if settings.api_key is not None:
        options["api_key"] = settings.api_key
    elif auth_token is not None:
        options["auth_token"] = auth_token
    else:
        options["api_key"] = _NO_KEY
    if timeout is not None:
        options["timeout"] = timeout
    if max_retries is not None:
        options["max_retries"] = max_retries
    return AsyncAnthropic(**options)
