"""The two protocols every layer of agentry works with: an agent and a chat client.

They sit on the ground floor beside `agentry.types`, so that the packages an agent is made
of (clients, middleware, sessions, tools, files, skills, MCP) can name an agent or a model
without importing `agentry.agents` or `agentry.clients`. Both are also importable from
`agentry`, `agentry.agents` and `agentry.clients`.

The `stream=False`/`stream=True` overloads of an agent's `run` and a client's
`get_response` are written once here, as the call shapes `AgentRunMethod` and
`ChatGetResponseMethod`; `BaseAgent` and `BaseChatClient` take theirs from
`agent_run_method` and `chat_get_response_method`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Literal,
    Protocol,
    cast,
    overload,
    runtime_checkable,
)

from agentry.types import (
    AgentResponse,
    AgentResponseUpdate,
    AgentRunInputs,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    ResponseStream,
)

if TYPE_CHECKING:
    from agentry.sessions import AgentSession

__all__ = [
    "AgentRunMethod",
    "ChatGetResponseMethod",
    "SupportsAgentRun",
    "SupportsChatGetResponse",
    "agent_run_method",
    "chat_get_response_method",
]


class ChatGetResponseMethod(Protocol):
    """A client's `get_response`: an awaitable response, or with `stream=True` a stream."""

    @overload
    def __call__(
        self,
        messages: AgentRunInputs,
        *,
        stream: Literal[False] = False,
        options: ChatOptions | None = None,
    ) -> Awaitable[ChatResponse]: ...

    @overload
    def __call__(
        self,
        messages: AgentRunInputs,
        *,
        stream: Literal[True],
        options: ChatOptions | None = None,
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse]: ...


class AgentRunMethod(Protocol):
    """An agent's `run`: an awaitable response, or with `stream=True` a stream.

    Agents may take more keyword arguments (`Agent` takes `options`, `tools`...);
    agentry's agents raise `TypeError` for one they do not know.
    """

    @overload
    def __call__(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[False] = False,
        session: AgentSession | None = None,
    ) -> Awaitable[AgentResponse]: ...

    @overload
    def __call__(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[True],
        session: AgentSession | None = None,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse]: ...


@runtime_checkable
class SupportsChatGetResponse(Protocol):
    """Anything that answers chat messages: the model boundary of agentry."""

    @property
    def get_response(self) -> ChatGetResponseMethod:
        """Answer `messages`: an awaitable response, or with `stream=True` a stream."""
        ...


@runtime_checkable
class SupportsAgentRun(Protocol):
    """What every agent offers: an identity and a `run` that can stream."""

    id: str
    name: str | None
    description: str | None

    @property
    def run(self) -> AgentRunMethod:
        """Run on `messages`: an awaitable response, or with `stream=True` a stream."""
        ...

    def create_session(self, *, session_id: str | None = None) -> AgentSession:
        """A new conversation with this agent."""
        ...


def chat_get_response_method(
    implementation: Callable[
        Concatenate[Any, AgentRunInputs, ...],
        Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse],
    ],
) -> ChatGetResponseMethod:
    """A class's `get_response`, typed with the overloads, from its one implementation.

    Write `get_response = chat_get_response_method(_get_response)` in the class body: the
    implementation takes `stream: bool` and returns either result; callers see the
    overloads of `ChatGetResponseMethod`. The function is renamed `get_response`.
    """
    return cast("ChatGetResponseMethod", _renamed(implementation, "get_response"))


def agent_run_method(
    implementation: Callable[
        Concatenate[Any, AgentRunInputs | None, ...],
        Awaitable[AgentResponse] | ResponseStream[AgentResponseUpdate, AgentResponse],
    ],
) -> AgentRunMethod:
    """A class's `run`, typed with the overloads, from its one implementation.

    Write `run = agent_run_method(_run)` in the class body: the implementation takes
    `stream: bool` and returns either result; callers see the overloads of
    `AgentRunMethod`. The function is renamed `run`.
    """
    return cast("AgentRunMethod", _renamed(implementation, "run"))


def _renamed(function: Callable[..., object], name: str) -> Callable[..., object]:
    """Name `function` (and the function it wraps) `name`, as tracebacks and the unknown
    keyword errors show it."""
    inner = function
    while True:
        inner.__name__ = name
        prefix, _, _ = inner.__qualname__.rpartition(".")
        inner.__qualname__ = f"{prefix}.{name}" if prefix else name
        wrapped: object = getattr(inner, "__wrapped__", None)
        if not callable(wrapped):
            return function
        inner = wrapped
