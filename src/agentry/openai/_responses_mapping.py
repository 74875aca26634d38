"""agentry messages and options as Responses API requests, and responses back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseIncompleteEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseReasoningSummaryPartAddedEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseRefusalDeltaEvent,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
    ResponseUsage,
)

from agentry.errors import ChatClientError
from agentry.openai._messages import (
    SKIPPED_CONTENT_TYPES,
    file_name,
    function_result_text,
    iso_time,
    json_schema_format,
    missing_instructions,
    tool_choice_of,
    tool_specs,
    usage_details,
)
from agentry.types import ChatOptions, ChatResponseUpdate, Content, Message, UsageDetails

__all__ = [
    "EventReader",
    "conversation_id_of",
    "finish_reason_of",
    "request_params",
    "response_contents",
    "usage_of",
]

_API = "Responses"
_SAME_NAME_OPTIONS = ("temperature", "top_p", "user", "metadata", "store")
_REASONING_PART_SEPARATOR = "\n\n"
_REASONING_DELTAS = (ResponseReasoningSummaryTextDeltaEvent, ResponseReasoningTextDeltaEvent)


def request_params(messages: Sequence[Message], options: ChatOptions) -> dict[str, Any]:
    """The Responses request body for `messages` and `options` (without model)."""
    items: list[dict[str, Any]] = []
    for message in messages:
        items.extend(_input_items(message))
    params: dict[str, Any] = {"input": items}
    instructions = missing_instructions(messages, options)
    if instructions:
        params["instructions"] = instructions
    given = cast("dict[str, Any]", options)
    for key in _SAME_NAME_OPTIONS:
        if key in given:
            params[key] = given[key]
    if "max_tokens" in options:
        params["max_output_tokens"] = options["max_tokens"]
    if options.get("conversation_id"):
        params["previous_response_id"] = options.get("conversation_id")
    tools = tool_specs(options)
    if tools:
        params["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in tools
        ]
        if "allow_multiple_tool_calls" in options:
            params["parallel_tool_calls"] = options["allow_multiple_tool_calls"]
    choice = tool_choice_of(options)
    if choice is not None and (tools or choice[0] == "none"):
        mode, name = choice
        forced = mode == "required" and name
        params["tool_choice"] = {"type": "function", "name": name} if forced else mode
    schema_format = json_schema_format(options.get("response_format"))
    if schema_format is not None:
        params["text"] = {
            "format": {
                "type": "json_schema",
                "name": schema_format.name,
                "schema": schema_format.schema,
                "strict": schema_format.strict,
            }
        }
    params.update(options.get("additional_properties") or {})
    return params


def _input_items(message: Message) -> list[dict[str, Any]]:
    """One agentry message as Responses input items, in content order."""
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []

    def flush() -> None:
        if parts:
            items.append(_message_item(message, list(parts)))
            parts.clear()

    for content in message.contents:
        kind = content.type
        if kind in SKIPPED_CONTENT_TYPES or kind == "text_reasoning":
            continue
        if kind == "function_call":
            flush()
            arguments = content.arguments
            items.append(
                {
                    "type": "function_call",
                    "call_id": content.call_id,
                    "name": content.name,
                    "arguments": arguments
                    if isinstance(arguments, str)
                    else json.dumps(dict(arguments or {})),
                }
            )
        elif kind == "function_result":
            flush()
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": content.call_id,
                    "output": function_result_text(content),
                }
            )
        elif kind == "text":
            parts.append({"type": "input_text", "text": content.text or ""})
        else:
            parts.append(_media_part(content))
    flush()
    return items


def _message_item(message: Message, parts: list[dict[str, Any]]) -> dict[str, Any]:
    role = "assistant" if message.role == "tool" else message.role
    if role == "assistant":
        if any(p["type"] != "input_text" for p in parts):
            raise ChatClientError("the Responses API takes no images or files in assistant turns")
        return {"role": "assistant", "content": "".join(p["text"] for p in parts)}
    return {"role": role, "content": parts}


def _media_part(content: Content) -> dict[str, Any]:
    media_type = content.media_type or ""
    if media_type.startswith("image/") or (content.type == "uri" and not media_type):
        return {"type": "input_image", "image_url": content.uri, "detail": "auto"}
    if content.type == "data":
        return {"type": "input_file", "file_data": content.uri, "filename": file_name(content)}
    return {"type": "input_file", "file_url": content.uri}


def usage_of(usage: ResponseUsage) -> UsageDetails:
    """Responses usage as :class:`UsageDetails`."""
    output_details = cast("Any", usage.output_tokens_details)
    input_details = cast("Any", usage.input_tokens_details)
    return usage_details(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        reasoning_tokens=getattr(output_details, "reasoning_tokens", None),
        cached_input_tokens=getattr(input_details, "cached_tokens", None),
    )


def response_contents(response: Response) -> list[Content]:
    """The contents of a response's output items, in order."""
    contents: list[Content] = []
    for item in response.output:
        if item.type == "message":
            for part in item.content:
                if part.type == "output_text":
                    contents.append(Content.from_text(part.text))
                else:
                    contents.append(
                        Content.from_text(part.refusal, additional_properties={"refusal": True})
                    )
        elif item.type == "reasoning":
            texts = [s.text for s in item.summary] + [c.text for c in item.content or ()]
            if texts:
                contents.append(Content.from_text_reasoning(_REASONING_PART_SEPARATOR.join(texts)))
        elif item.type == "function_call":
            contents.append(
                Content.from_function_call(
                    call_id=item.call_id, name=item.name, arguments=item.arguments
                )
            )
    return contents


def check_status(response: Response) -> None:
    """Raise when the service reports that the response failed.

    Raises:
        ChatClientError: The response failed; the provider's message is kept.
    """
    if response.status == "failed" or response.error is not None:
        error = response.error
        detail = f"{error.code}: {error.message}" if error else "no details given"
        raise ChatClientError(f"the {_API} API could not produce a response ({detail})")


def finish_reason_of(response: Response) -> str | None:
    """Why the model stopped: tool calls, the token limit, a content filter, or done."""
    if response.status == "incomplete":
        reason = response.incomplete_details.reason if response.incomplete_details else None
        return "length" if reason == "max_output_tokens" else reason or "incomplete"
    if response.status not in (None, "completed"):
        return None
    if any(item.type == "function_call" for item in response.output):
        return "tool_calls"
    return "stop"


def conversation_id_of(response: Response, options: ChatOptions) -> str | None:
    """The response id when the service keeps the conversation (`store` on), else None.

    Without a `store` option, the response's own `store` field decides (OpenAI sends it;
    servers that leave it out keep nothing).
    """
    stored = options.get("store", (response.model_extra or {}).get("store") is True)
    return response.id if stored else None


class EventReader:
    """Turns streamed Responses events into updates, keeping tool calls apart."""

    def __init__(self, options: ChatOptions) -> None:
        self._options = options
        self._response_id: str | None = None
        self._model: str | None = None
        self._call_ids: dict[str, str] = {}
        self._streamed_arguments: set[str] = set()

    def update(self, event: ResponseStreamEvent) -> ChatResponseUpdate | None:
        """The update one event carries, or None for events with nothing to say.

        Raises:
            ChatClientError: The service reported an error or a failed response.
        """
        if isinstance(event, ResponseCreatedEvent):
            self._response_id = event.response.id
            self._model = event.response.model
            return self._update([], created_at=iso_time(event.response.created_at))
        if isinstance(event, ResponseTextDeltaEvent):
            return self._update([Content.from_text(event.delta)])
        if isinstance(event, ResponseRefusalDeltaEvent):
            refusal = Content.from_text(event.delta, additional_properties={"refusal": True})
            return self._update([refusal])
        if isinstance(
            event, (ResponseReasoningSummaryTextDeltaEvent, ResponseReasoningTextDeltaEvent)
        ):
            return self._update([Content.from_text_reasoning(event.delta)])
        if isinstance(event, ResponseReasoningSummaryPartAddedEvent) and event.summary_index > 0:
            return self._update([Content.from_text_reasoning(_REASONING_PART_SEPARATOR)])
        if isinstance(event, ResponseOutputItemAddedEvent) and event.item.type == "function_call":
            item = event.item
            self._call_ids[item.id or item.call_id] = item.call_id
            if item.arguments:
                self._streamed_arguments.add(item.call_id)
            call = Content.from_function_call(
                call_id=item.call_id, name=item.name, arguments=item.arguments
            )
            return self._update([call])
        if isinstance(event, ResponseFunctionCallArgumentsDeltaEvent):
            call_id = self._call_ids.get(event.item_id, event.item_id)
            self._streamed_arguments.add(call_id)
            piece = Content.from_function_call(call_id=call_id, name="", arguments=event.delta)
            return self._update([piece])
        if isinstance(event, ResponseOutputItemDoneEvent) and event.item.type == "function_call":
            item = event.item
            if item.call_id in self._streamed_arguments:
                return None
            whole = Content.from_function_call(
                call_id=item.call_id, name="", arguments=item.arguments
            )
            return self._update([whole])
        if isinstance(event, (ResponseCompletedEvent, ResponseIncompleteEvent)):
            response = event.response
            usage = [Content.from_usage(usage_of(response.usage))] if response.usage else []
            return self._update(
                usage,
                finish_reason=finish_reason_of(response),
                conversation_id=conversation_id_of(response, self._options),
            )
        if isinstance(event, ResponseFailedEvent):
            check_status(event.response)
        if isinstance(event, ResponseErrorEvent):
            raise ChatClientError(
                f"the {_API} API reported an error while streaming "
                f"({event.code or 'no code'}: {event.message})"
            )
        return None

    def _update(
        self,
        contents: list[Content],
        *,
        finish_reason: str | None = None,
        conversation_id: str | None = None,
        created_at: str | None = None,
    ) -> ChatResponseUpdate:
        return ChatResponseUpdate(
            contents=contents,
            role="assistant",
            message_id=self._response_id,
            response_id=self._response_id,
            conversation_id=conversation_id,
            model=self._model,
            finish_reason=finish_reason,
            created_at=created_at,
        )
