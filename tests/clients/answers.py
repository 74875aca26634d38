"""Getting a chat client's answer plain or streamed, the same way in every test, and a
client whose stream breaks after some text."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agentry import (
    BaseChatClient,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
)
from agentry.errors import ChatClientConnectionError
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
    stream: ResponseStream[ChatResponseUpdate, ChatResponse], into: list[str]
) -> None:
    """Read `stream` to its end or its failure, keeping each update's text in `into`."""
    async for update in stream:
        into.append(update.text)


class BreaksAfterText(BaseChatClient):
    """Streams some text, then loses the connection."""

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[ChatResponseUpdate]:
        yield ChatResponseUpdate(role="assistant", contents=["Hel"])
        raise ChatClientConnectionError("the connection dropped")
