"""Errors the server answers with, in the shape OpenAI's API gives them."""

from __future__ import annotations

import math

from starlette.responses import JSONResponse

from agentry.errors import (
    AgentryError,
    ChatClientError,
    OutputValidationError,
    ToolNameConflictError,
    UsageLimitExceededError,
)

__all__ = ["RequestError", "run_failure"]


class RequestError(Exception):
    """A request the server refuses, answered with an OpenAI-shaped error.

    Args:
        status: The HTTP status.
        message: What was wrong and what to do, for the caller.
        type: OpenAI's error type (`invalid_request_error`, `server_error`...).
        param: The request field at fault, if one is.
        code: A short machine-readable reason, if any.
        retry_after: Seconds the caller should wait before trying again, if known.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",  # OpenAI's field name
        param: str | None = None,
        code: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.retry_after = retry_after

    def body(self) -> dict[str, object]:
        """`{"error": {...}}` as OpenAI's API answers it."""
        error = {"message": self.message, "type": self.type, "param": self.param}
        return {"error": {**error, "code": self.code}}

    def response(self) -> JSONResponse:
        """The error as an HTTP answer."""
        headers: dict[str, str] = {}
        if self.status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        if self.retry_after is not None:
            headers["Retry-After"] = str(math.ceil(self.retry_after))
        return JSONResponse(self.body(), status_code=self.status, headers=headers)


def run_failure(error: Exception) -> RequestError | None:
    """The answer to an agent run that raised `error`; None for an unexpected error, which
    the server logs and answers without its details."""
    if isinstance(error, ToolNameConflictError):
        message = f"tools: {error}; the served agent has a tool of that name: rename yours"
        return RequestError(400, message, param="tools")
    if isinstance(error, UsageLimitExceededError):
        return RequestError(422, str(error), code="usage_limit_exceeded")
    if isinstance(error, OutputValidationError):
        return RequestError(422, str(error), type="server_error", code="invalid_output")
    if isinstance(error, ChatClientError):
        if error.status_code == 429:
            message = f"the agent's model is rate limited: {error}"
            return RequestError(
                429, message, type="rate_limit_error", retry_after=error.retry_after
            )
        return RequestError(502, f"the agent's model failed: {error}", type="server_error")
    if isinstance(error, AgentryError):
        return RequestError(500, str(error), type="server_error")
    return None
