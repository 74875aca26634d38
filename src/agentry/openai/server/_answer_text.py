"""The text of an agent's answer, whole or as its updates come: the same either way."""

from __future__ import annotations

import json
from typing import Any

from agentry.types import AgentResponse, AgentResponseUpdate

__all__ = ["TextStream", "answer_text"]


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
