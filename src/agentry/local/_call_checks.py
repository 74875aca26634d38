"""Checks of a decided tool call against the conversation, before it leaves the client.

A small model repeats a call whose result it already has, and fills in a required argument the
user never gave ("What's the weather like?" looked up for London). The client refuses both: a
repeated call becomes an answer from the results at hand, and a made-up argument becomes a
question to the user.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Sequence

from agentry.local._decision import ToolCall, ToolSpec
from agentry.local._facts import TextFacts
from agentry.tools import tool_result_to_text
from agentry.types import Message

__all__ = ["CallVerdict", "check_call", "repeats_request", "ungrounded_argument"]


_ECHO_SHARE = 0.8


class CallVerdict(enum.Enum):
    """What becomes of a decided call."""

    ALLOWED = "allowed"
    REPEATED = "repeated"
    """The same tool was called with the same arguments since the user last spoke."""
    UNGROUNDED = "ungrounded"
    """A required argument holds a value that appears nowhere in the user's words or results."""


def check_call(
    call: ToolCall, tools: Sequence[ToolSpec], messages: Sequence[Message]
) -> CallVerdict:
    """Whether `call` may go out, given the conversation `messages` it continues."""
    if _key(call.name, call.arguments) in _calls_since_user(messages):
        return CallVerdict.REPEATED
    if ungrounded_argument(call, tools, messages) is not None:
        return CallVerdict.UNGROUNDED
    return CallVerdict.ALLOWED


def ungrounded_argument(
    call: ToolCall, tools: Sequence[ToolSpec], messages: Sequence[Message]
) -> str | None:
    """The first required argument of `call` whose value the conversation does not hold."""
    spec = next((spec for spec in tools if spec.name == call.name), None)
    if spec is None:
        return None
    facts = TextFacts(_grounding_texts(messages))
    for name in spec.required:
        if name in call.arguments and not facts.holds(call.arguments[name]):
            return name
    return None


def _key(name: str, arguments: object) -> str:
    return name + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def _calls_since_user(messages: Sequence[Message]) -> set[str]:
    keys: set[str] = set()
    for message in reversed(messages):
        if message.role == "user":
            break
        for content in message.contents:
            if content.type == "function_call":
                try:
                    arguments: object = content.parse_arguments()
                except ValueError:
                    continue
                keys.add(_key(content.name or "", arguments))
    return keys


def _grounding_texts(messages: Sequence[Message]) -> Iterable[str]:
    """What the user said and what tools returned: where an argument's value may come from."""
    for message in messages:
        for content in message.contents:
            if content.type == "text" and message.role == "user" and content.text:
                yield content.text
            elif content.type == "function_result":
                yield tool_result_to_text(content.result)


def repeats_request(reply: str, messages: Sequence[Message], *, share: float = _ECHO_SHARE) -> bool:
    """Whether `reply` only says the user's last message back: at least `share` of its words
    (nearly all, by default; all of them for an answer) are the request's."""
    request = next((m.text for m in reversed(messages) if m.role == "user"), "")
    replied, said = _words(reply), _words(request)
    if not replied or not said:
        return False
    return len(replied & said) / len(replied) >= share


def _words(text: str) -> set[str]:
    return {word.lower() for word in re.findall(r"\w+", text)}
