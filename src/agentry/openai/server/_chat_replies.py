"""Agent responses as Chat Completions answers: a completion, or a stream of chunks."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice

from agentry.clients.wire_format import function_call_arguments
from agentry.openai.server._answer_text import answer_text
from agentry.types import AgentResponse, Content, UsageDetails

__all__ = ["Completion", "finish_reason", "usage"]

_FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "function_call"]


@dataclass(frozen=True)
class Completion:
    """The identity of one answer: its id, creation time and the model name it reports."""

    model: str
    id: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")
    created: int = field(default_factory=lambda: int(time.time()))

    def of(
        self, response: AgentResponse[Any], *, structured: bool, calls: list[Content]
    ) -> dict[str, Any]:
        """The `chat.completion` object answering with `response`, and with `calls` of the
        caller's tools."""
        text = answer_text(response, structured)
        message = ChatCompletionMessage.model_validate(
            {"role": "assistant", "content": text or None if calls else text}
            | ({"tool_calls": [_tool_call(call) for call in calls]} if calls else {})
        )
        choice = Choice(
            index=0,
            message=message,
            finish_reason="tool_calls" if calls else finish_reason(response.finish_reason),
            logprobs=None,
        )
        completion = ChatCompletion(
            id=self.id,
            object="chat.completion",
            created=self.created,
            model=self.model,
            choices=[choice],
            usage=usage(response.usage_details),
        )
        return completion.model_dump(mode="json", exclude_unset=True)

    def chunk(
        self,
        *,
        content: str | None = None,
        role: Literal["assistant"] | None = None,
        finish: _FinishReason | None = None,
    ) -> dict[str, Any]:
        """A `chat.completion.chunk` carrying a delta of the one choice."""
        delta: dict[str, Any] = {"role": role, "content": content} if role else {"content": content}
        return self._chunk([{"index": 0, "delta": delta, "finish_reason": finish}])

    def call_chunk(self, index: int, call: Content) -> dict[str, Any]:
        """A chunk carrying one whole call of a caller's tool."""
        delta = {"tool_calls": [{"index": index, **_tool_call(call)}]}
        return self._chunk([{"index": 0, "delta": delta, "finish_reason": None}])

    def usage_chunk(self, usage_details: UsageDetails | None) -> dict[str, Any]:
        """The last chunk of a stream asked to include usage: no choices, the usage."""
        counts = usage(usage_details) or CompletionUsage(
            prompt_tokens=0, completion_tokens=0, total_tokens=0
        )
        return {**self._chunk([]), "usage": counts.model_dump(mode="json", exclude_unset=True)}

    def _chunk(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        # plain dicts, not the SDK's models: a stream makes one per piece of text
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
        }


def _tool_call(call: Content) -> dict[str, Any]:
    return {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": function_call_arguments(call)},
    }


def finish_reason(reason: str | None) -> _FinishReason:
    """OpenAI's finish reason for an agentry one (the agent ran its tools, so it stopped)."""
    return (
        "length"
        if reason == "length"
        else "content_filter"
        if reason == "content_filter"
        else "stop"
    )


def usage(details: UsageDetails | None) -> CompletionUsage | None:
    """Token counts in OpenAI's words; None when the model reported none."""
    if not details:
        return None
    prompt = details.get("input_token_count") or 0
    completion = details.get("output_token_count") or 0
    total = details.get("total_token_count") or prompt + completion
    return CompletionUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)
