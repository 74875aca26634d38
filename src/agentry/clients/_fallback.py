"""`FallbackChatClient`: chat clients tried in order until one answers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from agentry.clients._base import BaseChatClient
from agentry.clients._closing import ClosedOnExit
from agentry.clients._retrying import usage_update
from agentry.errors import ChatClientError
from agentry.middleware import MiddlewareTypes
from agentry.observability import get_logger
from agentry.types import (
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    UsageDetails,
    add_usage_details,
    is_transient_error,
)

if TYPE_CHECKING:
    from agentry.protocols import SupportsChatGetResponse

__all__ = ["ANSWERED_BY", "FallbackChatClient", "FallbackOn"]

ANSWERED_BY = "answered_by"
"""The `additional_properties` key naming the client that answered."""

FallbackOn: TypeAlias = Callable[[Exception], bool] | tuple[type[Exception], ...]
"""When to move on: a test of the error, or the error types that qualify."""

_logger = get_logger("agentry.clients")


class FallbackChatClient(ClosedOnExit, BaseChatClient):
    """Asks chat clients in order, moving on to the next when one fails.

    By default it moves on when a client fails with a transient error (see
    `is_transient_error`): one that still failed when the client's own retries were spent,
    such as a rate limit, a server error, a timeout or a service that cannot be reached.
    A bad request or key fails at once, since the next client would likely fail alike.
    A stream moves on only before any part of the answer (an update with contents) went
    out: after that, its failure is raised.

    The answer says who gave it: `response.model` is the model's name, and the response's
    and its messages' `additional_properties["answered_by"]` name the client. Tokens the
    failed clients reported on their errors are added to the answer's usage.

    The fallback does not retry itself: each client retries under its own policy, or the
    one `options["retry"]` gives, which it passes on.

    `aclose()`, or leaving `async with`, closes every client that has an `aclose()` (an
    agent given the fallback closes it so when it leaves its own `async with`).

    Args:
        clients: The clients, in order: a list (named after their class and model), or a
            mapping of names to clients.
        fallback_on: The errors to move on at: error types, or a function of the error
            that says whether to (default: `is_transient_error`).
        middleware: Chat middleware around the whole fallback.

    Raises:
        ValueError: No clients were given.
        TypeError: An item is not a chat client.

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> client = FallbackChatClient(
        ...     {"primary": ScriptedChatClient(), "backup": ScriptedChatClient(["Hi!"])}
        ... )
    """

    OTEL_PROVIDER_NAME = "fallback"
    retries_own_calls = False

    def __init__(
        self,
        clients: Sequence[SupportsChatGetResponse] | Mapping[str, SupportsChatGetResponse],
        *,
        fallback_on: FallbackOn = is_transient_error,
        middleware: Sequence[MiddlewareTypes] | None = None,
    ) -> None:
        super().__init__(middleware=middleware, retry=None)
        named = _named(clients)
        if not named:
            raise ValueError("FallbackChatClient needs at least one client to ask")
        for name, client in named:
            if not callable(getattr(client, "get_response", None)):
                raise TypeError(
                    f"FallbackChatClient's client {name!r} is a {type(client).__name__}, not "
                    "a chat client: give objects with get_response(), such as "
                    "OpenAIChatClient or ScriptedChatClient"
                )
        self.clients: list[tuple[str, SupportsChatGetResponse]] = named
        """The clients in the order they are asked, with their names."""
        self.fallback_on: FallbackOn = fallback_on

    async def aclose(self) -> None:
        """Close the clients that can be closed (each has its `aclose()` called, also when
        one before it fails)."""
        async with AsyncExitStack() as closing:
            for _, client in reversed(self.clients):
                close: Callable[[], Awaitable[object]] | None = getattr(client, "aclose", None)
                if close is not None:
                    closing.push_async_callback(close)

    def _moves_on(self, error: Exception) -> bool:
        test = self.fallback_on
        return isinstance(error, test) if isinstance(test, tuple) else test(error)

    def _failed(self, index: int, error: Exception) -> UsageDetails | None:
        """Raise `error` unless the next client may be asked; its usage otherwise."""
        if index == len(self.clients) - 1 or not self._moves_on(error):
            raise error
        name, next_name = self.clients[index][0], self.clients[index + 1][0]
        status = getattr(error, "status_code", None)
        _logger.warning(
            "chat client %r failed with %s%s; asking %r instead",
            name,
            type(error).__name__,
            f" (HTTP {status})" if status is not None else "",
            next_name,
        )
        usage = error.usage_details if isinstance(error, ChatClientError) else None
        return cast(UsageDetails, usage) if usage else None

    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> ChatResponse:
        failed_usage: UsageDetails | None = None
        for index, (name, client) in enumerate(self.clients):
            try:
                response = await client.get_response(messages, options=options)
            except Exception as error:
                failed_usage = add_usage_details(failed_usage, self._failed(index, error))
                continue
            if failed_usage:
                response.usage_details = add_usage_details(failed_usage, response.usage_details)
            if response.model is None:
                response.model = _model_of(client)
            response.additional_properties = _labelled(response.additional_properties, name)
            for message in response.messages:
                message.additional_properties = _labelled(message.additional_properties, name)
            return response
        raise AssertionError("unreachable: the last client's failure is raised")

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        failed_usage: UsageDetails | None = None
        for index, (name, client) in enumerate(self.clients):
            model = _model_of(client)
            answered = False  # whether a part of the answer (contents) went out
            stream = client.get_response(messages, stream=True, options=options)
            try:
                async for update in stream:
                    if update.contents and not answered:
                        answered = True
                        if failed_usage:
                            yield usage_update(failed_usage, update)
                    yield _label_update(update, name, model)
                return
            except Exception as error:
                if answered:
                    raise
                failed_usage = add_usage_details(failed_usage, self._failed(index, error))
            finally:
                await stream.aclose()

    def _fold_updates(
        self, updates: Sequence[ChatResponseUpdate], response_format: object
    ) -> ChatResponse:
        response = super()._fold_updates(updates, response_format)
        for update in updates:
            answered_by: object = (update.additional_properties or {}).get(ANSWERED_BY)
            if isinstance(answered_by, str):
                labelled = _labelled(response.additional_properties, answered_by)
                response.additional_properties = labelled
                break
        return response


def _named(
    clients: Sequence[SupportsChatGetResponse] | Mapping[str, SupportsChatGetResponse],
) -> list[tuple[str, SupportsChatGetResponse]]:
    if isinstance(clients, Mapping):
        return [(str(name), client) for name, client in clients.items()]
    named: list[tuple[str, SupportsChatGetResponse]] = []
    for client in cast(Iterable[Any], clients):
        model = _model_of(client)
        name = f"{type(client).__name__}({model})" if model else type(client).__name__
        if any(name == taken for taken, _ in named):
            name = f"{name}#{len(named) + 1}"
        named.append((name, client))
    return named


def _model_of(client: object) -> str | None:
    model = getattr(client, "model", None)
    return model if isinstance(model, str) else None


def _labelled(properties: dict[str, Any] | None, name: str) -> dict[str, Any]:
    return {**(properties or {}), ANSWERED_BY: name}


def _label_update(update: ChatResponseUpdate, name: str, model: str | None) -> ChatResponseUpdate:
    update.additional_properties = _labelled(update.additional_properties, name)
    if update.model is None and model is not None:
        update.model = model
    return update
