"""agentry messages and options as Chat Completions requests, and completions back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.completion_usage import CompletionUsage

from agentry.errors import ChatClientError
from agentry.openai._messages import (
    SKIPPED_CONTENT_TYPES,
    ToolSpec,
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

__all__ = ["ChunkReader", "completion_contents", "request_params", "usage_of"]

# Options sent under the same name.
_SAME_NAME_OPTIONS = (
    "temperature",
    "top_p",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "logit_bias",
    "user",
    "metadata",
    "store",
)

_FINISH_REASONS = {"function_call": "tool_calls"}


def request_params(messages: Sequence[Message], options: ChatOptions) -> dict[str, Any]:
    """The Chat Completions request body for `messages` and `options` (without model)."""
    wire: list[dict[str, Any]] = []
    instructions = missing_instructions(messages, options)
    if instructions:
        wire.append({"role": "system", "content": instructions})
    for message in messages:
        wire.extend(_wire_messages(message))
    params: dict[str, Any] = {"messages": wire}
    given = cast("dict[str, Any]", options)
    for key in _SAME_NAME_OPTIONS:
        if key in given:
            params[key] = given[key]
    if "max_tokens" in options:
        params["max_completion_tokens"] = options["max_tokens"]
    if "stop" in options:
        stop = options["stop"]
        params["stop"] = stop if isinstance(stop, str) else list(stop)
    tools = tool_specs(options)
    if tools:
        params["tools"] = [{"type": "function", "function": _function_definition(t)} for t in tools]
        if "allow_multiple_tool_calls" in options:
            params["parallel_tool_calls"] = options["allow_multiple_tool_calls"]
    choice = tool_choice_of(options)
    if choice is not None and (tools or choice[0] == "none"):
        mode, name = choice
        forced = mode == "required" and name
        params["tool_choice"] = {"type": "function", "function": {"name": name}} if forced else mode
    schema_format = json_schema_format(options.get("response_format"))
    if schema_format is not None:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": schema_format.name,
                "schema": schema_format.schema,
                "strict": schema_format.strict,
            },
        }
    params.update(options.get("additional_properties") or {})
    return params


def _function_definition(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def _wire_messages(message: Message) -> list[dict[str, Any]]:
    """One agentry message as Chat Completions messages (each tool result is its own)."""
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for content in message.contents:
        kind = content.type
        if kind in SKIPPED_CONTENT_TYPES or kind == "text_reasoning":
            continue
        if kind == "text":
            parts.append({"type": "text", "text": content.text or ""})
        elif kind == "function_call":
            arguments = content.arguments
            calls.append(
                {
                    "id": content.call_id,
                    "type": "function",
                    "function": {
                        "name": content.name,
                        "arguments": arguments
                        if isinstance(arguments, str)
                        else json.dumps(dict(arguments or {})),
                    },
                }
            )
        elif kind == "function_result":
            results.append(
                {
                    "role": "tool",
                    "tool_call_id": content.call_id,
                    "content": function_result_text(content),
                }
            )
        else:
            parts.append(_media_part(content))
    wire: list[dict[str, Any]] = []
    if parts or calls:
        wire.append(_message_with_parts(message, parts, calls))
    return [*wire, *results]


def _message_with_parts(
    message: Message, parts: list[dict[str, Any]], calls: list[dict[str, Any]]
) -> dict[str, Any]:
    role = "assistant" if message.role == "tool" else message.role
    texts_only = all(p["type"] == "text" for p in parts)
    content: Any
    if role in ("system", "assistant") or texts_only:
        if not texts_only:
            raise ChatClientError(
                f"Chat Completions takes images and files in user messages only, "
                f"not in a {message.role!r} message"
            )
        content = "".join(p["text"] for p in parts) if parts else None
    else:
        content = parts
    wire: dict[str, Any] = {"role": role, "content": content}
    if message.author_name and role in ("user", "assistant", "system"):
        wire["name"] = _safe_author(message.author_name)
    if calls:
        wire["tool_calls"] = calls
    return wire


def _safe_author(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:64]


def _media_part(content: Content) -> dict[str, Any]:
    media_type = content.media_type or ""
    if media_type.startswith("image/") or (content.type == "uri" and not media_type):
        return {"type": "image_url", "image_url": {"url": content.uri}}
    if content.type == "data":
        return {"type": "file", "file": {"file_data": content.uri, "filename": file_name(content)}}
    raise ChatClientError(
        f"Chat Completions cannot take a {media_type or 'file'} by URL ({content.uri}); "
        "send it as data (Content.from_data) or use OpenAIChatClient (Responses API)"
    )


def usage_of(usage: CompletionUsage) -> UsageDetails:
    """Chat Completions usage as :class:`UsageDetails`."""
    completion_details = usage.completion_tokens_details
    prompt_details = usage.prompt_tokens_details
    return usage_details(
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
        reasoning_tokens=completion_details.reasoning_tokens if completion_details else None,
        cached_input_tokens=prompt_details.cached_tokens if prompt_details else None,
    )


def _reasoning_text(extra: dict[str, Any] | None) -> str | None:
    """Reasoning that OpenAI-compatible servers return beside the answer."""
    for key in ("reasoning_content", "reasoning"):
        value = (extra or {}).get(key)
        if isinstance(value, str) and value:
            return value
    return None


def finish_reason_of(reason: str | None) -> str | None:
    """The agentry finish reason for a Chat Completions one."""
    return None if reason is None else _FINISH_REASONS.get(reason, reason)


def completion_contents(completion: ChatCompletion) -> tuple[list[Content], str | None]:
    """The contents and finish reason of a completion's first choice."""
    if not completion.choices:
        return [], None
    choice = completion.choices[0]
    message = choice.message
    contents: list[Content] = []
    reasoning = _reasoning_text(message.model_extra)
    if reasoning:
        contents.append(Content.from_text_reasoning(reasoning))
    if message.content:
        contents.append(Content.from_text(message.content))
    if message.refusal:
        contents.append(Content.from_text(message.refusal, additional_properties={"refusal": True}))
    for call in message.tool_calls or ():
        if call.type == "function":
            contents.append(
                Content.from_function_call(
                    call_id=call.id, name=call.function.name, arguments=call.function.arguments
                )
            )
    return contents, finish_reason_of(choice.finish_reason)


class ChunkReader:
    """Turns streamed completion chunks into updates, keeping streamed tool calls apart."""

    def __init__(self) -> None:
        self._call_ids: dict[int, str] = {}

    def update(self, chunk: ChatCompletionChunk) -> ChatResponseUpdate:
        """The update one chunk carries."""
        contents: list[Content] = []
        finish_reason: str | None = None
        for choice in chunk.choices[:1]:
            delta = choice.delta
            reasoning = _reasoning_text(delta.model_extra)
            if reasoning:
                contents.append(Content.from_text_reasoning(reasoning))
            if delta.content:
                contents.append(Content.from_text(delta.content))
            if delta.refusal:
                contents.append(
                    Content.from_text(delta.refusal, additional_properties={"refusal": True})
                )
            for call in delta.tool_calls or ():
                if call.id:
                    self._call_ids[call.index] = call.id
                function = call.function
                contents.append(
                    Content.from_function_call(
                        call_id=self._call_ids.get(call.index, ""),
                        name=(function.name if function else None) or "",
                        arguments=(function.arguments if function else None) or "",
                    )
                )
            finish_reason = finish_reason_of(choice.finish_reason)
        if chunk.usage is not None:
            contents.append(Content.from_usage(usage_of(chunk.usage)))
        return ChatResponseUpdate(
            contents=contents,
            role="assistant",
            message_id=chunk.id,
            response_id=chunk.id,
            model=chunk.model,
            finish_reason=finish_reason,
            created_at=iso_time(chunk.created),
            raw_representation=chunk,
        )
