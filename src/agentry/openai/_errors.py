"""OpenAI SDK errors as agentry errors: the provider's message kept, what to do said."""

from __future__ import annotations

import openai

from agentry.errors import ChatClientError

__all__ = ["to_chat_client_error", "unexpected_answer"]

_HINTS: dict[int, str] = {
    400: "check the request options (model, tools, response format) against the API",
    401: "set OPENAI_API_KEY or pass api_key= with a valid key",
    403: "the key has no access to this model or resource; check its project and permissions",
    404: "check the model name and base_url (an OpenAI-compatible server ends in /v1)",
    408: "the server timed out; retry, or raise timeout=",
    409: "the request conflicted with another; retry it",
    413: "the request is too large; send fewer or smaller messages",
    422: "the server could not process the request; check the options it supports",
    429: "rate limit or quota reached; wait and retry, raise max_retries=, or check the plan",
}


def to_chat_client_error(error: openai.OpenAIError, *, api: str) -> ChatClientError:
    """`error` as a :class:`ChatClientError` naming the API, the status and a remedy."""
    if isinstance(error, openai.APITimeoutError):
        return ChatClientError(
            f"the {api} request timed out; raise timeout= or check that the server at "
            f"{error.request.url} is responsive"
        )
    if isinstance(error, openai.APIConnectionError):
        return ChatClientError(
            f"could not reach the {api} server at {error.request.url} ({error.message}); "
            "check base_url and that the server is running"
        )
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        hint = _HINTS.get(status)
        if hint is None:
            hint = (
                "the provider failed; retry later or raise max_retries="
                if status >= 500
                else "see the provider's message"
            )
        return ChatClientError(
            f"{api} request failed with HTTP {status}: {error.message}. What to do: {hint}",
            status_code=status,
        )
    return ChatClientError(f"{api} request failed: {error}")


def unexpected_answer(answer: object, *, api: str) -> ChatClientError:
    """The error for a server that answered with something other than an API response."""
    shown = repr(answer)
    if len(shown) > 200:
        shown = shown[:200] + "..."
    return ChatClientError(
        f"the server did not answer with a {api} response (got {shown}); check that base_url "
        f"points to a server that speaks the {api} API"
    )
