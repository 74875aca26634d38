"""Context compaction: what of a long conversation is sent to the model.

A strategy shapes each model request of a session run; the stored history keeps every
message. Whole units are kept or dropped: a tool call goes with its results, so the model
never sees a result without its call or a call without its results. Leading system
messages (the instructions) are always kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Protocol, TypeAlias, runtime_checkable

from agentry.observability import get_logger
from agentry.types import Message

__all__ = [
    "CompactionStrategy",
    "SlidingWindowCompaction",
    "TokenBudgetCompaction",
    "TokenCounter",
    "estimate_tokens",
]

logger = get_logger("agentry.sessions")

TokenCounter: TypeAlias = Callable[[Message], int]
"""Counts the tokens of one message (an estimate is fine)."""

_MESSAGE_OVERHEAD = 4  # role and separators, as chat formats frame each message


@runtime_checkable
class CompactionStrategy(Protocol):
    """Shapes the messages of one model request to keep a conversation within bounds.

    `state` is the strategy's slot in the session state (JSON values, kept with the
    session), for what it wants to reuse on later requests, such as a summary.
    """

    async def compact(
        self, messages: Sequence[Message], *, state: dict[str, object]
    ) -> list[Message]:
        """The messages to send in place of `messages` (which it must not change)."""
        ...


def estimate_tokens(message: Message) -> int:
    """A cheap token estimate: a quarter of the characters of its text, tool call
    arguments and results, plus a few tokens of framing.

    Example:
        >>> estimate_tokens(Message("user", ["x" * 40]))
        14
    """
    chars = 0
    for content in message.contents:
        for value in (content.text, content.name, content.arguments, content.result):
            if value is None:
                continue
            if isinstance(value, str):
                chars += len(value)
            else:
                chars += len(json.dumps(value, default=str))
    return chars // 4 + _MESSAGE_OVERHEAD


def split_instructions(messages: Sequence[Message]) -> tuple[list[Message], list[Message]]:
    """The leading system messages, and the conversation after them."""
    start = 0
    while start < len(messages) and messages[start].role == "system":
        start += 1
    return list(messages[:start]), list(messages[start:])


def conversation_units(messages: Sequence[Message]) -> list[list[Message]]:
    """`messages` in the smallest runs that can be dropped alone: a message, or a tool
    call's message through the last message holding one of its results."""
    units: list[list[Message]] = []
    unit_calls: list[list[str]] = []
    unit_of_call: dict[str, int] = {}
    for message in messages:
        start = len(units)
        for content in message.contents:
            if content.type == "function_result" and content.call_id in unit_of_call:
                start = min(start, unit_of_call[content.call_id])
        if start < len(units):  # a result: join its call's unit and everything since
            merged = [m for unit in units[start:] for m in unit]
            calls = [c for ids in unit_calls[start:] for c in ids]
            del units[start:], unit_calls[start:]
            units.append([*merged, message])
            unit_calls.append(calls)
            for call_id in calls:
                unit_of_call[call_id] = start
        else:
            units.append([message])
            unit_calls.append([])
        for content in message.contents:
            if content.type == "function_call" and content.call_id:
                unit_of_call[content.call_id] = len(units) - 1
                unit_calls[-1].append(content.call_id)
    return units


def keep_within_budget(
    messages: Sequence[Message], max_tokens: int, counter: TokenCounter
) -> list[Message]:
    """The newest whole units of `messages` that fit `max_tokens`, oldest left out first.

    The instructions, the latest user message's unit and the last unit are always kept;
    when they alone exceed the budget they are sent anyway, with a warning. Only the kept
    units and one more are counted, so a long history costs little.
    """
    head, body = split_instructions(messages)
    units = conversation_units(body)
    if not units:
        return list(messages)
    user_unit = _last_user_unit(units)
    pinned = {len(units) - 1, user_unit}
    total = sum(counter(m) for m in head)
    total += sum(counter(m) for index in pinned for m in units[index])
    start = len(units) - 1
    while start > 0:
        if start - 1 not in pinned:
            cost = sum(counter(m) for m in units[start - 1])
            if total + cost > max_tokens:
                break
            total += cost
        start -= 1
    if start == 0:
        return list(messages)
    if total > max_tokens:
        logger.warning(
            "the instructions and the latest turn take about %d tokens, over the compaction "
            "budget of %d; sending them anyway (raise max_tokens, or shorten the input)",
            total,
            max_tokens,
        )
    kept = units[user_unit] if user_unit < start else []
    return [*head, *kept, *(m for unit in units[start:] for m in unit)]


def _last_user_unit(units: Sequence[Sequence[Message]]) -> int:
    for index in range(len(units) - 1, -1, -1):
        if any(m.role == "user" for m in units[index]):
            return index
    return len(units) - 1


def _positive(value: int | None, name: str, owner: str) -> None:
    if value is not None and (type(value) is not int or value < 1):
        raise ValueError(f"{owner}({name}=...) must be a positive whole number, not {value!r}")


class TokenBudgetCompaction:
    """Sends at most `max_tokens`: the oldest whole units are left out first.

    Args:
        max_tokens: The budget of one request, instructions included.
        counter: Counts a message's tokens; by default :func:`estimate_tokens`.

    Example:
        >>> compaction = TokenBudgetCompaction(4000)
    """

    def __init__(self, max_tokens: int, *, counter: TokenCounter = estimate_tokens) -> None:
        _positive(max_tokens, "max_tokens", "TokenBudgetCompaction")
        self.max_tokens = max_tokens
        self.counter = counter

    async def compact(
        self, messages: Sequence[Message], *, state: dict[str, object]
    ) -> list[Message]:
        return keep_within_budget(messages, self.max_tokens, self.counter)


class SlidingWindowCompaction:
    """Sends only the latest messages or turns (whole units, and at least the last one).

    A turn starts at each user message with text.

    Args:
        max_messages: How many messages to send at most, instructions aside.
        max_turns: How many turns to send at most.

    Example:
        >>> compaction = SlidingWindowCompaction(max_turns=10)
    """

    def __init__(self, *, max_messages: int | None = None, max_turns: int | None = None) -> None:
        if (max_messages is None) == (max_turns is None):
            raise ValueError(
                "SlidingWindowCompaction needs exactly one of max_messages= or max_turns="
            )
        _positive(max_messages, "max_messages", "SlidingWindowCompaction")
        _positive(max_turns, "max_turns", "SlidingWindowCompaction")
        self.max_messages = max_messages
        self.max_turns = max_turns

    async def compact(
        self, messages: Sequence[Message], *, state: dict[str, object]
    ) -> list[Message]:
        head, body = split_instructions(messages)
        units = conversation_units(body)
        start = len(units) - 1
        count = len(units[-1]) if units else 0
        turns = _turns_in(units[-1]) if units else 0
        while start > 0:
            unit = units[start - 1]
            if self.max_messages is not None and count + len(unit) > self.max_messages:
                break
            if self.max_turns is not None and turns >= self.max_turns:
                break
            start -= 1
            count += len(unit)
            turns += _turns_in(unit)
        return [*head, *(m for unit in units[start:] for m in unit)]


def _turns_in(unit: Sequence[Message]) -> int:
    return sum(1 for m in unit if m.role == "user" and m.text)
