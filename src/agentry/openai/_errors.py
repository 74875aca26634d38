"""Turning the `openai` SDK's errors into agentry errors that say what to do."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from typing import Any

from agentry.clients.sdk_errors import SdkErrorTypes, translate_sdk_errors

__all__ = ["translate_errors"]

_KEY_HINT = "pass api_key= or set OPENAI_API_KEY"


@contextmanager
def translate_errors(
    service: str, base_url: Any, *, advice: Mapping[int, str] | None = None
) -> Generator[None, None, None]:
    """Raise `ChatClientError` (status and provider message kept) for SDK errors.

    `advice` replaces the default advice for the HTTP statuses it names (a provider whose
    key lives in another variable says so on a 401).
    """
    import openai

    errors = SdkErrorTypes(
        status=openai.APIStatusError,
        timeout=openai.APITimeoutError,
        connection=openai.APIConnectionError,
        base=openai.OpenAIError,
    )
    with translate_sdk_errors(service, base_url, errors, key_hint=_KEY_HINT, advice=advice):
        yield
