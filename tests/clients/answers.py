"""Getting a chat client's answer plain or streamed, the same way in every test, and a
client whose stream breaks after some text."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from agentry import (
    AgentResponseUpdate,
    BaseChatClient,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    RetryPolicy,
)
from agentry.errors import ChatClientConnectionError, ChatClientError
from agentry.protocols import SupportsChatGetResponse


async def respond(
    client: SupportsChatGetResponse,
    text: str,
    *,
    stream: bool,
    options: ChatOptions | None = None,
) -> ChatResponse:
    """The client's answer to `text`: awaited, or the fold of its stream."""
    if stream:
        return await client.get_response(text, stream=True, options=options).get_final_response()
    return await client.get_response(text, options=options)


async def read_texts(
    stream: AsyncIterable[ChatResponseUpdate] | AsyncIterable[AgentResponseUpdate],
    into: list[str],
) -> None:
    """Read `stream` to its end or its failure, keeping each update's text in `into`."""
    async for update in stream:
        into.append(update.text)


class BreaksAfterText(BaseChatClient):
    """Streams some text, then fails with `breaks_with` (by default, the connection
    drops); it counts its attempts."""

    def __init__(
        self, *, retry: RetryPolicy | None, breaks_with: ChatClientError | None = None
    ) -> None:
        super().__init__(retry=retry)
        self.breaks_with = breaks_with or ChatClientConnectionError("the connection dropped")
        self.attempts = 0

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        self.attempts += 1
        yield ChatResponseUpdate(role="assistant", contents=["Hel"])
        raise self.breaks_with
