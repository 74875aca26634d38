"""`SupportsAgentRun` and `BaseAgent`: a custom agent is one `run` method."""

from __future__ import annotations

import inspect
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from functools import wraps
from typing import TYPE_CHECKING, Any, cast

from agentry.agents._agent_middleware import run_with_agent_middleware
from agentry.middleware import AgentContext, MiddlewareTypes, split_middleware
from agentry.protocols import AgentRunMethod, agent_run_method
from agentry.sessions import AgentSession
from agentry.tools import FunctionTool
from agentry.types import (
    AgentResponse,
    AgentResponseUpdate,
    AgentRunInputs,
    Message,
    ResponseStream,
    normalize_messages,
    suggest_keywords,
    unknown_names_message,
)

if TYPE_CHECKING:
    from agentry.mcp import AgentMCPServer
    from agentry.protocols import SupportsAgentRun

__all__ = ["BaseAgent"]


class BaseAgent:
    """Base class of agents. A custom agent implements one `run` method.

    Write `run` as a coroutine (`async def`) that returns an `AgentResponse` (or a
    `Message`, or text), or as an async generator that yields `AgentResponseUpdate`s (its
    events); anything else raises `TypeError` when the class is defined. Either way the
    agent supports both `await agent.run(...)` and `agent.run(..., stream=True)`, and
    agent middleware applies. `run` receives the input as a list of messages, and the
    keyword arguments it declares; a caller's other keywords raise `TypeError` (all of
    them reach a `run` that takes `**kwargs`). (Type checkers see the `run` you wrote;
    refer to the agent as `SupportsAgentRun` to call it with `stream=`. A `run` that takes
    `stream` itself is used as it is.)

    Example:
        >>> class EchoAgent(BaseAgent):
        ...     async def run(self, messages, *, session=None):
        ...         return f"You said: {messages[-1].text}"
    """

    def __init__(
        self,
        *,
        id: str | None = None,
        name: str | None = None,
        description: str | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        additional_properties: dict[str, Any] | None = None,
    ) -> None:
        self.id = id or uuid.uuid4().hex
        self.name = name
        self.description = description
        self.middleware: list[MiddlewareTypes] = list(middleware or [])
        self.additional_properties = additional_properties or {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        run = cls.__dict__.get("run")
        if run is not None and "stream" not in inspect.signature(run).parameters:
            if not (_is_async_function(run) or inspect.isasyncgenfunction(run)):
                raise TypeError(
                    f"{cls.__name__}.run must be async: write `async def run(self, messages, "
                    "*, session=None)` returning an AgentResponse, a Message or text, or an "
                    "async generator yielding AgentResponseUpdates"
                )
            cls.run = _one_method_run(run)

    @suggest_keywords
    def _run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: bool = False,
        session: AgentSession | None = None,
    ) -> Awaitable[AgentResponse] | ResponseStream[AgentResponseUpdate, AgentResponse]:
        """Run the agent on `messages`, inside its agent middleware.

        A custom agent writes its own `run` (see the class docstring); agentry's agents
        without extra keyword arguments implement `_run_updates` and keep this one.

        Args:
            messages: Text, a message, or a list of messages.
            stream: Return a `ResponseStream` of updates instead of an awaitable response.
            session: The conversation to continue.

        Raises:
            TypeError: An unknown keyword argument (the message names the closest one).
        """

        def core(context: AgentContext) -> AsyncIterator[AgentResponseUpdate]:
            return self._run_updates(context.messages, context.session, stream=stream)

        return run_with_agent_middleware(
            self,
            split_middleware(self.middleware)["agent"] if self.middleware else [],
            normalize_messages(messages),
            session,
            stream=stream,
            core=core,
            response_format=None,
        )

    # Callers see the overloads of `AgentRunMethod`; a custom agent's own `run` replaces it.
    run = agent_run_method(_run)
    del _run

    def _run_updates(
        self, messages: list[Message], session: AgentSession | None, *, stream: bool
    ) -> AsyncIterator[AgentResponseUpdate]:
        """The updates of one run; `stream` says whether the caller streams them."""
        raise NotImplementedError(f"{type(self).__name__} must implement run()")

    @property
    def display_name(self) -> str:
        """The name, or the id when the agent has no name."""
        return self.name or self.id

    def create_session(self, *, session_id: str | None = None) -> AgentSession:
        """A new conversation with this agent."""
        return AgentSession(session_id=session_id)

    def get_session(self, service_session_id: str) -> AgentSession:
        """A session for a conversation the model service keeps, by its id."""
        return AgentSession(service_session_id=service_session_id)

    def as_mcp_server(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        expose_tools: bool = False,
        tasks: bool = False,
    ) -> AgentMCPServer:
        """This agent as an MCP server (needs the `mcp` extra).

        Args:
            name: The server's and the agent tool's name (default: the agent's name).
            description: The agent tool's description (default: the agent's).
            expose_tools: Also offer the agent's function tools, called directly.
            tasks: Run calls of the agent as long-running MCP tasks for clients that
                take them (the tasks extension); the client polls for the answer.

        Example:
            >>> from agentry.clients.scripted import ScriptedChatClient
            >>> server = ScriptedChatClient(["Hi"]).as_agent(name="greeter").as_mcp_server()
            >>> server.name
            'greeter'
        """
        from agentry.mcp import AgentMCPServer

        return AgentMCPServer(
            cast("SupportsAgentRun", self),
            name=name,
            description=description,
            expose_tools=expose_tools,
            tasks=tasks,
        )

    def as_tool(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        arg_name: str = "task",
        arg_description: str | None = None,
        approval_mode: str = "never_require",
        propagate_session: bool = False,
    ) -> FunctionTool:
        """This agent as a tool another agent can call with a task.

        Args:
            name: The tool name (default: the agent's name, made safe for tool names).
            description: The tool description (default: the agent's description).
            arg_name: The name of the tool's single text argument.
            arg_description: Its description.
            approval_mode: Whether a person must approve each call.
            propagate_session: Run in the calling run's session instead of a fresh one.

        Example:
            >>> from agentry.clients.scripted import ScriptedChatClient
            >>> writer = ScriptedChatClient(["A poem."]).as_agent(name="writer")
            >>> writer.as_tool().name
            'writer'
        """
        from agentry.middleware import FunctionInvocationContext

        async def run_agent(context: FunctionInvocationContext, **arguments: object) -> str:
            session = context.session if propagate_session else None
            response = await self.run(str(arguments[arg_name]), session=session)
            return response.text

        tool_name = re.sub(r"[^A-Za-z0-9_-]", "_", name or self.name or f"agent_{self.id[:8]}")
        return FunctionTool(
            func=run_agent,
            name=tool_name,
            description=description or self.description or f"Ask the {tool_name} agent.",
            input_model={
                "type": "object",
                "properties": {
                    arg_name: {
                        "type": "string",
                        "description": arg_description or "The task for the agent.",
                    }
                },
                "required": [arg_name],
            },
            approval_mode=cast("Any", approval_mode),
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, id={self.id!r})"


def _one_method_run(implementation: Callable[..., Any]) -> AgentRunMethod:
    """Wrap a subclass's single `run` so that it streams and folds alike."""
    is_generator = inspect.isasyncgenfunction(implementation)
    declared, takes_any = _declared_keywords(implementation)

    @wraps(implementation)
    def run(
        self: BaseAgent,
        messages: AgentRunInputs | None = None,
        *,
        stream: bool = False,
        session: AgentSession | None = None,
        **kwargs: object,
    ) -> Awaitable[AgentResponse] | ResponseStream[AgentResponseUpdate, AgentResponse]:
        if kwargs and not takes_any:
            unknown = [name for name in kwargs if name not in declared]
            if unknown:
                valid = ["messages", "stream", "session", *declared]
                what = f"{type(self).__name__}.run()"
                raise TypeError(unknown_names_message(what, unknown, valid))

        def core(context: AgentContext) -> AsyncIterator[AgentResponseUpdate]:
            result = implementation(
                self, context.messages, session=context.session, **context.kwargs
            )
            if is_generator:
                return cast("AsyncIterator[AgentResponseUpdate]", result)
            return _updates_of(self, result)

        return run_with_agent_middleware(
            self,
            split_middleware(self.middleware)["agent"] if self.middleware else [],
            normalize_messages(messages),
            session,
            stream=stream,
            core=core,
            response_format=None,
            kwargs=kwargs,
        )

    return agent_run_method(run)


def _declared_keywords(implementation: Callable[..., object]) -> tuple[frozenset[str], bool]:
    """The keyword arguments a custom `run` takes besides the messages and the session,
    and whether it takes any (`**kwargs`)."""
    parameters = list(inspect.signature(implementation).parameters.values())[2:]
    keyword_kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    declared = frozenset(
        p.name for p in parameters if p.kind in keyword_kinds and p.name != "session"
    )
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    return declared, takes_any


def _is_async_function(function: Callable[..., object]) -> bool:
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        inspect.unwrap(function)
    )


async def _updates_of(
    agent: BaseAgent, result: Awaitable[object]
) -> AsyncIterator[AgentResponseUpdate]:
    value = await result
    response: AgentResponse
    if isinstance(value, AgentResponse):
        response = cast("AgentResponse", value)
    elif isinstance(value, Message):
        response = AgentResponse(messages=[value])
    elif isinstance(value, str):
        response = AgentResponse(messages=[Message("assistant", [value], author_name=agent.name)])
    else:
        raise TypeError(
            f"{type(agent).__name__}.run() must return an AgentResponse, a Message or text, "
            f"not {type(value).__name__}"
        )
    if response.agent_id is None:
        response.agent_id = agent.id
    for update in response.to_updates():
        yield update
