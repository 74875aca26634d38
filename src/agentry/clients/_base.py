"""The chat client protocol and `BaseChatClient`, the base of every model client."""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentry.clients._chat_stream import ChatResponseStream
from agentry.clients._retrying import RetriedStream, retry_response
from agentry.errors import ChatClientError
from agentry.middleware import ChatContext, MiddlewareTypes, run_pipeline, split_middleware
from agentry.observability import TelemetryObserver, get_telemetry_observer
from agentry.protocols import SupportsChatGetResponse, chat_get_response_method
from agentry.types import (
    AgentRunInputs,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
    RetryPolicy,
    check_chat_options,
    normalize_messages,
    reject_unknown_keywords,
)

if TYPE_CHECKING:
    from agentry.agents import Agent
    from agentry.sessions import ContextProvider
    from agentry.tools import FunctionInvocationConfiguration

__all__ = ["BaseChatClient", "checked_responder", "checked_streamer"]


class BaseChatClient:
    """Base class of chat clients, with chat middleware support.

    A subclass implements `_inner_get_response` (an `async def` returning a
    `ChatResponse`) and/or `_inner_get_streaming_response` (an async generator yielding
    `ChatResponseUpdate`s); whichever one is missing is derived from the other. They are
    called with the keyword arguments `messages` and `options`; a method of another kind
    raises `TypeError` when the class is defined.

    Calls that fail for a passing reason (rate limits, server errors, timeouts, dropped
    connections) are tried again under the client's `retry` policy, or the one a call's
    `options["retry"]` gives; middleware sees one call however many attempts it takes.

    Example:
        >>> class EchoClient(BaseChatClient):
        ...     async def _inner_get_response(self, *, messages, options, **kwargs):
        ...         answer = Message(role="assistant", contents=[messages[-1].text])
        ...         return ChatResponse(messages=[answer])
    """

    OTEL_PROVIDER_NAME: str = "unknown"
    options_type: ClassVar[type] = ChatOptions
    """The options this client takes: `ChatOptions`, or a TypedDict extending it."""
    retries_own_calls: ClassVar[bool] = True
    """False for a client whose calls go to other clients that retry their own (such as
    `FallbackChatClient`): it passes `options["retry"]` on instead of applying it."""

    def __init__(
        self,
        *,
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
        additional_properties: dict[str, Any] | None = None,
    ) -> None:
        self.middleware: list[MiddlewareTypes] = list(middleware or [])
        self.retry: RetryPolicy | None = retry
        """How failed calls are retried (`None`: not at all); a call's `options["retry"]`
        takes its place."""
        self.additional_properties = additional_properties or {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        overrides_plain = cls._inner_get_response is not BaseChatClient._inner_get_response
        overrides_stream = (
            cls._inner_get_streaming_response is not BaseChatClient._inner_get_streaming_response
        )
        if not (overrides_plain or overrides_stream) and not getattr(cls, "__abstract__", False):
            raise TypeError(
                f"{cls.__name__} must implement _inner_get_response or "
                "_inner_get_streaming_response"
            )
        plain = cls.__dict__.get("_inner_get_response")
        if plain is not None and not _is_async_function(plain):
            raise TypeError(
                f"{cls.__name__}._inner_get_response must be async: write `async def "
                "_inner_get_response(self, *, messages, options)` returning a ChatResponse"
            )
        streaming = cls.__dict__.get("_inner_get_streaming_response")
        if streaming is not None and not _is_async_generator_function(streaming):
            raise TypeError(
                f"{cls.__name__}._inner_get_streaming_response must be an async generator: "
                "write `async def _inner_get_streaming_response(self, *, messages, options)` "
                "that yields ChatResponseUpdates"
            )

    def _get_response(
        self,
        messages: AgentRunInputs,
        *,
        stream: bool = False,
        options: ChatOptions | None = None,
        **unknown: object,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        """Send `messages` to the model.

        Args:
            messages: Text, a message, or a list of messages.
            stream: Return a stream of updates instead of an awaitable response.
            options: Chat options (model, temperature, tools, response format...);
                provider-specific request fields go in `options["additional_properties"]`.

        Returns:
            An awaitable `ChatResponse`, or with `stream=True` a `ResponseStream`.

        Raises:
            TypeError: An unknown keyword argument or chat option; the message names the
                closest valid one.
        """
        if unknown:
            reject_unknown_keywords(BaseChatClient.get_response, self, unknown)
        check_chat_options(options, options_type=self.options_type)
        message_list = normalize_messages(messages)
        chat_options: ChatOptions = options if options is not None else ChatOptions()
        if stream:
            response_format = chat_options.get("response_format")
            if self.middleware:
                updates = self._stream_with_middleware(message_list, chat_options)
            else:
                updates = self._model_stream(message_list, chat_options)
            updates = get_telemetry_observer().chat_stream(
                self, message_list, chat_options, updates
            )
            return ChatResponseStream(
                updates, lambda items: self._fold_updates(items, response_format)
            )
        return self._checked_response(message_list, chat_options)

    # Callers see the overloads of `ChatGetResponseMethod`.
    get_response = chat_get_response_method(_get_response)
    del _get_response

    def _checked_response(
        self, messages: list[Message], options: ChatOptions
    ) -> Awaitable[ChatResponse]:
        """`get_response` once its input is checked: a list of messages of the caller's
        own, and options with known keys."""
        response = (
            self._respond_with_middleware(messages, options)
            if self.middleware
            else self._model_response(messages, options)
        )
        return get_telemetry_observer().chat_response(self, messages, options, response)

    async def _respond_with_middleware(
        self, messages: list[Message], options: ChatOptions
    ) -> ChatResponse:
        context = ChatContext(client=self, messages=messages, options=options, stream=False)

        async def call_model(ctx: ChatContext) -> None:
            ctx.result = await self._model_response(ctx.messages, ctx.options)

        await run_pipeline(split_middleware(self.middleware)["chat"], context, call_model)
        response: ChatResponse = context.result
        if response.response_format is None:  # middleware answered in place of the model
            response.response_format = options.get("response_format")
        return response

    async def _stream_with_middleware(
        self, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        context = ChatContext(client=self, messages=messages, options=options, stream=True)

        async def call_model(ctx: ChatContext) -> None:
            ctx.result = self._model_stream(ctx.messages, ctx.options)

        await run_pipeline(split_middleware(self.middleware)["chat"], context, call_model)
        if context.result is None:
            return
        async for update in context.result:
            yield update

    def _fold_updates(
        self, updates: Sequence[ChatResponseUpdate], response_format: object
    ) -> ChatResponse:
        """The response a stream's updates fold into, for `ResponseStream`."""
        return ChatResponse.from_updates(updates, response_format=response_format)

    def _retry_policy(self, options: ChatOptions) -> RetryPolicy | None:
        if not self.retries_own_calls:
            return None
        policy = options.get("retry", self.retry)
        # `policy.enabled`, read without the property's call: this runs per model call
        return policy if policy is not None and policy.max_attempts > 1 else None

    async def _model_response(self, messages: list[Message], options: ChatOptions) -> ChatResponse:
        """The model's response, tried again under the call's retry policy; it names the
        response format it was asked for."""
        started = time.monotonic()
        try:
            response = await self._inner_get_response(messages=messages, options=options)
        except ChatClientError as error:
            policy = self._retry_policy(options)
            if policy is None:
                raise
            response = await self._retry(policy, error, messages, options, started=started)
        if response.response_format is None:
            response.response_format = options.get("response_format")
        return response

    def _retry(
        self,
        policy: RetryPolicy,
        error: ChatClientError,
        messages: list[Message],
        options: ChatOptions,
        *,
        started: float,
    ) -> Awaitable[ChatResponse]:
        return retry_response(
            policy,
            error,
            lambda: self._inner_get_response(messages=messages, options=options),
            started=started,
            client=self,
        )

    def _model_stream(
        self, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        policy = self._retry_policy(options)
        if policy is None:
            return self._inner_get_streaming_response(messages=messages, options=options)
        return RetriedStream(policy, self._inner_get_streaming_response, messages, options, self)

    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> ChatResponse:
        """Get one response from the model (default: fold the streaming implementation)."""
        updates = [
            u async for u in self._inner_get_streaming_response(messages=messages, options=options)
        ]
        return ChatResponse.from_updates(updates, response_format=options.get("response_format"))

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        """Stream the model's response (default: the plain response as updates)."""
        response = await self._inner_get_response(messages=messages, options=options)
        for update in response.to_updates():
            yield update

    def as_agent(
        self,
        *,
        name: str | None = None,
        instructions: str | None = None,
        description: str | None = None,
        tools: Sequence[object] | object | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        context_providers: Sequence[ContextProvider] | None = None,
        default_options: ChatOptions | None = None,
        function_invocation_configuration: FunctionInvocationConfiguration | None = None,
        id: str | None = None,
    ) -> Agent:
        """An :class:`~agentry.agents.Agent` that talks through this client.

        Example:
            >>> from agentry.clients.scripted import ScriptedChatClient
            >>> agent = ScriptedChatClient(["Hi!"]).as_agent(name="Assistant")
        """
        from agentry.agents import Agent

        return Agent(
            client=self,
            instructions=instructions,
            id=id,
            name=name,
            description=description,
            tools=tools,
            middleware=middleware,
            context_providers=context_providers,
            default_options=default_options,
            function_invocation_configuration=function_invocation_configuration,
        )


def _is_async_function(function: Callable[..., object]) -> bool:
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        inspect.unwrap(function)
    )


def _is_async_generator_function(function: Callable[..., object]) -> bool:
    return inspect.isasyncgenfunction(function) or inspect.isasyncgenfunction(
        inspect.unwrap(function)
    )


_BASE_GET_RESPONSE = BaseChatClient.get_response


def checked_responder(
    client: SupportsChatGetResponse,
) -> Callable[[list[Message], ChatOptions], Awaitable[ChatResponse]]:
    """A function that calls `client.get_response(messages, options=options)`, for a caller
    that has checked the keys of the options and hands over each list of `Message`s for
    good (an agent's run loop): a `BaseChatClient` that keeps the base `get_response` is
    spared checking and copying them again on every call."""
    if getattr(type(client), "get_response", None) is _BASE_GET_RESPONSE:
        base_client: BaseChatClient = client  # pyright: ignore[reportAssignmentType]  # checked above
        # the do-nothing telemetry observer does not watch chat calls
        watch = type(get_telemetry_observer()).chat_response
        if not base_client.middleware and watch is TelemetryObserver.chat_response:
            return base_client._model_response  # pyright: ignore[reportPrivateUsage]  # its own module
        return base_client._checked_response  # pyright: ignore[reportPrivateUsage]  # its own module

    def respond(messages: list[Message], options: ChatOptions) -> Awaitable[ChatResponse]:
        return client.get_response(messages, options=options)

    return respond


def checked_streamer(
    client: SupportsChatGetResponse,
) -> Callable[[list[Message], ChatOptions], AsyncIterable[ChatResponseUpdate]]:
    """A function that streams `client.get_response(messages, stream=True, options=options)`,
    for a caller that has checked the options and folds the updates itself (an agent's run
    loop): a `BaseChatClient` that keeps the base `get_response`, has no middleware and no
    observer of streams, hands out its model's updates without a `ResponseStream` around
    them (one step less per streamed chunk)."""
    if getattr(type(client), "get_response", None) is _BASE_GET_RESPONSE:
        base_client: BaseChatClient = client  # pyright: ignore[reportAssignmentType]  # checked above
        watch = type(get_telemetry_observer()).chat_stream
        if not base_client.middleware and watch is TelemetryObserver.chat_stream:
            return base_client._model_stream  # pyright: ignore[reportPrivateUsage]  # its own module

    def stream(messages: list[Message], options: ChatOptions) -> AsyncIterable[ChatResponseUpdate]:
        return client.get_response(messages, stream=True, options=options)

    return stream
