"""`OpenAIChatCompletionClient`: the Chat Completions API, served by OpenAI and by most
OpenAI-compatible servers (llama.cpp, vLLM, Ollama...)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, cast

from typing_extensions import Self

from agentry.clients import BaseChatClient, HoldsSDKClient
from agentry.clients.wire_format import (
    function_call_arguments,
    function_result_text,
    iso_time,
    option_instructions,
    response_format_schema,
    split_tools,
    tool_choice_parts,
)
from agentry.middleware import MiddlewareTypes
from agentry.openai._errors import translate_errors
from agentry.openai._settings import NO_KEY, OpenAISettings, make_async_client
from agentry.openai._usage import usage_details
from agentry.openai.providers import get_provider
from agentry.types import (
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    RetryPolicy,
    UsageDetails,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatCompletionClient"]

_MODEL_ENV = ("OPENAI_CHAT_COMPLETION_MODEL", "OPENAI_CHAT_MODEL", "OPENAI_MODEL")
# Fields a reply may carry reasoning in: servers differ (llama.cpp, vLLM, DeepSeek...).
_REASONING_FIELDS = ("reasoning_content", "reasoning")
_OPENAI_HOST = "api.openai.com"

MaxTokensParameter = Literal["max_tokens", "max_completion_tokens"]


class OpenAIChatCompletionClient(HoldsSDKClient["AsyncOpenAI"], BaseChatClient):
    """A chat client for the Chat Completions API (`/v1/chat/completions`).

    Args:
        model: The model name (default: the first of `OPENAI_CHAT_COMPLETION_MODEL`,
            `OPENAI_CHAT_MODEL` and `OPENAI_MODEL` that is set).
        api_key: The API key (default: `OPENAI_API_KEY`).
        base_url: Another OpenAI-compatible server (default: `OPENAI_BASE_URL`).
        client: An `openai.AsyncOpenAI` to use instead of building one (the caller
            closes it; `aclose()` closes only one the chat client built).
        timeout: Seconds per request (the SDK's default otherwise).
        max_retries: The SDK's own retries of failed requests: only with `retry=None`
            (while agentry's policy retries, the SDK's retries are off, so that one
            layer retries).
        default_headers: Headers sent with every request.
        max_tokens_parameter: The request field `max_tokens` of the options goes in.
            OpenAI wants `max_completion_tokens` (its reasoning models refuse
            `max_tokens`); many other servers only know `max_tokens`. Default:
            `max_completion_tokens` for OpenAI's own API, `max_tokens` for other servers.
        middleware: Chat middleware.
        retry: How failed calls are retried: rate limits, server errors, timeouts and
            dropped connections (default: `RetryPolicy()`; `None`: not by agentry).

    Example:
        >>> client = OpenAIChatCompletionClient(model="gpt-4o-mini", api_key="sk-...")
    """

    OTEL_PROVIDER_NAME = "openai"
    service_name: str = "the Chat Completions API"
    """How errors name the service."""
    error_advice: Mapping[int, str] = {}
    """What errors advise for an HTTP status, over the defaults (see `_errors`)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: AsyncOpenAI | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        default_headers: dict[str, str] | None = None,
        max_tokens_parameter: MaxTokensParameter | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
    ) -> None:
        super().__init__(middleware=middleware, retry=retry)
        settings = OpenAISettings.resolve(
            model=model, api_key=api_key, base_url=base_url, model_env=_MODEL_ENV
        )
        self.model = settings.model
        build = partial(
            make_async_client,
            settings,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            retry=retry,
        )
        self._hold_sdk(build(client=client), build if client is None else None)
        self.max_tokens_parameter: MaxTokensParameter = max_tokens_parameter or (
            "max_completion_tokens" if self.client.base_url.host == _OPENAI_HOST else "max_tokens"
        )

    @classmethod
    def for_provider(
        cls,
        provider: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008  # frozen, shared safely
    ) -> Self:
        """A client for an OpenAI-compatible service known by name: `ollama`, `vllm`,
        `lmstudio`, `llamacpp`, `openrouter` or `gemini` (see `agentry.openai.providers`).

        Unset arguments come from the provider's variables (`OLLAMA_MODEL`,
        `OPENROUTER_API_KEY`, `OLLAMA_BASE_URL`, ...), then its defaults; `OPENAI_API_KEY`
        is never sent to another service.

        Raises:
            ChatClientError: The provider is unknown, no model is named, or the service
                needs a key and none is set.

        Example:
            >>> client = OpenAIChatCompletionClient.for_provider("ollama", model="qwen2.5")
        """
        known = get_provider(provider)
        settings = known.resolve(model=model, api_key=api_key, base_url=base_url)
        client = cls(
            settings.model,
            api_key=settings.api_key or NO_KEY,
            base_url=settings.base_url,
            timeout=timeout,
            max_retries=max_retries,
            middleware=middleware,
            retry=retry,
        )
        client.OTEL_PROVIDER_NAME = known.name
        client.service_name = f"{known.title} (Chat Completions API)"
        key_advice = (
            f"check the API key: pass api_key= or set {' or '.join(known.api_key_env)}"
            if known.api_key_env
            else "the server wants an API key: pass api_key="
        )
        client.error_advice = {
            401: key_advice,
            404: f"check the model name and that {known.title} serves it at {settings.base_url}",
        }
        return client

    @property
    def _create(self) -> Callable[..., Awaitable[Any]]:
        # The SDK's overloads cannot be matched from a dict of options.
        return cast(Callable[..., Awaitable[Any]], self.client.chat.completions.create)

    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> ChatResponse:
        request = self._request(messages, options)
        with translate_errors(self.service_name, self.client.base_url, advice=self.error_advice):
            completion = await self._create(**request)
        return self._parse(completion, options)

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> AsyncIterator[ChatResponseUpdate]:
        request = self._request(messages, options)
        request["stream"] = True
        request["stream_options"] = {"include_usage": True}
        call_ids: dict[int, str] = {}
        with translate_errors(self.service_name, self.client.base_url, advice=self.error_advice):
            stream = await self._create(**request)
            chunk: Any
            async for chunk in stream:
                yield self._parse_chunk(chunk, call_ids)

    # region request

    def _request(self, messages: list[Message], options: ChatOptions) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": options.get("model") or self.model,
            "messages": [item for m in messages for item in _to_wire(m)],
        }
        extra_instructions = option_instructions(messages, options)
        if extra_instructions:
            request["messages"].insert(0, {"role": "system", "content": extra_instructions})
        for key in (
            "temperature",
            "top_p",
            "seed",
            "frequency_penalty",
            "presence_penalty",
            "logit_bias",
            "user",
            "store",
            "metadata",
        ):
            if options.get(key) is not None:
                request[key] = options.get(key)
        if options.get("max_tokens") is not None:
            request[self.max_tokens_parameter] = options.get("max_tokens")
        stop = options.get("stop")
        if stop:
            request["stop"] = [stop] if isinstance(stop, str) else list(stop)
        functions, raw_tools = split_tools(options.get("tools"))
        tools = [
            {
                "type": "function",
                "function": {
                    "name": f.name,
                    "description": f.description,
                    "parameters": f.parameters(),
                },
            }
            for f in functions
        ] + raw_tools
        choice = tool_choice_parts(options.get("tool_choice"))
        if tools:
            request["tools"] = tools
            if choice is not None:
                mode, name = choice
                request["tool_choice"] = (
                    {"type": "function", "function": {"name": name}} if name else mode
                )
            if options.get("allow_multiple_tool_calls") is not None:
                request["parallel_tool_calls"] = options.get("allow_multiple_tool_calls")
        response_format = options.get("response_format")
        if response_format is not None:
            name, schema, strict = response_format_schema(response_format)
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": strict},
            }
        request.update(options.get("additional_properties") or {})
        return request

    # endregion

    # region response

    def _parse(self, completion: Any, options: ChatOptions) -> ChatResponse:
        messages: list[Message] = []
        finish_reason: str | None = None
        for choice in completion.choices[:1]:
            finish_reason = choice.finish_reason
            messages.append(
                Message(
                    "assistant",
                    _reply_contents(choice.message),
                    message_id=completion.id,
                    raw_representation=choice.message,
                )
            )
        usage = completion.usage
        return ChatResponse(
            messages=messages,
            response_id=completion.id,
            model=completion.model,
            created_at=iso_time(completion.created),
            finish_reason=finish_reason,
            usage_details=_usage(usage) if usage else None,
            response_format=options.get("response_format"),
            raw_representation=completion,
        )

    def _parse_chunk(self, chunk: Any, call_ids: dict[int, str]) -> ChatResponseUpdate:
        contents: list[Content] = []
        finish_reason: str | None = None
        for choice in chunk.choices[:1]:
            delta = choice.delta
            finish_reason = choice.finish_reason
            for field in _REASONING_FIELDS:
                extra: dict[str, Any] = delta.model_extra or {}
                reasoning: Any = getattr(delta, field, None) or extra.get(field)
                if isinstance(reasoning, str) and reasoning:
                    contents.append(Content("text_reasoning", text=reasoning))
                    break
            if delta.content:
                contents.append(Content("text", text=delta.content))
            for call in delta.tool_calls or ():
                if call.id:
                    call_ids[call.index] = call.id
                function = call.function
                contents.append(
                    Content(
                        "function_call",
                        call_id=call_ids.get(call.index, str(call.index)),
                        name=function.name if function else None,
                        arguments=(function.arguments or "") if function else "",
                    )
                )
        usage = chunk.usage
        if usage:
            details = _usage(usage)
            if details:
                contents.append(Content("usage", usage_details=details))
        return ChatResponseUpdate(
            contents=contents,
            role="assistant",
            message_id=chunk.id,
            response_id=chunk.id,
            model=chunk.model,
            created_at=iso_time(chunk.created),
            finish_reason=finish_reason,
            raw_representation=chunk,
        )

    # endregion


def _reply_contents(message: Any) -> list[Content]:
    contents: list[Content] = []
    extra: dict[str, Any] = getattr(message, "model_extra", None) or {}
    for field in _REASONING_FIELDS:
        reasoning: Any = extra.get(field)
        if isinstance(reasoning, str) and reasoning:
            contents.append(Content("text_reasoning", text=reasoning))
            break
    if message.content:
        contents.append(Content("text", text=message.content))
    if getattr(message, "refusal", None):
        contents.append(Content("error", message=message.refusal, error_code="refusal"))
    for call in message.tool_calls or ():
        function = getattr(call, "function", None)
        if function is None:
            continue
        contents.append(
            Content(
                "function_call",
                call_id=call.id,
                name=function.name,
                arguments=function.arguments,
                raw_representation=call,
            )
        )
    return contents


def _to_wire(message: Message) -> list[dict[str, Any]]:
    """One agentry message as Chat Completions messages (tool results: one each)."""
    role = message.role
    if role == "tool":
        return [
            {"role": "tool", "tool_call_id": c.call_id, "content": function_result_text(c)}
            for c in message.contents
            if c.type == "function_result"
        ]
    if role == "assistant":
        wire: dict[str, Any] = {"role": "assistant"}
        text = "".join(c.text or "" for c in message.contents if c.type == "text")
        wire["content"] = text or None
        calls = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": function_call_arguments(c)},
            }
            for c in message.contents
            if c.type == "function_call"
        ]
        if calls:
            wire["tool_calls"] = calls
        results = [
            {"role": "tool", "tool_call_id": c.call_id, "content": function_result_text(c)}
            for c in message.contents
            if c.type == "function_result"
        ]
        if wire["content"] is None and not calls:
            return results
        return [wire, *results]
    parts = [part for c in message.contents if (part := _user_part(c)) is not None]
    if not parts:
        return []  # only bookkeeping, such as tool-approval answers: nothing for the model
    if role == "system" or all(p["type"] == "text" for p in parts):
        text = "".join(p["text"] for p in parts)
        wire = {"role": role, "content": text}
    else:
        wire = {"role": role, "content": parts}
    if message.author_name and role == "user":
        wire["name"] = _safe_author(message.author_name)
    return [wire]


def _user_part(content: Content) -> dict[str, Any] | None:
    if content.type == "text":
        return {"type": "text", "text": content.text or ""}
    if content.type in ("data", "uri") and content.uri:
        media_type = content.media_type or ""
        if media_type.startswith("image/") or (content.type == "uri" and not media_type):
            return {"type": "image_url", "image_url": {"url": content.uri}}
        if content.type == "data" and media_type.startswith("audio/"):
            encoded = content.uri.split(";base64,", 1)[-1]
            return {
                "type": "input_audio",
                "input_audio": {"data": encoded, "format": media_type.split("/", 1)[1]},
            }
        if content.type == "data":
            filename = content.name or (content.additional_properties or {}).get("filename", "file")
            return {"type": "file", "file": {"file_data": content.uri, "filename": filename}}
        return {"type": "text", "text": content.uri}
    return None


def _safe_author(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in name)[:64]


def _usage(usage: Any) -> UsageDetails | None:
    return usage_details(
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.total_tokens,
        input_details=getattr(usage, "prompt_tokens_details", None),
        output_details=getattr(usage, "completion_tokens_details", None),
    )
