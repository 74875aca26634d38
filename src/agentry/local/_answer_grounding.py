"""Answers that leave out the result they were given.

A small model asked "Is it raining in Tokyo?" may answer "No, it is not raining." with the
result "Tokyo: sunny, 22 °C" in front of it, or even contradict it. An answer that states
none of what the last result adds to the request gets that result restated after it, so the
user always sees what the tool returned.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agentry.local._facts import TextFacts
from agentry.tools import tool_result_to_text
from agentry.types import Message

__all__ = ["unstated_result"]


def unstated_result(answer: str, messages: Sequence[Message]) -> str | None:
    """The last tool result since the user spoke, if `answer` states none of its own facts.

    A result's own facts are its numbers and words that the request and the calls' arguments
    do not already hold ("sunny" and 22 for a weather request about Tokyo). A failed call's
    result is never restated.
    """
    result: str | None = None
    said: list[str] = []
    for message in reversed(messages):
        if message.role == "user":
            said.append(message.text)
            break
        for content in message.contents:
            if content.type == "function_result" and result is None:
                if content.exception is not None:
                    return None
                result = tool_result_to_text(content.result)
            elif content.type == "function_call":
                said.append(_arguments_text(content.arguments))
    if result is None:
        return None
    own = TextFacts([result]).without(TextFacts(said))
    if not own or own.shares_any(TextFacts([answer])):
        return None
    return result


def _arguments_text(arguments: object) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)
