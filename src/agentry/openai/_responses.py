"""`OpenAIChatClient`: the Responses API (`/v1/responses`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, cast

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
from agentry.errors import ChatClientError
from agentry.middleware import MiddlewareTypes
from agentry.openai._errors import translate_errors
from agentry.openai._settings import OpenAISettings, make_async_client
from agentry.openai._usage import usage_details
from agentry.tools import tool_result_contents, tool_result_to_text
from agentry.types import (
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    RetryPolicy,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatClient"]

_MODEL_ENV = ("OPENAI_CHAT_MODEL", "OPENAI_RESPONSES_MODEL", "OPENAI_MODEL")
_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}


class OpenAIChatClient(HoldsSDKClient["AsyncOpenAI"], BaseChatClient):
    """A chat client for the OpenAI Responses API.

    With `options={"store": True}` the service keeps the conversation: the response's
    `conversation_id` is its id, an agent session remembers it, and later calls send only
    new messages with `previous_response_id`.

    Args:
        model: The model name (default: the first of `OPENAI_CHAT_MODEL`,
            `OPENAI_RESPONSES_MODEL` and `OPENAI_MODEL` that is set).
        api_key: The API key (default: `OPENAI_API_KEY`).
        base_url: Another OpenAI-compatible server (default: `OPENAI_BASE_URL`).
        client: An `openai.AsyncOpenAI` to use instead of building one (the caller
            closes it; `aclose()` closes only one the chat client built).
        timeout: Seconds per request (the SDK's default otherwise).
        max_retries: The SDK's own retries of failed requests: only with `retry=None`
            (while agentry's policy retries, the SDK's retries are off, so that one
            layer retries).
        default_headers: Headers sent with every request.
        middleware: Chat middleware.
        retry: How failed calls are retried: rate limits, server errors, timeouts and
            dropped connections (default: `RetryPolicy()`; `None`: not by agentry).

    Example:
        >>> from agentry import Agent
        >>> agent = Agent(client=OpenAIChatClient(model="gpt-4.1", api_key="sk-..."))
    """

    OTEL_PROVIDER_NAME = "openai"
    service_name: str = "the Responses API"
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

    @property
    def _create(self) -> Callable[..., Awaitable[Any]]:
        # The SDK's overloads cannot be matched from a dict of options.
        return cast(Callable[..., Awaitable[Any]], self.client.responses.create)

    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> ChatResponse:
        request = self._request(messages, options)
        with translate_errors(self.service_name, self.client.base_url, advice=self.error_advice):
            response = await self._create(**request)
        return _parse_response(response, options)

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: Any
    ) -> AsyncIterator[ChatResponseUpdate]:
        request = self._request(messages, options)
        request["stream"] = True
        calls = _StreamedCalls()
        response_id: str | None = None
        with translate_errors(self.service_name, self.client.base_url, advice=self.error_advice):
            stream = await self._create(**request)
            event: Any
            async for event in stream:
                if event.type == "response.created":
                    response_id = event.response.id
                update = _parse_event(event, calls, options)
                if update is not None:
                    # The plain response's message carries the response id; so does the fold.
                    update.message_id = update.message_id or response_id
                    yield update

    def _request(self, messages: list[Message], options: ChatOptions) -> dict[str, Any]:
        instructions = [m.text for m in messages if m.role == "system" and m.text]
        extra_instructions = option_instructions(messages, options)
        if extra_instructions:
            instructions.append(extra_instructions)
        request: dict[str, Any] = {
            "model": options.get("model") or self.model,
            "input": [item for m in messages if m.role != "system" for item in _to_items(m)],
        }
        if instructions:
            request["instructions"] = "\n".join(instructions)
        for key in ("temperature", "top_p", "user", "metadata"):
            if options.get(key) is not None:
                request[key] = options.get(key)
        if options.get("max_tokens") is not None:
            request["max_output_tokens"] = options.get("max_tokens")
        request["store"] = bool(options.get("store", False))
        if options.get("conversation_id"):
            request["previous_response_id"] = options.get("conversation_id")
        functions, raw_tools = split_tools(options.get("tools"))
        tools = [
            {
                "type": "function",
                "name": f.name,
                "description": f.description,
                "parameters": f.parameters(),
                "strict": False,
            }
            for f in functions
        ] + raw_tools
        choice = tool_choice_parts(options.get("tool_choice"))
        if tools:
            request["tools"] = tools
            if choice is not None:
                mode, name = choice
                request["tool_choice"] = {"type": "function", "name": name} if name else mode
            if options.get("allow_multiple_tool_calls") is not None:
                request["parallel_tool_calls"] = options.get("allow_multiple_tool_calls")
        response_format = options.get("response_format")
        if response_format is not None:
            name, schema, strict = response_format_schema(response_format)
            request["text"] = {
                "format": {"type": "json_schema", "name": name, "schema": schema, "strict": strict}
            }
        request.update(options.get("additional_properties") or {})
        return request


def _to_items(message: Message) -> list[dict[str, Any]]:
    """One agentry message as Responses input items.

    Reasoning the service returned encrypted goes back first, so a model that reasons
    keeps its thread when the conversation is not stored on the service.
    """
    reasoning: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    output = message.role == "assistant"
    for content in message.contents:
        kind = content.type
        if kind == "text_reasoning" and output and content.protected_data and content.id:
            summary = [{"type": "summary_text", "text": content.text}] if content.text else []
            reasoning.append(
                {
                    "type": "reasoning",
                    "id": content.id,
                    "encrypted_content": content.protected_data,
                    "summary": summary,
                }
            )
        elif kind == "text":
            parts.append({"type": "output_text" if output else "input_text", "text": content.text})
        elif kind in ("data", "uri") and content.uri and not output:
            parts.append(_input_part(content))
        elif kind == "function_call":
            items.append(
                {
                    "type": "function_call",
                    "call_id": content.call_id,
                    "name": content.name,
                    "arguments": function_call_arguments(content),
                }
            )
        elif kind == "function_result":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": content.call_id,
                    "output": _function_output(content),
                }
            )
    if parts:
        items.insert(0, {"type": "message", "role": message.role, "content": parts})
    return [*reasoning, *items]


def _function_output(content: Content) -> str | list[dict[str, Any]]:
    """A function result as the model gets it: text, or parts when the tool returned
    media with its text (an MCP tool's image, say), which the Responses API passes on."""
    contents = tool_result_contents(content.result)
    if contents is None or not any(c.type in ("data", "uri") and c.uri for c in contents):
        return function_result_text(content)
    return [
        _input_part(c)
        if c.type in ("data", "uri") and c.uri
        else {"type": "input_text", "text": tool_result_to_text(c)}
        for c in contents
    ]


def _input_part(content: Content) -> dict[str, Any]:
    media_type = content.media_type or ""
    if media_type.startswith("image/") or (content.type == "uri" and not media_type):
        return {"type": "input_image", "image_url": content.uri, "detail": "auto"}
    if content.type == "data":
        filename = content.name or (content.additional_properties or {}).get("filename", "file")
        return {"type": "input_file", "file_data": content.uri, "filename": filename}
    return {"type": "input_file", "file_url": content.uri}


def _parse_response(response: Any, options: ChatOptions) -> ChatResponse:
    if response.status == "failed":
        error = getattr(response, "error", None)
        raise ChatClientError(
            f"the Responses API failed the response: {getattr(error, 'message', error)}"
        )
    contents: list[Content] = []
    for item in response.output:
        kind = item.type
        if kind == "message":
            for part in item.content:
                if part.type == "output_text":
                    contents.append(Content("text", text=part.text))
                elif part.type == "refusal":
                    contents.append(Content("error", message=part.refusal, error_code="refusal"))
        elif kind == "reasoning":
            contents.extend(_reasoning_contents(item))
        elif kind == "function_call":
            contents.append(
                Content(
                    "function_call",
                    call_id=item.call_id,
                    name=item.name,
                    arguments=item.arguments,
                    raw_representation=item,
                )
            )
    usage = response.usage
    return ChatResponse(
        messages=[Message("assistant", contents, message_id=response.id)] if contents else [],
        response_id=response.id,
        conversation_id=response.id if options.get("store") else None,
        model=response.model,
        created_at=iso_time(response.created_at),
        finish_reason=_finish_reason(response, contents),
        usage_details=usage_details(
            usage.input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            input_details=getattr(usage, "input_tokens_details", None),
            output_details=getattr(usage, "output_tokens_details", None),
        )
        if usage
        else None,
        response_format=options.get("response_format"),
        raw_representation=response,
    )


def _reasoning_contents(item: Any) -> list[Content]:
    texts = [s.text for s in getattr(item, "summary", None) or ()]
    texts += [c.text for c in getattr(item, "content", None) or () if getattr(c, "text", None)]
    encrypted = getattr(item, "encrypted_content", None)
    if not texts and not encrypted:
        return []
    return [Content("text_reasoning", text="\n".join(texts), protected_data=encrypted, id=item.id)]


def _finish_reason(response: Any, contents: list[Content]) -> str:
    if response.status == "incomplete":
        details = getattr(response, "incomplete_details", None)
        reason = getattr(details, "reason", None) or "length"
        return _INCOMPLETE_REASONS.get(reason, reason)
    if any(c.type == "function_call" for c in contents):
        return "tool_calls"
    return "stop"


@dataclass
class _StreamedCalls:
    """The function calls of one stream: ids and names by item id, and which calls had
    their arguments streamed."""

    by_item: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])
    arguments_seen: set[str] = field(default_factory=set[str])


def _parse_event(
    event: Any, calls: _StreamedCalls, options: ChatOptions
) -> ChatResponseUpdate | None:
    kind = event.type
    if kind == "response.output_text.delta":
        return ChatResponseUpdate(
            contents=[Content("text", text=event.delta)], role="assistant", raw_representation=event
        )
    if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
        return ChatResponseUpdate(
            contents=[Content("text_reasoning", text=event.delta, id=event.item_id)],
            role="assistant",
            raw_representation=event,
        )
    if kind == "response.reasoning_summary_part.added" and event.summary_index > 0:
        # Non-streamed summaries are joined by a newline; a stream must fold to the same.
        return ChatResponseUpdate(
            contents=[Content("text_reasoning", text="\n", id=event.item_id)],
            role="assistant",
            raw_representation=event,
        )
    if kind == "response.output_item.done" and event.item.type == "function_call":
        item = event.item
        if item.call_id in calls.arguments_seen or not item.arguments:
            return None
        # Some compatible servers send a call's arguments only with the finished item.
        return ChatResponseUpdate(
            contents=[Content("function_call", call_id=item.call_id, arguments=item.arguments)],
            role="assistant",
            raw_representation=event,
        )
    if kind == "response.output_item.done" and event.item.type == "reasoning":
        encrypted = getattr(event.item, "encrypted_content", None)
        if encrypted:
            reasoning = Content(
                "text_reasoning", text="", protected_data=encrypted, id=event.item.id
            )
            return ChatResponseUpdate(
                contents=[reasoning], role="assistant", raw_representation=event
            )
    if kind == "response.output_item.added" and event.item.type == "function_call":
        item = event.item
        calls.by_item[item.id or item.call_id] = (item.call_id, item.name)
        if item.arguments:
            calls.arguments_seen.add(item.call_id)
        return ChatResponseUpdate(
            contents=[
                Content(
                    "function_call",
                    call_id=item.call_id,
                    name=item.name,
                    arguments=item.arguments or "",
                )
            ],
            role="assistant",
            raw_representation=event,
        )
    if kind == "response.function_call_arguments.delta":
        call_id, name = calls.by_item.get(event.item_id, (event.item_id, None))
        calls.arguments_seen.add(call_id)
        return ChatResponseUpdate(
            contents=[Content("function_call", call_id=call_id, name=name, arguments=event.delta)],
            role="assistant",
            raw_representation=event,
        )
    if kind in ("response.completed", "response.incomplete"):
        final = _parse_response(event.response, options)
        contents: list[Content] = []
        if final.usage_details:
            contents.append(Content("usage", usage_details=final.usage_details))
        return ChatResponseUpdate(
            contents=contents,
            role="assistant",
            response_id=final.response_id,
            conversation_id=final.conversation_id,
            model=final.model,
            created_at=final.created_at,
            finish_reason=final.finish_reason,
            raw_representation=event,
        )
    if kind == "response.failed":
        error = getattr(event.response, "error", None)
        raise ChatClientError(
            f"the Responses API failed the response: {getattr(error, 'message', error)}"
        )
    if kind == "error":
        raise ChatClientError(f"the Responses API reported an error: {event.message}")
    return None
