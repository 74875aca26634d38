"""Agent responses as Chat Completions answers: a completion, or a stream of chunks."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_chunk import Choice as ChunkChoice
from openai.types.chat.chat_completion_chunk import ChoiceDelta

from agentry.types import AgentResponse, AgentResponseUpdate, UsageDetails

__all__ = ["Completion", "TextStream"]

_FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "function_call"]


@dataclass(frozen=True)
class Completion:
    """The identity of one answer: its id, creation time and the model name it reports."""

    model: str
    id: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")
    created: int = field(default_factory=lambda: int(time.time()))

    def of(self, response: AgentResponse[Any], *, structured: bool) -> dict[str, Any]:
        """The `chat.completion` object answering with `response`."""
        message = ChatCompletionMessage(role="assistant", content=answer_text(response, structured))
        choice = Choice(
            index=0,
            message=message,
            finish_reason=finish_reason(response.finish_reason),
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
        finish: str | None = None,
    ) -> dict[str, Any]:
        """A `chat.completion.chunk` carrying a delta of the one choice."""
        delta = ChoiceDelta(role=role, content=content) if role else ChoiceDelta(content=content)
        choice = ChunkChoice(
            index=0, delta=delta, finish_reason=finish_reason(finish) if finish else None
        )
        return self._chunk([choice]).model_dump(mode="json", exclude_unset=True)

    def usage_chunk(self, usage_details: UsageDetails | None) -> dict[str, Any]:
        """The last chunk of a stream asked to include usage: no choices, the usage."""
        chunk = self._chunk([])
        chunk.usage = usage(usage_details) or CompletionUsage(
            prompt_tokens=0, completion_tokens=0, total_tokens=0
        )
        return chunk.model_dump(mode="json", exclude_unset=True)

    def _chunk(self, choices: list[ChunkChoice]) -> ChatCompletionChunk:
        return ChatCompletionChunk(
            id=self.id,
            object="chat.completion.chunk",
            created=self.created,
            model=self.model,
            choices=choices,
        )


class TextStream:
    """The answer's text from a run's updates, as the response joins it: the text of each
    message in turn, a new line between two messages that have text."""

    __slots__ = ("_in_message", "_message", "_role", "_written")

    def __init__(self) -> None:
        self._role: str | None = None
        self._message: str | None = None
        self._written = False  # whether any text was given out
        self._in_message = False  # whether the current message has text

    def text_of(self, update: AgentResponseUpdate) -> str:
        """The text `update` adds to the answer ("" for none)."""
        role, message_id = update.role, update.message_id
        if (role is not None and role != self._role) or (
            message_id is not None and message_id != self._message
        ):
            self._role, self._message = role or self._role, message_id
            self._in_message = False
        text = update.text
        if not text:
            return ""
        separator = "\n" if self._written and not self._in_message else ""
        self._written = self._in_message = True
        return separator + text


def answer_text(response: AgentResponse[Any], structured: bool) -> str:
    """The completion's content: the validated value as JSON for a structured answer, else
    the text of the response."""
    if structured:
        return json.dumps(response.value, ensure_ascii=False)
    return response.text


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
