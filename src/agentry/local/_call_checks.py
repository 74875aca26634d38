"""Checks of a decided tool call against the conversation, before it leaves the client.

A small model repeats a call whose result it already has, and fills in a required argument the
user never gave ("What's the weather like?" looked up for London, or the example code of an
argument's description: "Convert 100 dollars." to "EUR"). The client refuses both: a
repeated call becomes an answer from the results at hand, and a made-up argument becomes a
question to the user.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Sequence
from typing import cast

from agentry.local._decision import ToolCall, ToolSpec
from agentry.local._facts import TextFacts
from agentry.local._question_checks import AskedArgument, address_form
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
    texts = list(_grounding_texts(messages))
    facts = TextFacts(texts)
    for name in spec.required:
        if name not in call.arguments:
            continue
        value = call.arguments[name]
        if not facts.holds(value):
            return name
        form = address_form(AskedArgument(spec, name))
        if form is not None and not (isinstance(value, str) and form.fullmatch(value.strip())):
            return name  # a name where an email address or a link belongs
        if value in _examples(spec.properties.get(name)) and not _abbreviates(value, texts):
            return name
    return None


_EXAMPLE = re.compile(r"(?:e\.g\.|for example|such as)[,:]?\s*['\"]?([\w-]+)", re.IGNORECASE)


def _examples(schema: object) -> set[object]:
    """The example values an argument's schema gives: in its description ("e.g. 'EUR'") or
    its `examples`. A small model copies them when the user gave no value."""
    if not isinstance(schema, dict):
        return set()
    fields = cast("dict[str, object]", schema)
    found: set[object] = set(_EXAMPLE.findall(str(fields.get("description") or "")))
    listed = fields.get("examples")
    if isinstance(listed, list):
        found |= {item for item in cast("list[object]", listed) if isinstance(item, str)}
    return found


def _abbreviates(value: object, texts: Sequence[str]) -> bool:
    """Whether `value` is in `texts`, or spelled by the starts of consecutive words there
    ("EUR" from "euros", "USD" from "US dollars")."""
    code = str(value).lower()
    words = [word.lower() for text in texts for word in re.findall(r"\w+", text)]
    if code in words:
        return True
    return any(_spells(code, words, start) for start in range(len(words)))


def _spells(code: str, words: Sequence[str], start: int) -> bool:
    """Whether the starts of `words[start]`, `words[start + 1]`, ... spell `code`."""
    if not code:
        return True
    if start >= len(words):
        return False
    first = words[start]
    return any(
        _spells(code[length:], words, start + 1)
        for length in range(min(len(code), len(first)), 0, -1)
        if first.startswith(code[:length])
    )


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
