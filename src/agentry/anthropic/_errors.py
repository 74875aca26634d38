"""Turning the `anthropic` SDK's errors into agentry errors that say what to do."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from agentry.clients.sdk_errors import SdkErrorTypes, translate_sdk_errors

__all__ = ["SERVICE", "translate_errors"]

SERVICE = "the Anthropic Messages API"
_KEY_HINT = "pass api_key= or set ANTHROPIC_API_KEY"


@contextmanager
def translate_errors(base_url: Any) -> Generator[None, None, None]:
    """Raise `ChatClientError` (status and provider message kept) for SDK errors."""
    import anthropic

    errors = SdkErrorTypes(
        status=anthropic.APIStatusError,
        timeout=anthropic.APITimeoutError,
        connection=anthropic.APIConnectionError,
        base=anthropic.AnthropicError,
    )
    with translate_sdk_errors(SERVICE, base_url, errors, key_hint=_KEY_HINT):
        yield
