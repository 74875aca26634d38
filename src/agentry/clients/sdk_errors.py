"""Turning a provider SDK's errors into `ChatClientError`s that say what to do.

The official `openai` and `anthropic` SDKs share one shape of errors: a status error with
`status_code` and the provider's JSON `body`, a timeout, a connection error, and a base
class. `translate_sdk_errors` maps them all the same way, so every client reports a bad
key, an unknown model, a rate limit or an overlong conversation alike.

Example:
    >>> import openai
    >>> errors = SdkErrorTypes(
    ...     status=openai.APIStatusError,
    ...     timeout=openai.APITimeoutError,
    ...     connection=openai.APIConnectionError,
    ...     base=openai.OpenAIError,
    ... )
    >>> # with translate_sdk_errors("the Responses API", url, errors, key_hint="..."): ...
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from agentry.errors import ChatClientError

__all__ = [
    "SdkErrorTypes",
    "advice_for_status",
    "is_context_overflow",
    "provider_message",
    "translate_sdk_errors",
]

CONTEXT_ADVICE = (
    "the conversation does not fit the model's context window; send fewer or shorter "
    "messages, lower max_tokens, or use a model with a larger window"
)
_ADVICE = {
    403: "the key may not use this model or endpoint",
    404: "check the model name and base_url",
    408: "the request timed out; raise timeout= or retry",
    413: "the request is too large; send fewer or smaller messages",
    422: "the server did not accept the request's shape",
    429: "rate limited or out of quota; retry later, lower the request rate or raise max_retries=",
}
# The HTTP status each error type stands for, for errors reported inside a stream (the
# error types of Anthropic's API reference; OpenAI's have codes of their own).
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
# How providers and compatible servers word an overlong prompt (lowercase).
_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "context length",
    "context window",
    "exceed_context_size",
    "exceeds the available context",
    "maximum context",
    "prompt is too long",
    "too many tokens",
)


@dataclass(frozen=True)
class SdkErrorTypes:
    """The error classes of one provider SDK."""

    status: type[Exception]
    """Raised for HTTP error answers; carries `status_code` and the JSON `body`."""
    timeout: type[Exception]
    connection: type[Exception]
    base: type[Exception]


def advice_for_status(status: int, detail: str, *, key_hint: str) -> str:
    """What to do about an HTTP error answer; `key_hint` says how to give an API key."""
    if status in (400, 413) and is_context_overflow(detail):
        return CONTEXT_ADVICE
    if status == 401:
        return f"check the API key: {key_hint}"
    if status >= 500:
        return "the service failed or is overloaded; retry later"
    return _ADVICE.get(status, "")


def is_context_overflow(detail: str) -> bool:
    """Whether an error text says that the prompt is longer than the model's window."""
    lowered = detail.lower()
    return any(marker in lowered for marker in _CONTEXT_MARKERS)


@contextmanager
def translate_sdk_errors(
    service: str,
    base_url: Any,
    errors: SdkErrorTypes,
    *,
    key_hint: str,
    advice: Mapping[int, str] | None = None,
) -> Generator[None, None, None]:
    """Raise `ChatClientError` (status and provider message kept) for the SDK's errors.

    Args:
        service: The API as the message names it, such as "the Messages API".
        base_url: Where the client sends requests, for connection errors.
        errors: The SDK's error classes.
        key_hint: How to give an API key, such as "pass api_key= or set OPENAI_API_KEY".
        advice: Advice that replaces the default for the HTTP statuses it names (a
            provider whose key lives in another variable says so on a 401).
    """
    try:
        yield
    except errors.status as error:
        status = int(getattr(error, "status_code", 0))
        detail = provider_message(error)
        if status < 400:  # an error event in a stream whose answer began with 200
            status = _ERROR_TYPE_STATUS.get(_error_type(error) or "", 500)
            message = f"{service} reported an error in its stream: {detail}"
        else:
            message = f"{service} answered HTTP {status}: {detail}"
        hint = (advice or {}).get(status) or advice_for_status(status, detail, key_hint=key_hint)
        raise ChatClientError(
            f"{message} ({hint})" if hint else message, status_code=status
        ) from error
    except errors.timeout as error:
        raise ChatClientError(
            f"{service} did not answer in time at {base_url}; raise timeout= or retry"
        ) from error
    except errors.connection as error:
        raise ChatClientError(
            f"cannot reach {service} at {base_url}: {error}; check base_url and the network"
        ) from error
    except errors.base as error:
        raise ChatClientError(f"{service} request failed: {error}") from error


def _error_type(error: Exception) -> str | None:
    body: Any = getattr(error, "body", None)
    inner: Any = cast(Mapping[str, Any], body).get("error") if isinstance(body, Mapping) else None
    kind: Any = cast(Mapping[str, Any], inner).get("type") if isinstance(inner, Mapping) else None
    return kind if isinstance(kind, str) else None


def provider_message(error: Exception) -> str:
    """The provider's own words from an error body (`{"error": {"message": ...}}`), with
    the error's type or code where the body names one."""
    body: Any = getattr(error, "body", None)
    if isinstance(body, Mapping):
        inner: Any = cast(Mapping[str, Any], body).get("error", body)
        if isinstance(inner, Mapping) and cast(Mapping[str, Any], inner).get("message"):
            fields = cast(Mapping[str, Any], inner)
            message = str(fields["message"])
            kind = fields.get("code") or fields.get("type")
            if isinstance(kind, str) and kind and kind not in message:
                return f"{message} [{kind}]"
            return message
    return str(getattr(error, "message", error))
