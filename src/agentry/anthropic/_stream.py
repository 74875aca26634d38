"""Streamed Messages API events as agentry updates that fold into the plain answer.

Text and thinking stream as they come. A tool call is sent whole when its block ends,
with the same arguments the plain answer has: a stream of one message folds into the
response the same request gets without streaming.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

from agentry.anthropic._response import (
    block_contents,
    finish_reason,
    output_text,
    reasoning_content,
    usage_details,
)
from agentry.types import ChatResponseUpdate, Content

__all__ = ["StreamReader"]

_PROMPT_USAGE = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


@dataclass
class _ToolUse:
    call_id: str
    name: str
    start_input: dict[str, Any]
    json_parts: list[str] = field(default_factory=list[str])

    def arguments(self) -> Any:
        if not self.json_parts:
            return self.start_input
        text = "".join(self.json_parts)
        try:
            return json.loads(text) if text.strip() else {}
        except json.JSONDecodeError:
            return text  # the agent reports the malformed arguments to the model


class StreamReader:
    """Reads the events of one streamed message, in order, into updates."""

    def __init__(self, output_tool: str | None) -> None:
        self.output_tool = output_tool
        self.message_id: str | None = None
        self.model: str | None = None
        self._start_usage: Any = None
        self._tool_uses: dict[int, _ToolUse] = {}
        self._calls = False

    def read(self, event: Any) -> ChatResponseUpdate | None:
        """The update for one event, or None when it adds nothing yet."""
        kind = event.type
        if kind == "message_start":
            message = event.message
            self.message_id, self.model = message.id, message.model
            self._start_usage = message.usage
            return self._update([], event)
        if kind == "message_delta":
            return self._finish(event)
        contents: list[Content] = []
        if kind == "content_block_start":
            contents = self._start(event.index, event.content_block)
        elif kind == "content_block_delta":
            contents = self._delta(event.index, event.delta)
        elif kind == "content_block_stop":
            contents = self._stop(event.index)
        return self._update(contents, event) if contents else None

    def _start(self, index: int, block: Any) -> list[Content]:
        if block.type == "tool_use":
            start_input = dict(getattr(block, "input", None) or {})
            self._tool_uses[index] = _ToolUse(block.id, block.name, start_input)
            return []
        if block.type == "thinking":
            signature = getattr(block, "signature", None) or None
            return [reasoning_content("thinking", text=block.thinking or "", data=signature)]
        return block_contents(block, self.output_tool)

    def _delta(self, index: int, delta: Any) -> list[Content]:
        kind = delta.type
        if kind == "text_delta" and delta.text:
            return [Content("text", text=delta.text)]
        if kind == "thinking_delta" and delta.thinking:
            return [Content("text_reasoning", text=delta.thinking)]
        if kind == "signature_delta" and delta.signature:
            return [Content("text_reasoning", text="", protected_data=delta.signature)]
        if kind == "input_json_delta" and index in self._tool_uses:
            self._tool_uses[index].json_parts.append(delta.partial_json or "")
        return []

    def _stop(self, index: int) -> list[Content]:
        call = self._tool_uses.pop(index, None)
        if call is None:
            return []
        arguments = call.arguments()
        if call.name == self.output_tool and isinstance(arguments, dict):
            return [Content("text", text=output_text(cast(dict[str, Any], arguments)))]
        self._calls = True
        return [Content("function_call", call_id=call.call_id, name=call.name, arguments=arguments)]

    def _finish(self, event: Any) -> ChatResponseUpdate:
        usage: dict[str, Any] = {}
        for name in _PROMPT_USAGE:
            value = getattr(event.usage, name, None)
            usage[name] = value if value is not None else getattr(self._start_usage, name, None)
        usage["output_tokens"] = event.usage.output_tokens
        usage["output_tokens_details"] = getattr(event.usage, "output_tokens_details", None)
        details = usage_details(usage)
        update = self._update([Content("usage", usage_details=details)] if details else [], event)
        update.finish_reason = finish_reason(event.delta.stop_reason, calls=self._calls)
        return update

    def _update(self, contents: list[Content], event: Any) -> ChatResponseUpdate:
        return ChatResponseUpdate(
            contents=contents,
            role="assistant",
            message_id=self.message_id,
            response_id=self.message_id,
            model=self.model,
            raw_representation=event,
        )
