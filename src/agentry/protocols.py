"""The two protocols every layer of agentry works with: an agent and a chat client.

They sit on the ground floor beside `agentry.types`, so that the packages an agent is made
of (clients, middleware, sessions, tools, files, skills, MCP) can name an agent or a model
without importing `agentry.agents` or `agentry.clients`. Both are also importable from
`agentry`, `agentry.agents` and `agentry.clients`.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Literal, Protocol, overload, runtime_checkable

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

__all__ = ["SupportsAgentRun", "SupportsChatGetResponse"]


@runtime_checkable
class SupportsChatGetResponse(Protocol):
    """Anything that answers chat messages: the model boundary of agentry."""

    # BaseChatClient implements these overloads once for every client; a protocol cannot
    # share them with a class, so they are written here and there.
    @overload
    def get_response(
        self,
        messages: AgentRunInputs,
        *,
        stream: Literal[False] = False,
        options: ChatOptions | None = None,
    ) -> Awaitable[ChatResponse]: ...

    @overload
    def get_response(
        self,
        messages: AgentRunInputs,
        *,
        stream: Literal[True],
        options: ChatOptions | None = None,
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse]: ...

    def get_response(
        self,
        messages: AgentRunInputs,
        *,
        stream: bool = False,
        options: ChatOptions | None = None,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        """Answer `messages`: an awaitable response, or with `stream=True` a stream."""
        ...


@runtime_checkable
class SupportsAgentRun(Protocol):
    """What every agent offers: an identity and a `run` that can stream."""

    id: str
    name: str | None
    description: str | None

    # BaseAgent implements these overloads once for agentry's agents; a protocol cannot
    # share them with a class, so they are written here and there.
    @overload
    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[False] = False,
        session: AgentSession | None = None,
    ) -> Awaitable[AgentResponse]: ...

    @overload
    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[True],
        session: AgentSession | None = None,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse]: ...

    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: bool = False,
        session: AgentSession | None = None,
    ) -> Awaitable[AgentResponse] | ResponseStream[AgentResponseUpdate, AgentResponse]:
        """Run on `messages`: an awaitable response, or with `stream=True` a stream.

        Agents may take more keyword arguments (`Agent` takes `options`, `tools`...);
        agentry's agents raise `TypeError` for one they do not know.
        """
        ...

    def create_session(self, *, session_id: str | None = None) -> AgentSession:
        """A new conversation with this agent."""
        ...
