"""A custom chat client written the wrong way fails when its class is defined, not at the
first call."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentry import BaseChatClient, ChatResponse, ChatResponseUpdate, Message


def test_a_sync_inner_get_response_is_refused_naming_the_method() -> None:
    with pytest.raises(
        TypeError,
        match=r"SyncClient._inner_get_response must be async: write `async def _inner_get_response",
    ):

        class SyncClient(BaseChatClient):  # pyright: ignore[reportUnusedClass]
            def _inner_get_response(self, *, messages: Any, options: Any) -> ChatResponse:  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
                return ChatResponse(messages=[Message("assistant", ["Hi"])])


def test_a_streaming_method_that_is_not_an_async_generator_is_refused() -> None:
    with pytest.raises(
        TypeError, match=r"ListClient._inner_get_streaming_response must be an async generator"
    ):

        class ListClient(BaseChatClient):  # pyright: ignore[reportUnusedClass]
            def _inner_get_streaming_response(self, *, messages: Any, options: Any) -> Any:  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
                return [ChatResponseUpdate(role="assistant", contents=["Hi"])]

    with pytest.raises(TypeError, match="must be an async generator"):

        class CoroutineClient(BaseChatClient):  # pyright: ignore[reportUnusedClass]
            async def _inner_get_streaming_response(self, *, messages: Any, options: Any) -> Any:  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
                return [ChatResponseUpdate(role="assistant", contents=["Hi"])]


async def test_async_methods_with_or_without_extra_keywords_are_accepted() -> None:
    class Streaming(BaseChatClient):
        async def _inner_get_streaming_response(
            self, *, messages: list[Message], options: Any
        ) -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=[f"echo {messages[-1].text}"])

    assert (await Streaming().get_response("hi")).text == "echo hi"
