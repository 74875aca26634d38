"""`AnthropicChatClient`: the Anthropic Messages API (`/v1/messages`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from agentry.anthropic._errors import translate_errors
from agentry.anthropic._options import AnthropicChatOptions, StructuredOutputMode
from agentry.anthropic._request import RequestDefaults, build_request
from agentry.anthropic._response import parse_message
from agentry.anthropic._settings import ANTHROPIC_HOST, AnthropicSettings, make_async_client
from agentry.anthropic._stream import StreamReader
from agentry.clients import BaseChatClient, HoldsSDKClient
from agentry.clients.sdk_errors import sdk_max_retries, without_sdk_retries
from agentry.middleware import MiddlewareTypes
from agentry.types import ChatOptions, ChatResponse, ChatResponseUpdate, Message, RetryPolicy

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["AnthropicChatClient"]

DEFAULT_MAX_TOKENS = 4096


class AnthropicChatClient(HoldsSDKClient["AsyncAnthropic"], BaseChatClient):
    """A chat client for the Anthropic Messages API, on the official `anthropic` SDK.

    Thinking blocks come back as reasoning contents that keep their signatures, and go
    back to the API unchanged in later turns. Options only this API has (thinking,
    effort, prompt caching...) are the keys of `AnthropicChatOptions`.

    Args:
        model: The model name (default: `ANTHROPIC_CHAT_MODEL`, then `ANTHROPIC_MODEL`).
        api_key: The API key (default: `ANTHROPIC_API_KEY`).
        base_url: Another server of the Messages API, such as llama.cpp's `llama-server`
            (default: `ANTHROPIC_BASE_URL`, else Anthropic's API).
        client: An `anthropic.AsyncAnthropic` to use instead of building one (the caller
            closes it; `aclose()` closes only one the chat client built).
        timeout: Seconds per request (the SDK's default otherwise).
        max_retries: The SDK's own retries of failed requests: only with `retry=None`
            (while agentry's policy retries, the SDK's retries are off, so that one
            layer retries).
        default_headers: Headers sent with every request.
        max_tokens: The answer's token limit when the options set none (the API needs one).
        structured_output: How a `response_format` reaches the model: "json_schema" (the
            API's JSON output format) or "tool" (a tool the model must call with the
            answer). Default: "json_schema" for Anthropic's API, "tool" for other servers,
            which seldom honour the JSON output format.
        send_sampling_options: Whether `temperature`, `top_p` and `top_k` are sent.
            Anthropic's API refuses them in its current version; compatible servers use
            them. Default: False for Anthropic's API, True for other servers.
        middleware: Chat middleware.
        retry: How failed calls are retried: rate limits, server errors, timeouts and
            dropped connections (default: `RetryPolicy()`; `None`: not by agentry).

    Example:
        >>> from agentry import Agent
        >>> client = AnthropicChatClient(model="claude-sonnet-5-5", api_key="sk-ant-...")
        >>> agent = Agent(client=client, instructions="Answer briefly.")
    """

    options_type = AnthropicChatOptions

    OTEL_PROVIDER_NAME = "anthropic"

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: AsyncAnthropic | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        default_headers: dict[str, str] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        structured_output: StructuredOutputMode | None = None,
        send_sampling_options: bool | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
    ) -> None:
        super().__init__(middleware=middleware, retry=retry)
        settings = AnthropicSettings.resolve(model=model, api_key=api_key, base_url=base_url)
        self.model = settings.model
        sdk_retries = sdk_max_retries(retry, max_retries)
        build = None  # how the SDK client is built again after aclose(), if it is built here
        if client is None:
            build = partial(
                make_async_client,
                settings,
                timeout=timeout,
                max_retries=sdk_retries,
                default_headers=default_headers,
            )
            client = build()
        self._hold_sdk(without_sdk_retries(client, retry), build)
        anthropic_api = self.client.base_url.host == ANTHROPIC_HOST
        self.max_tokens = max_tokens
        self.structured_output: StructuredOutputMode = structured_output or (
            "json_schema" if anthropic_api else "tool"
        )
        self.send_sampling_options = (
            (not anthropic_api) if send_sampling_options is None else send_sampling_options
        )

    @property
    def _create(self) -> Callable[..., Awaitable[Any]]:
        # The SDK's overloads cannot be matched from a dict of arguments.
        return cast(Callable[..., Awaitable[Any]], self.client.messages.create)

    def _defaults(self) -> RequestDefaults:
        return RequestDefaults(
            model=self.model,
            max_tokens=self.max_tokens,
            structured_output=self.structured_output,
            send_sampling_options=self.send_sampling_options,
        )

    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> ChatResponse:
        request = build_request(messages, options, self._defaults())
        with translate_errors(self.client.base_url):
            message = await self._create(**request.arguments())
        return parse_message(message, options, request.output_tool)

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> AsyncIterator[ChatResponseUpdate]:
        request = build_request(messages, options, self._defaults())
        reader = StreamReader(request.output_tool)
        with translate_errors(self.client.base_url):
            stream = await self._create(**request.arguments(), stream=True)
            event: Any
            async for event in stream:
                update = reader.read(event)
                if update is not None:
                    yield update
