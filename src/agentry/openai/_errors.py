"""Turning the `openai` SDK's errors into agentry errors that say what to do."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from typing import Any, cast

from agentry.errors import ChatClientError

__all__ = ["translate_errors"]

_ADVICE = {
    401: "check the API key: pass api_key= or set OPENAI_API_KEY",
    403: "the key may not use this model or endpoint",
    404: "check the model name and base_url",
    408: "the request timed out; raise timeout= or retry",
    413: "the request is too large; send fewer or smaller messages",
    422: "the server did not accept the request's shape",
    429: "rate limited or out of quota; retry later or lower the request rate",
}


@contextmanager
def translate_errors(
    service: str, base_url: Any, *, advice: Mapping[int, str] | None = None
) -> Generator[None, None, None]:
    """Raise `ChatClientError` (status and provider message kept) for SDK errors.

    `advice` replaces the default advice for the HTTP statuses it names (a provider whose
    key lives in another variable says so on a 401).
    """
    import openai

    try:
        yield
    except openai.APIStatusError as error:
        status = error.status_code
        hint = {**_ADVICE, **(advice or {})}.get(
            status, "the service failed; retry later" if status >= 500 else ""
        )
        detail = _provider_message(error)
        message = f"{service} answered HTTP {status}: {detail}"
        raise ChatClientError(
            f"{message} ({hint})" if hint else message, status_code=status
        ) from error
    except openai.APITimeoutError as error:
        raise ChatClientError(
            f"{service} did not answer in time at {base_url}; raise timeout= or retry"
        ) from error
    except openai.APIConnectionError as error:
        raise ChatClientError(
            f"cannot reach {service} at {base_url}: {error}; check base_url and the network"
        ) from error
    except openai.OpenAIError as error:
        raise ChatClientError(f"{service} request failed: {error}") from error


def _provider_message(error: object) -> str:
    body: object = getattr(error, "body", None)
    if isinstance(body, dict):
        inner: object = cast(dict[str, Any], body).get("error", body)
        if isinstance(inner, dict) and cast(dict[str, Any], inner).get("message"):
            return str(cast(dict[str, Any], inner)["message"])
    return str(getattr(error, "message", error))
