"""`OpenAIChatClient`: a chat client for the Responses API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai
from openai.types.responses import Response
from typing_extensions import override

from agentry.openai._errors import to_chat_client_error, unexpected_answer
from agentry.openai._messages import iso_time
from agentry.openai._responses_mapping import (
    EventReader,
    check_status,
    conversation_id_of,
    finish_reason_of,
    request_params,
    response_contents,
    usage_of,
)
from agentry.openai._settings import OpenAIClientBase
from agentry.types import ChatOptions, ChatResponse, ChatResponseUpdate, Message

__all__ = ["OpenAIChatClient"]

_API = "Responses"


class OpenAIChatClient(OpenAIClientBase):
    """A chat client for the OpenAI Responses API, or any server that speaks it.

    When the service stores responses (`store`, on by default at OpenAI), the response
    id becomes the response's `conversation_id`; an agent session then keeps it and later
    turns send only new messages with `previous_response_id`. Give
    `options={"store": False}` to keep the whole conversation on this side instead.

    The API key and base URL come from the arguments or from `OPENAI_API_KEY` and
    `OPENAI_BASE_URL`; the model from `model=` or `OPENAI_MODEL`.

    Example:
        >>> client = OpenAIChatClient("gpt-4.1-mini", api_key="sk-...")
        >>> agent = client.as_agent(instructions="Answer in one sentence.")
    """

    @override
    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> ChatResponse:
        params = request_params(messages, options)
        try:
            response = await self.client.responses.create(
                model=self._model_for(options), stream=False, **params
            )
        except openai.OpenAIError as error:
            raise to_chat_client_error(error, api=_API) from error
        if not isinstance(response, Response):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise unexpected_answer(response, api=_API)
        check_status(response)
        return ChatResponse(
            messages=[Message("assistant", response_contents(response), message_id=response.id)],
            response_id=response.id,
            conversation_id=conversation_id_of(response, options),
            model=response.model,
            created_at=iso_time(response.created_at),
            finish_reason=finish_reason_of(response),
            usage_details=usage_of(response.usage) if response.usage else None,
            response_format=options.get("response_format"),
            raw_representation=response,
        )

    @override
    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> AsyncIterator[ChatResponseUpdate]:
        params = request_params(messages, options)
        reader = EventReader(options)
        try:
            stream = await self.client.responses.create(
                model=self._model_for(options), stream=True, **params
            )
            async with stream:
                async for event in stream:
                    update = reader.update(event)
                    if update is not None:
                        yield update
        except openai.OpenAIError as error:
            raise to_chat_client_error(error, api=_API) from error
