"""`OpenAIChatCompletionClient`: a chat client for the Chat Completions API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai
from openai.types.chat import ChatCompletion
from typing_extensions import override

from agentry.openai._chat_completion_mapping import (
    ChunkReader,
    completion_contents,
    request_params,
    usage_of,
)
from agentry.openai._errors import to_chat_client_error, unexpected_answer
from agentry.openai._messages import iso_time
from agentry.openai._settings import OpenAIClientBase
from agentry.types import ChatOptions, ChatResponse, ChatResponseUpdate, Message

__all__ = ["OpenAIChatCompletionClient"]

_API = "Chat Completions"


class OpenAIChatCompletionClient(OpenAIClientBase):
    """A chat client for the OpenAI Chat Completions API, or any server that speaks it.

    The API key and base URL come from the arguments or from `OPENAI_API_KEY` and
    `OPENAI_BASE_URL`; the model from `model=` or `OPENAI_MODEL`. Retries and timeouts
    are the SDK's (`max_retries=`, `timeout=`).

    Example:
        >>> client = OpenAIChatCompletionClient(
        ...     "gpt-4.1-mini", api_key="sk-...", base_url="http://127.0.0.1:8080/v1"
        ... )
        >>> agent = client.as_agent(instructions="Answer in one sentence.")
    """

    @override
    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> ChatResponse:
        params = request_params(messages, options)
        try:
            completion = await self.client.chat.completions.create(
                model=self._model_for(options), stream=False, **params
            )
        except openai.OpenAIError as error:
            raise to_chat_client_error(error, api=_API) from error
        if not isinstance(completion, ChatCompletion):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise unexpected_answer(completion, api=_API)
        contents, finish_reason = completion_contents(completion)
        return ChatResponse(
            messages=[Message("assistant", contents, message_id=completion.id)],
            response_id=completion.id,
            model=completion.model,
            created_at=iso_time(completion.created),
            finish_reason=finish_reason,
            usage_details=usage_of(completion.usage) if completion.usage else None,
            response_format=options.get("response_format"),
            raw_representation=completion,
        )

    @override
    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> AsyncIterator[ChatResponseUpdate]:
        params = request_params(messages, options)
        params.setdefault("stream_options", {"include_usage": True})
        reader = ChunkReader()
        try:
            stream = await self.client.chat.completions.create(
                model=self._model_for(options), stream=True, **params
            )
            async with stream:
                async for chunk in stream:
                    yield reader.update(chunk)
        except openai.OpenAIError as error:
            raise to_chat_client_error(error, api=_API) from error
