"""`use_function_invocation`: give a chat client class the agent's function-calling loop."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar, cast

from agentry.clients import BaseChatClient
from agentry.types import (
    AgentRunInputs,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    ResponseStream,
    suggest_keywords,
)

__all__ = ["use_function_invocation"]

_ClientT = TypeVar("_ClientT", bound=type[BaseChatClient])


class _ModelOnly:
    """A view of a function-invoking client that only calls the model."""

    def __init__(self, client: BaseChatClient, base: type[BaseChatClient]) -> None:
        self._client = client
        self._base = base

    def get_response(
        self,
        messages: AgentRunInputs,
        *,
        stream: bool = False,
        options: ChatOptions | None = None,
    ) -> Any:
        return self._base.get_response(self._client, messages, stream=stream, options=options)  # type: ignore[call-overload]


def use_function_invocation(client_class: _ClientT) -> _ClientT:
    """Make `get_response` of a chat client class run the tools the model calls.

    With function tools in `options["tools"]`, a call loops like an agent run (tool calls
    run concurrently, errors go back to the model) and returns every message of the
    exchange. Agents do this themselves; use it for clients called directly. Set a
    `function_invocation_configuration` attribute on the client (a
    `FunctionInvocationConfiguration`) to change how the tools are run.

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> ToolCallingClient = use_function_invocation(ScriptedChatClient)
    """
    from agentry.agents._agent import Agent

    base = client_class

    def get_response(
        self: BaseChatClient,
        messages: AgentRunInputs,
        *,
        stream: bool = False,
        options: ChatOptions | None = None,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        tools = (options or {}).get("tools")
        if not tools:
            return base.get_response(self, messages, stream=stream, options=options)  # type: ignore[call-overload, no-any-return]
        rest = cast(ChatOptions, {k: v for k, v in (options or {}).items() if k != "tools"})
        agent = Agent(
            client=_ModelOnly(self, base),  # type: ignore[arg-type]
            tools=list(tools),
            default_options=rest,
            function_invocation_configuration=getattr(
                self, "function_invocation_configuration", None
            ),
        )
        response_format = rest.get("response_format")
        if stream:
            return ResponseStream(
                _chat_updates(agent.run(messages, stream=True)),
                lambda items: ChatResponse.from_updates(items, response_format=response_format),
            )
        return _chat_response(agent.run(messages), response_format)

    subclass = type(
        client_class.__name__, (client_class,), {"get_response": suggest_keywords(get_response)}
    )
    subclass.__doc__ = client_class.__doc__
    return cast(_ClientT, subclass)


async def _chat_updates(stream: Any) -> AsyncIterator[ChatResponseUpdate]:
    async for update in stream:
        yield ChatResponseUpdate(
            contents=update.contents,
            role=update.role,
            author_name=update.author_name,
            message_id=update.message_id,
            response_id=update.response_id,
            finish_reason=update.finish_reason,
            created_at=update.created_at,
        )


async def _chat_response(run: Awaitable[Any], response_format: object) -> ChatResponse:
    response = await run
    return ChatResponse(
        messages=response.messages,
        response_id=response.response_id,
        created_at=response.created_at,
        finish_reason=response.finish_reason,
        usage_details=response.usage_details,
        response_format=response_format,
    )
