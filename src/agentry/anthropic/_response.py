"""Messages API answers in agentry's terms: contents, finish reasons and usage."""

from __future__ import annotations

import json
from typing import Any, cast

from agentry.anthropic._messages import THINKING_BLOCK_KEY
from agentry.types import ChatOptions, ChatResponse, Content, Message, UsageDetails

__all__ = [
    "block_contents",
    "finish_reason",
    "output_text",
    "parse_message",
    "reasoning_content",
    "usage_details",
]

_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def parse_message(message: Any, options: ChatOptions, output_tool: str | None) -> ChatResponse:
    """A `ChatResponse` for an `anthropic.types.Message`."""
    contents: list[Content] = []
    for block in message.content:
        for content in block_contents(block, output_tool):
            if contents and contents[-1].type == content.type == "text":
                contents[-1] = contents[-1].merge(content)  # as a stream folds them
            else:
                contents.append(content)
    calls = any(c.type == "function_call" for c in contents)
    return ChatResponse(
        messages=[Message("assistant", contents, message_id=message.id)] if contents else [],
        response_id=message.id,
        model=message.model,
        finish_reason=finish_reason(message.stop_reason, calls=calls),
        usage_details=usage_details(message.usage),
        response_format=options.get("response_format"),
        raw_representation=message,
    )


def block_contents(block: Any, output_tool: str | None) -> list[Content]:
    """The contents of one finished content block."""
    kind = block.type
    if kind == "text":
        return [Content("text", text=block.text, raw_representation=block)] if block.text else []
    if kind == "thinking":
        return [reasoning_content("thinking", text=block.thinking, data=block.signature or None)]
    if kind == "redacted_thinking":
        return [reasoning_content("redacted_thinking", text="", data=block.data)]
    if kind == "tool_use":
        arguments = cast(dict[str, Any], block.input or {})
        if block.name == output_tool:
            return [Content("text", text=output_text(arguments), raw_representation=block)]
        return [
            Content(
                "function_call",
                call_id=block.id,
                name=block.name,
                arguments=arguments,
                raw_representation=block,
            )
        ]
    return []  # server tools' own blocks (web search results...) stay in raw_representation


def reasoning_content(kind: str, *, text: str, data: str | None) -> Content:
    """Reasoning from a thinking block, marked so that it goes back to the API as it came."""
    return Content(
        "text_reasoning",
        text=text,
        protected_data=data,
        additional_properties={THINKING_BLOCK_KEY: kind},
    )


def output_text(arguments: dict[str, Any]) -> str:
    """The structured answer given as a tool call's arguments, as JSON text."""
    return json.dumps(arguments, ensure_ascii=False)


def finish_reason(stop_reason: str | None, *, calls: bool) -> str | None:
    """agentry's finish reason for a stop reason; a forced structured-output call (no
    function call left) finishes the answer."""
    if stop_reason is None:
        return None
    if stop_reason == "tool_use" and not calls:
        return "stop"
    return _FINISH_REASONS.get(stop_reason, stop_reason)


def usage_details(usage: Any) -> UsageDetails | None:
    """agentry's usage for the API's usage (or the fields of one, in a stream).

    `input_token_count` counts every prompt token, cached or not, as other providers do;
    `cached_input_token_count` and `cache_creation_input_token_count` say how many were
    read from and written to the prompt cache.
    """
    if usage is None:
        return None
    fresh = _count(usage, "input_tokens")
    read = _count(usage, "cache_read_input_tokens")
    written = _count(usage, "cache_creation_input_tokens")
    output = _count(usage, "output_tokens")
    prompt = (fresh or 0) + (read or 0) + (written or 0)
    details = UsageDetails(
        input_token_count=prompt,
        output_token_count=output or 0,
        total_token_count=prompt + (output or 0),
    )
    extra = cast(dict[str, Any], details)
    if read is not None:
        extra["cached_input_token_count"] = read
    if written is not None:
        extra["cache_creation_input_token_count"] = written
    thinking = _count(_field(usage, "output_tokens_details"), "thinking_tokens")
    if thinking is not None:
        extra["reasoning_token_count"] = thinking
    return details


def _field(source: Any, name: str) -> Any:
    if isinstance(source, dict):
        return cast(dict[str, Any], source).get(name)
    return getattr(source, name, None)


def _count(source: Any, name: str) -> int | None:
    value = _field(source, name)
    return value if isinstance(value, int) else None
