"""The context objects middleware receives: one per agent run, chat call and tool call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentry.protocols import SupportsAgentRun
    from agentry.sessions import AgentSession
    from agentry.tools import FunctionTool
    from agentry.types import ChatOptions, Message

__all__ = ["AgentContext", "ChatContext", "FunctionInvocationContext"]


class AgentContext:
    """One agent run, as agent middleware sees it.

    Middleware may replace `messages`, `options` or `function_invocation_kwargs` before
    calling `call_next()`, and read or replace `result` after it. `result` is an
    `AgentResponse`, or for a streaming run a `ResponseStream` of `AgentResponseUpdate`.

    Attributes:
        function_invocation_kwargs: The run's values for its tools (see `Agent.run`).
        kwargs: The extra keyword arguments of a custom agent's own `run` (empty for
            `Agent`).
    """

    __slots__ = (
        "agent",
        "function_invocation_kwargs",
        "kwargs",
        "messages",
        "metadata",
        "options",
        "result",
        "session",
        "stream",
    )

    def __init__(
        self,
        *,
        agent: SupportsAgentRun,
        messages: list[Message],
        session: AgentSession | None = None,
        options: ChatOptions | None = None,
        stream: bool = False,
        kwargs: dict[str, Any] | None = None,
        function_invocation_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.agent = agent
        self.messages = messages
        self.session = session
        self.options = options
        self.stream = stream
        self.kwargs = kwargs if kwargs is not None else {}
        self.function_invocation_kwargs: dict[str, Any] = (
            function_invocation_kwargs if function_invocation_kwargs is not None else {}
        )
        self.metadata: dict[str, Any] = {}
        self.result: Any = None


class ChatContext:
    """One model call, as chat middleware sees it.

    `result` is a `ChatResponse`, or for a streaming call an async iterable of
    `ChatResponseUpdate`.
    """

    __slots__ = ("client", "messages", "metadata", "options", "result", "stream")

    def __init__(
        self,
        *,
        client: object,
        messages: list[Message],
        options: ChatOptions,
        stream: bool = False,
    ) -> None:
        self.client = client
        self.messages = messages
        self.options = options
        self.stream = stream
        self.metadata: dict[str, Any] = {}
        self.result: Any = None


class FunctionInvocationContext:
    """One tool call, as function middleware and the tool itself see it.

    A tool receives this context by declaring a parameter annotated with it. `kwargs` holds
    the run's `function_invocation_kwargs` (values for tools, never seen by the model; a
    copy per call). `tools` is the live tool list of the run: `add_tools` and
    `remove_tools` take effect on the next function-calling iteration. Setting
    `terminate` ends the function-calling loop after the current batch of calls.

    Example:
        >>> from agentry import tool, FunctionInvocationContext
        >>> @tool
        ... def unlock(context: FunctionInvocationContext) -> str:
        ...     '''Unlock the admin tools.'''
        ...     context.add_tools([])
        ...     return "unlocked"
    """

    __slots__ = (
        "arguments",
        "call_id",
        "function",
        "kwargs",
        "metadata",
        "result",
        "session",
        "terminate",
        "tools",
    )

    def __init__(
        self,
        *,
        function: FunctionTool,
        arguments: dict[str, Any],
        call_id: str | None = None,
        tools: list[Any] | None = None,
        session: AgentSession | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.function = function
        self.arguments = arguments
        self.call_id = call_id
        self.tools: list[Any] = tools if tools is not None else []
        self.session = session
        self.kwargs = kwargs if kwargs is not None else {}
        self.metadata: dict[str, Any] = {}
        self.result: Any = None
        self.terminate = False

    def add_tools(self, tools: Sequence[object]) -> None:
        """Offer more tools to the model from the next iteration on; a tool whose name is
        offered already is left out.

        Raises:
            TypeError: An item is not a tool.
        """
        from agentry.tools import normalize_tools

        present = {getattr(t, "name", None) for t in self.tools}
        for item in normalize_tools(list(tools)):
            if getattr(item, "name", None) not in present:
                self.tools.append(item)

    def remove_tools(self, names: Sequence[str] | str) -> None:
        """Stop offering the named tools from the next iteration on."""
        removed = {names} if isinstance(names, str) else set(names)
        self.tools[:] = [t for t in self.tools if getattr(t, "name", None) not in removed]
