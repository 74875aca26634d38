"""`Agent`: a chat client with instructions, tools, middleware and context providers."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import TYPE_CHECKING, Any, Literal, TypeGuard, overload

from typing_extensions import TypedDict, TypeVar, Unpack

from agentry.agents._agent_middleware import run_with_agent_middleware
from agentry.agents._base import BaseAgent
from agentry.agents._run_loop import RunPlan, has_history_provider
from agentry.middleware import MiddlewareTypes, split_middleware
from agentry.observability import get_telemetry_observer
from agentry.sessions import AgentSession, ContextProvider, InMemoryHistoryProvider
from agentry.tools import (
    FunctionInvocationConfiguration,
    check_unique_tool_names,
    normalize_tools,
)
from agentry.types import (
    AgentResponse,
    AgentResponseUpdate,
    AgentRunInputs,
    ChatOptions,
    ResponseStream,
    UsageLimits,
    check_chat_options,
    merge_chat_options,
    normalize_messages,
    reject_unknown_keywords,
    suggest_keywords,
)

if TYPE_CHECKING:
    from types import TracebackType

    from pydantic import BaseModel
    from typing_extensions import Self

    from agentry.protocols import SupportsChatGetResponse

__all__ = ["Agent", "AgentRunOptions"]


class AgentRunOptions(TypedDict, total=False):
    """The keyword arguments `Agent.run` takes besides `messages`, `stream`, `session` and
    `response_format` (which types the response, so it stays a parameter of its own)."""

    options: ChatOptions | None
    """Chat options for this run, on top of the agent's `default_options`."""
    tools: Sequence[object] | object | None
    """Extra tools for this run (names unique among all the run's tools)."""
    middleware: Sequence[MiddlewareTypes] | None
    """Extra middleware for this run, after the agent's own."""
    function_invocation_kwargs: Mapping[str, object] | None
    """Values for the tools, not the model (a tool that takes `**kwargs` receives them)."""
    output_retries: int | None
    """For this run, in place of the agent's `output_retries`."""
    usage_limits: UsageLimits | None
    """For this run, in place of the agent's `usage_limits`."""
    session_usage_limits: UsageLimits | None
    """For this run, in place of the agent's `session_usage_limits`."""


OutputT = TypeVar("OutputT", bound="BaseModel", default=Any)
"""The model class a run's `response_format` names, and so the type of its `value`."""


class Agent(BaseAgent):
    """An agent that answers through a chat client, calling tools as the model asks.

    Args:
        client: The chat client (any `SupportsChatGetResponse`).
        instructions: The system instructions.
        id: A stable id (default: random).
        name: The agent's name, also used as the author of its messages.
        description: What the agent does (used when it is a tool or hosted).
        tools: Functions or tools it may call: functions, `FunctionTool`s, tool sources
            (MCP tools) and provider tool declarations (dicts), with unique names.
        default_options: Chat options for every run (a run's `options` go on top).
        middleware: Agent, chat and function middleware, in order.
        context_providers: Providers of instructions, messages, tools and history. Without a
            history provider, history is kept in the session's state.
        function_invocation_configuration: How tool calls are run.
        output_retries: How many times a run asks the model again when its answer does not
            validate against the `response_format` (the validation errors are sent back).
        usage_limits: Limits on what one run may spend (model requests, tokens, tool calls).
        session_usage_limits: Limits on what all the runs of one session may spend together;
            the counts are kept in the session's state.

    Use it as an async context manager to connect tools that hold connections (MCP
    servers) up front and close them when done; without it they connect on first use.

    Raises:
        TypeError: An item of `tools` is not a tool, or `default_options` has a key that
            is not a chat option (the message names the closest one).
        ValueError: Two tools have the same name, or `output_retries` is negative.

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> agent = Agent(client=ScriptedChatClient(["Hello!"]), instructions="Be brief.")
    """

    @suggest_keywords
    def __init__(
        self,
        client: SupportsChatGetResponse,
        instructions: str | None = None,
        *,
        id: str | None = None,
        name: str | None = None,
        description: str | None = None,
        tools: Sequence[object] | object | None = None,
        default_options: ChatOptions | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        context_providers: Sequence[ContextProvider] | None = None,
        function_invocation_configuration: FunctionInvocationConfiguration | None = None,
        output_retries: int = 1,
        usage_limits: UsageLimits | None = None,
        session_usage_limits: UsageLimits | None = None,
        additional_properties: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            id=id,
            name=name,
            description=description,
            middleware=middleware,
            additional_properties=additional_properties,
        )
        self.client = client
        self.instructions = instructions
        self.tools: list[Any] = normalize_tools(tools)
        self._options_type: type = getattr(client, "options_type", ChatOptions)
        check_chat_options(
            default_options, where="default_options", options_type=self._options_type
        )
        self.default_options: ChatOptions = default_options or ChatOptions()
        self.context_providers: list[ContextProvider] = list(context_providers or [])
        self.function_invocation_configuration = (
            function_invocation_configuration or FunctionInvocationConfiguration()
        )
        self.output_retries = _checked_retries(output_retries)
        self.usage_limits = usage_limits
        self.session_usage_limits = session_usage_limits
        self._middleware_by_kind = split_middleware(self.middleware)
        self._resources: AsyncExitStack | None = None

    async def __aenter__(self) -> Self:
        """Enter the client, tools and context providers that are async context managers
        (an MCP tool connects); if one fails, those already entered are closed."""
        async with AsyncExitStack() as stack:
            for part in [self.client, *self.tools, *self.context_providers]:
                if _is_async_context_manager(part):
                    await stack.enter_async_context(part)
            self._resources = stack.pop_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        resources, self._resources = self._resources, None
        if resources is not None:
            await resources.__aexit__(exc_type, exc, traceback)

    # AgentRunMethod's overloads again, with this agent's extra keywords: a protocol's
    # keyword set cannot be a type parameter (`Unpack` takes no TypeVar).
    @overload
    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[False] = False,
        session: AgentSession | None = None,
        response_format: type[OutputT] | Mapping[str, Any] | None = None,
        **run_options: Unpack[AgentRunOptions],
    ) -> Awaitable[AgentResponse[OutputT]]: ...

    @overload
    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[True],
        session: AgentSession | None = None,
        response_format: type[OutputT] | Mapping[str, Any] | None = None,
        **run_options: Unpack[AgentRunOptions],
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[OutputT]]: ...

    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: bool = False,
        session: AgentSession | None = None,
        options: ChatOptions | None = None,
        tools: Sequence[object] | object | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        function_invocation_kwargs: Mapping[str, object] | None = None,
        response_format: type[OutputT] | Mapping[str, Any] | None = None,
        output_retries: int | None = None,
        usage_limits: UsageLimits | None = None,
        session_usage_limits: UsageLimits | None = None,
        **unknown: object,
    ) -> Awaitable[AgentResponse[Any]] | ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
        """Run the agent on `messages`.

        Args:
            messages: Text, a message, or a list of messages.
            stream: Return a `ResponseStream` of updates instead of an awaitable response.
            session: The conversation to continue (history, service conversation id).
            options: Chat options for this run, on top of `default_options`.
            tools: Extra tools for this run (names unique among all the run's tools).
            middleware: Extra middleware for this run, after the agent's own.
            function_invocation_kwargs: Values for the tools, not the model: a tool that
                takes `**kwargs` receives them, and every tool call's
                `FunctionInvocationContext.kwargs` holds them.
            response_format: A pydantic model class or a JSON schema dict the answer must
                validate against (same as `options["response_format"]`); the response's
                `value` is the parsed answer, typed as the model class.
            output_retries: For this run, in place of the agent's `output_retries`.
            usage_limits: For this run, in place of the agent's `usage_limits`.
            session_usage_limits: For this run, in place of the agent's.

        Returns:
            An awaitable `AgentResponse`, or with `stream=True` a `ResponseStream`.

        Raises:
            TypeError: An unknown keyword argument or chat option (the message names the
                closest valid one), or an item of `tools` that is not a tool.
            ValueError: Two of the run's tools have the same name.
            OutputValidationError: The answer still did not validate against the
                `response_format` after `output_retries` more answers.
            UsageLimitExceededError: A usage limit was reached (the session keeps no part
                of the run's messages).

        Example:
            >>> async def main(agent):
            ...     response = await agent.run("What is the weather?")
            ...     print(response.text)
        """
        if unknown:
            reject_unknown_keywords(Agent.run, self, unknown)
        kinds = self._middleware_by_kind
        if middleware:
            extra = split_middleware(middleware)
            kinds = {kind: [*kinds[kind], *extra[kind]] for kind in kinds}
        if options is None:
            run_options = self.default_options.copy()
        else:
            check_chat_options(options, options_type=self._options_type)
            run_options = merge_chat_options(self.default_options, options)
        if response_format is not None:
            run_options["response_format"] = response_format
        if tools is None:
            run_tools = list(self.tools)  # a run's add_tools must not change the agent
        else:
            run_tools = [*self.tools, *normalize_tools(tools)]
            check_unique_tool_names(run_tools)
        if self.context_providers:
            providers, sessionless_providers = self._providers(), None
        else:  # history only, so a run without a session consults none
            providers, sessionless_providers = _ONLY_DEFAULT_HISTORY, ()
        # in field order, not by keyword: a class called with keywords packs them into a
        # dict and unpacks them again, which costs more than the rest of the plan
        plan = RunPlan(
            self,
            self.client,
            self.instructions,
            run_tools,
            run_options,
            providers,
            kinds["chat"],
            kinds["function"],
            self.function_invocation_configuration,
            self.output_retries if output_retries is None else _checked_retries(output_retries),
            self.usage_limits if usage_limits is None else usage_limits,
            self.session_usage_limits if session_usage_limits is None else session_usage_limits,
            sessionless_providers,
        )
        input_messages = normalize_messages(messages)
        if not stream and not kinds["agent"]:  # the common case: no context to build
            return get_telemetry_observer().agent_response(
                self,
                input_messages,
                session,
                run_options,
                plan.respond_directly(
                    input_messages,
                    session,
                    dict(function_invocation_kwargs) if function_invocation_kwargs else {},
                ),
            )
        return run_with_agent_middleware(
            self,
            kinds["agent"],
            input_messages,
            session,
            stream=stream,
            core=plan.updates,
            respond=plan.respond,
            response_format=run_options.get("response_format"),
            options=run_options,
            function_invocation_kwargs=function_invocation_kwargs,
        )

    def _providers(self) -> Sequence[ContextProvider]:
        if has_history_provider(self.context_providers):
            return self.context_providers
        return [_DEFAULT_HISTORY, *self.context_providers]


def _checked_retries(output_retries: int) -> int:
    if not isinstance(output_retries, int) or output_retries < 0:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ValueError(
            f"output_retries must be 0 or more (how many times the model is asked again "
            f"after an answer that does not validate), not {output_retries!r}"
        )
    return output_retries


def _is_async_context_manager(part: object) -> TypeGuard[AbstractAsyncContextManager[Any]]:
    return callable(getattr(part, "__aenter__", None)) and callable(
        getattr(part, "__aexit__", None)
    )


_DEFAULT_HISTORY = InMemoryHistoryProvider()
_ONLY_DEFAULT_HISTORY = (_DEFAULT_HISTORY,)
