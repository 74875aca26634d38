"""`ScriptedChatClient`: a model double that replays given responses and records requests.

Use it to test agents, tools, middleware and workflows without a model.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, Union, cast

from agentry.clients._base import BaseChatClient
from agentry.errors import ScriptExhaustedError
from agentry.middleware import MiddlewareTypes
from agentry.types import (
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    RetryPolicy,
)

__all__ = ["RecordedCall", "ScriptItem", "ScriptedChatClient"]

ScriptFunction: TypeAlias = Callable[
    [list[Message], ChatOptions], Union["ScriptItem", Awaitable["ScriptItem"]]
]
ScriptItem: TypeAlias = (
    ChatResponse | Message | str | Sequence[ChatResponseUpdate] | BaseException | ScriptFunction
)
"""One scripted answer: a response, a message, text, a list of stream updates, an exception
to raise, or a function of (messages, options) returning one of those."""

_call_ids = itertools.count(1)


@dataclass(slots=True)
class RecordedCall:
    """What the client was sent in one call."""

    messages: list[Message]
    options: ChatOptions
    stream: bool

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered in this call."""
        return [getattr(t, "name", str(t)) for t in self.options.get("tools") or ()]


class ScriptedChatClient(BaseChatClient):
    """Replays scripted responses in order and records every request.

    Args:
        responses: The answers, in order (see :data:`ScriptItem`).
        chunk_size: When streaming, split text into chunks of this many characters.
        delay: Seconds to wait before each answer (to test concurrency and timeouts).
        model: The model name reported on responses.
        middleware: Chat middleware of the client.
        retry: How scripted transient errors are retried (see `RetryPolicy`; `None`:
            raised at once).

    Example:
        >>> client = ScriptedChatClient([
        ...     ScriptedChatClient.function_call("get_weather", {"city": "Paris"}),
        ...     "It is sunny in Paris.",
        ... ])
    """

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(
        self,
        responses: Iterable[ScriptItem] = (),
        *,
        chunk_size: int | None = None,
        delay: float = 0.0,
        model: str = "scripted",
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
    ) -> None:
        super().__init__(middleware=middleware, retry=retry)
        self._script: deque[ScriptItem] = deque(responses)
        self.chunk_size = chunk_size
        self.delay = delay
        self.model = model
        self.calls: list[RecordedCall] = []

    # region building scripts

    @staticmethod
    def reply(text: str, **kwargs: Any) -> ChatResponse:
        """An assistant answer with `text`."""
        return ChatResponse(messages=[Message("assistant", [text])], finish_reason="stop", **kwargs)

    @staticmethod
    def function_call(
        name: str,
        arguments: Mapping[str, object] | str | None = None,
        *,
        call_id: str | None = None,
    ) -> ChatResponse:
        """An assistant turn that calls one tool."""
        return ScriptedChatClient.function_calls([(name, arguments or {}, call_id)])

    @staticmethod
    def function_calls(
        calls: Iterable[tuple[str, Mapping[str, object] | str, str | None]],
    ) -> ChatResponse:
        """An assistant turn that calls several tools at once: (name, arguments, call_id)."""
        contents = [
            Content.from_function_call(
                call_id=call_id or f"call_{next(_call_ids)}", name=name, arguments=arguments
            )
            for name, arguments, call_id in calls
        ]
        return ChatResponse(messages=[Message("assistant", contents)], finish_reason="tool_calls")

    def add(self, *responses: ScriptItem) -> None:
        """Append answers to the script."""
        self._script.extend(responses)

    @property
    def remaining(self) -> int:
        """How many scripted answers are left."""
        return len(self._script)

    # endregion

    def _take(self, messages: list[Message], options: ChatOptions, stream: bool) -> object:
        """Record the call and take the next item of the script, as it was scripted."""
        self.calls.append(RecordedCall(list(messages), options, stream))
        if not self._script:
            raise ScriptExhaustedError(
                f"ScriptedChatClient has no response left for call {len(self.calls)}; "
                "add more with ScriptedChatClient([...]) or client.add(...)"
            )
        return self._script.popleft()

    async def _settle(self, item: object, messages: list[Message], options: ChatOptions) -> object:
        """The answer `item` gives after the delay: a function's item once it is called;
        an exception is raised."""
        if self.delay:
            await asyncio.sleep(self.delay)
        while callable(item) and not isinstance(item, type):
            item = item(list(messages), options)
            if inspect.isawaitable(item):
                item = await item
        if isinstance(item, BaseException):
            raise item
        return item

    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> ChatResponse:
        item = self._take(messages, options, stream=False)
        if self.delay or type(item) is not ChatResponse:  # else a response, as it is
            item = await self._settle(item, messages, options)
            if isinstance(item, (list, tuple)):
                updates = cast("Sequence[ChatResponseUpdate]", item)
                return ChatResponse.from_updates(
                    updates, response_format=options.get("response_format")
                )
        return self._as_response(item)

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        item = await self._settle(self._take(messages, options, stream=True), messages, options)
        if isinstance(item, (list, tuple)):
            for update in cast("Sequence[ChatResponseUpdate]", item):
                yield update
            return
        for update in self._as_response(item).to_updates():
            for chunk in self._chunked(update):
                yield chunk

    def _as_response(self, item: object) -> ChatResponse:
        if isinstance(item, ChatResponse):
            response: ChatResponse = item  # pyright: ignore[reportUnknownVariableType]
            if response.model is None:
                response.model = self.model
            return response
        if isinstance(item, Message):
            calls = any(c.type == "function_call" for c in item.contents)
            return ChatResponse(
                messages=[item], model=self.model, finish_reason="tool_calls" if calls else "stop"
            )
        if isinstance(item, str):
            return ChatResponse(
                messages=[Message("assistant", [item])], model=self.model, finish_reason="stop"
            )
        raise TypeError(f"cannot use {item!r} as a scripted response")

    def _chunked(self, update: ChatResponseUpdate) -> Iterable[ChatResponseUpdate]:
        size = self.chunk_size
        if not size or not any(
            c.type == "text" and len(c.text or "") > size for c in update.contents
        ):
            yield update
            return
        pieces: list[list[Content]] = []
        for content in update.contents:
            if content.type != "text":
                pieces.append([content])
                continue
            text = content.text or ""
            pieces.extend(
                [Content("text", text=text[start : start + size])]
                for start in range(0, len(text), size)
            )
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            yield _like(update, piece, finish_reason=update.finish_reason if last else None)


def _like(
    update: ChatResponseUpdate, contents: list[Content], finish_reason: str | None = None
) -> ChatResponseUpdate:
    return ChatResponseUpdate(
        contents=contents,
        role=update.role,
        author_name=update.author_name,
        message_id=update.message_id,
        response_id=update.response_id,
        conversation_id=update.conversation_id,
        model=update.model,
        finish_reason=finish_reason,
    )
