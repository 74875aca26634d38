"""The error hierarchy of agentry.

Every error agentry raises on purpose is an :class:`AgentryError`. Messages say what was
wrong and what to do about it.
"""

from __future__ import annotations

__all__ = [
    "AgentryError",
    "ChatClientError",
    "ContentError",
    "HistoryStoreError",
    "MiddlewareError",
    "MissingExtraError",
    "ScriptExhaustedError",
    "SerializationError",
    "SessionError",
    "StructuredOutputError",
    "ToolArgumentsError",
    "ToolError",
    "ToolExecutionError",
    "ToolExecutionException",
    "ToolLoopLimitError",
    "UnknownToolError",
]


class AgentryError(Exception):
    """Base class of every error agentry raises on purpose."""


class SerializationError(AgentryError, ValueError):
    """A dict or JSON document could not be turned back into an agentry object."""


class ContentError(AgentryError, ValueError):
    """A message content is malformed, such as function-call arguments that are not JSON."""


class StructuredOutputError(AgentryError, ValueError):
    """A model's answer does not match the requested response format."""


class ChatClientError(AgentryError):
    """A chat client could not get a response from its model.

    Attributes:
        status_code: The HTTP status of the provider's answer, where there was one.
    """

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class ScriptExhaustedError(ChatClientError):
    """A :class:`~agentry.clients.scripted.ScriptedChatClient` was asked for more responses
    than it was given."""


class ToolError(AgentryError):
    """Base class of tool errors."""


class UnknownToolError(ToolError, LookupError):
    """The model called a tool that the run does not offer."""


class ToolArgumentsError(ToolError, ValueError):
    """A tool call's arguments are malformed or fail the tool's validation."""


class ToolExecutionError(ToolError):
    """A tool ran and failed, or could not be run."""


ToolExecutionException = ToolExecutionError
"""Alias of :class:`ToolExecutionError`, under the name the specification uses."""


class ToolLoopLimitError(ToolError):
    """The model still called tools when the function-calling loop, at its limit, asked it
    to answer without them; the message names the limit and how to raise it."""


class MiddlewareError(AgentryError):
    """A middleware is malformed or misused."""


class SessionError(AgentryError, ValueError):
    """A session could not be created or restored."""


class HistoryStoreError(AgentryError):
    """A history store could not read or write messages."""


class MissingExtraError(AgentryError, ImportError):
    """An optional integration was used without its extra installed."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(
            f"{feature} needs the optional dependencies of the '{extra}' extra; "
            f"install them with: pip install 'agentry[{extra}]'"
        )
        self.extra = extra
