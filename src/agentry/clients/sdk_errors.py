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

import email.utils
import math
import time
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from agentry.errors import ChatClientConnectionError, ChatClientError, ChatClientTimeoutError
from agentry.types import RetryPolicy

__all__ = [
    "SdkErrorTypes",
    "advice_for_status",
    "is_context_overflow",
    "provider_message",
    "retry_after_seconds",
    "sdk_max_retries",
    "translate_sdk_errors",
    "without_sdk_retries",
]

SdkClient = TypeVar("SdkClient")

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
    429: "rate limited or out of quota; retry later, lower the request rate or allow more "
    "retries: retry=RetryPolicy(max_attempts=..., max_elapsed=...)",
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
        response: Any = getattr(error, "response", None)
        headers: Any = getattr(response, "headers", None)
        raise ChatClientError(
            f"{message} ({hint})" if hint else message,
            status_code=status,
            retry_after=retry_after_seconds(cast(Mapping[str, str], headers))
            if isinstance(headers, Mapping)
            else None,
        ) from error
    except errors.timeout as error:
        raise _timeout(service, base_url) from error
    except errors.connection as error:
        raise _connection_lost(service, base_url, error) from error
    except errors.base as error:
        raise ChatClientError(f"{service} request failed: {error}") from error
    except Exception as error:
        # An SDK may let its HTTP library's (httpx's) transport errors escape while a
        # stream is read, when the connection drops or stalls.
        kinds = {kind.__name__ for kind in type(error).__mro__}
        if "TransportError" not in kinds or not type(error).__module__.startswith("httpx"):
            raise
        if "TimeoutException" in kinds:
            raise _timeout(service, base_url) from error
        raise _connection_lost(service, base_url, error) from error


def _timeout(service: str, base_url: Any) -> ChatClientTimeoutError:
    return ChatClientTimeoutError(
        f"{service} did not answer in time at {base_url}; raise timeout= or retry"
    )


def _connection_lost(service: str, base_url: Any, error: Exception) -> ChatClientConnectionError:
    return ChatClientConnectionError(
        f"cannot reach {service} at {base_url}, or it dropped the connection: "
        f"{error or type(error).__name__}; check base_url and the network"
    )


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait an error answer asks for: `retry-after-ms` (OpenAI's, in milliseconds),
    else `Retry-After` in seconds or as an HTTP date; `None` when neither says.

    Example:
        >>> retry_after_seconds({"retry-after": "2"})
        2.0
        >>> retry_after_seconds({"retry-after-ms": "250", "retry-after": "1"})
        0.25
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    milliseconds = _number(lowered.get("retry-after-ms"))
    if milliseconds is not None:
        return max(0.0, milliseconds / 1000)
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def sdk_max_retries(retry: RetryPolicy | None, max_retries: int | None) -> int | None:
    """The SDK's own `max_retries` beside agentry's `retry` policy, so that one layer
    retries: 0 while the policy retries, else `max_retries` (`None`: the SDK's default).

    Raises:
        ValueError: Both retry: `max_retries` above 0 with a policy that retries.

    Example:
        >>> sdk_max_retries(RetryPolicy(), None), sdk_max_retries(None, None)
        (0, None)
    """
    if retry is None or not retry.enabled:
        return max_retries
    if max_retries:
        raise ValueError(
            f"max_retries={max_retries} asks the SDK to retry, and agentry retries too "
            f"(retry={retry!r}); keep one: retry=RetryPolicy(max_attempts=...) for "
            "agentry's retries (logged and traced), or retry=None with max_retries="
        )
    return 0


def without_sdk_retries(client: SdkClient, retry: RetryPolicy | None) -> SdkClient:
    """`client` (an `openai` or `anthropic` SDK client), copied with its own retries off
    when agentry's `retry` policy retries."""
    sdk: Any = client
    if retry is None or not retry.enabled or getattr(sdk, "max_retries", 0) == 0:
        return client
    return cast(SdkClient, sdk.with_options(max_retries=0))


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
