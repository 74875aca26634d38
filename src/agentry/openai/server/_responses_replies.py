"""Agent responses as Responses API objects and stream events."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from agentry.clients.wire_format import function_call_arguments
from agentry.openai.server._responses_requests import ResponseRequest
from agentry.types import Content, UsageDetails

__all__ = ["ResponseDraft", "call_item_id"]


@dataclass
class ResponseDraft:
    """One response being made: its ids, what the request asked, the events so far.

    Attributes:
        request: The request it answers.
        id: The response's id.
        message_id: The id of its one output message.
        created_at: When it was made (Unix seconds).
        sequence: The number of the next stream event.
    """

    request: ResponseRequest
    id: str = field(default_factory=lambda: f"resp_{uuid.uuid4().hex}")
    message_id: str = field(default_factory=lambda: f"msg_{uuid.uuid4().hex}")
    created_at: int = field(default_factory=lambda: int(time.time()))
    sequence: int = 0

    def body(
        self,
        *,
        status: str,
        text: str | None = None,
        finish_reason: str | None = None,
        usage: UsageDetails | None = None,
        error: dict[str, str] | None = None,
        calls: list[Content] | None = None,
    ) -> dict[str, Any]:
        """The `response` object: in progress (no text yet), or done with `text` and the
        `calls` of the caller's tools."""
        request = self.request
        incomplete = _incomplete_reason(finish_reason) if text is not None else None
        if incomplete is not None:
            status = "incomplete"
        body: dict[str, Any] = {
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "model": request.model,
            "status": status,
            "output": []
            if text is None
            else [
                self.message(text, "completed"),
                *(self.call(c, "completed") for c in calls or ()),
            ],
            "instructions": request.instructions,
            "previous_response_id": request.previous_response_id,
            "metadata": request.metadata or {},
            "store": request.store,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_output_tokens": request.max_output_tokens,
            "text": (request.text.model_dump(by_alias=True) if request.text else None)
            or {"format": {"type": "text"}},
            "user": request.user,
            "parallel_tool_calls": request.parallel_tool_calls is not False,
            "tool_choice": request.tool_choice.model_dump()
            if isinstance(request.tool_choice, BaseModel)
            else request.tool_choice or "auto",
            "tools": [t.model_dump(exclude_none=True) for t in request.tools or ()],
            "error": error,
            "incomplete_details": {"reason": incomplete} if incomplete else None,
            "usage": _usage(usage),
        }
        return body

    def message(self, text: str, status: str) -> dict[str, Any]:
        """The output message item holding `text` (no part while in progress)."""
        content = [self.part(text)] if status == "completed" else []
        return {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "status": status,
            "content": content,
        }

    def call(self, call: Content, status: str) -> dict[str, Any]:
        """The `function_call` output item of a call of the caller's tool (no arguments
        while in progress)."""
        return {
            "id": call_item_id(call),
            "type": "function_call",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": function_call_arguments(call) if status == "completed" else "",
            "status": status,
        }

    def part(self, text: str) -> dict[str, Any]:
        """The `output_text` part holding `text`."""
        return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}

    def event(self, kind: str, **fields: Any) -> str:
        """The server-sent event `kind` with `fields`, numbered in order."""
        data = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

    def text_event(self, kind: str, **fields: Any) -> str:
        """An event about the output message's one text part."""
        where = {"item_id": self.message_id, "output_index": 0, "content_index": 0}
        return self.event(kind, **where, **fields)


def call_item_id(call: Content) -> str:
    """The output item id of a call: the same in the stream and in the response."""
    return f"fc_{call.call_id}"


def _incomplete_reason(finish_reason: str | None) -> str | None:
    if finish_reason == "length":
        return "max_output_tokens"
    return "content_filter" if finish_reason == "content_filter" else None


def _usage(details: UsageDetails | None) -> dict[str, Any] | None:
    if not details:
        return None
    counts: dict[str, Any] = dict(details)
    prompt = counts.get("input_token_count") or 0
    completion = counts.get("output_token_count") or 0
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": counts.get("total_token_count") or prompt + completion,
        "input_tokens_details": {
            "cached_tokens": counts.get("cached_input_token_count") or 0,
            "cache_write_tokens": counts.get("cache_write_token_count") or 0,
        },
        "output_tokens_details": {"reasoning_tokens": counts.get("reasoning_token_count") or 0},
    }
