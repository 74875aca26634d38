"""Context compaction: what of a long conversation is sent to the model.

A strategy shapes each model request of a session run; the stored history keeps every
message. Whole units are kept or dropped: a tool call goes with its results, so the model
never sees a result without its call or a call without its results. Leading system
messages (the instructions) are always kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
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
_TOOL_CONTENTS = frozenset({"function_call", "function_result"})


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
        if content.text:
            chars += len(content.text)
        if content.type in _TOOL_CONTENTS:
            for value in (content.name, content.arguments, content.result):
                if value is not None:
                    chars += len(value if isinstance(value, str) else str(value))
    return chars // 4 + _MESSAGE_OVERHEAD


def split_instructions(messages: Sequence[Message]) -> tuple[list[Message], list[Message]]:
    """The leading system messages, and the conversation after them."""
    start = 0
    while start < len(messages) and messages[start].role == "system":
        start += 1
    return list(messages[:start]), list(messages[start:])


def units_newest_first(messages: Sequence[Message]) -> Iterator[tuple[int, int]]:
    """The `(start, end)` slices of `messages` that can be dropped alone, newest first: a
    message, or a tool call's message through the last message holding one of its results.

    It reads back from the end only as far as it is asked, so keeping the latest part of a
    long history costs little. A result whose call is not there stands alone.
    """
    end = len(messages)
    orphans: set[str] = set()
    while end > 0:
        index = end
        waiting: set[str] = set()  # calls of results seen, not yet reached
        while index > 0:
            index -= 1
            for content in messages[index].contents:
                kind = content.type
                if kind == "function_result":
                    if content.call_id and content.call_id not in orphans:
                        waiting.add(content.call_id)
                elif kind == "function_call" and waiting:
                    waiting.discard(content.call_id or "")
            if not waiting:
                break
        if waiting:  # the start was reached: these results have no call, read again
            orphans |= waiting
            continue
        yield index, end
        end = index


def fits(messages: Sequence[Message], max_tokens: int, counter: TokenCounter) -> bool:
    """Whether `messages` take at most `max_tokens` (counting stops once they do not)."""
    total = 0
    for message in messages:
        total += counter(message)
        if total > max_tokens:
            return False
    return True


def keep_within_budget(
    messages: Sequence[Message], max_tokens: int, counter: TokenCounter
) -> list[Message]:
    """The newest whole units of `messages` that fit `max_tokens`, oldest left out first.

    The instructions, the latest user message's unit and the last unit are always kept;
    when they alone exceed the budget they are sent anyway, with a warning.
    """
    head, body = split_instructions(messages)
    units = units_newest_first(body)
    newest = next(units, None)
    if newest is None:
        return list(messages)
    seen = [newest]
    user_at = _last_user_index(body)
    while seen[-1][0] > user_at >= 0 and (unit := next(units, None)) is not None:
        seen.append(unit)
    pinned = {newest, seen[-1]} if seen[-1][0] <= user_at else {newest}
    total = sum(counter(m) for m in head)
    total += sum(counter(m) for start, end in pinned for m in body[start:end])
    start = newest[0]
    for unit in itertools.chain(seen[1:], units):
        if unit not in pinned:
            cost = sum(counter(m) for m in body[unit[0] : unit[1]])
            if total + cost > max_tokens:
                break
            total += cost
        start = unit[0]
    else:
        return list(messages)
    if total > max_tokens:
        logger.warning(
            "the instructions and the latest turn take about %d tokens, over the compaction "
            "budget of %d; sending them anyway (raise max_tokens, or shorten the input)",
            total,
            max_tokens,
        )
    kept = [m for unit in pinned if unit[0] < start for m in body[unit[0] : unit[1]]]
    return [*head, *kept, *body[start:]]


def _last_user_index(messages: Sequence[Message]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    return -1


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
        kept_from, count, turns = len(body), 0, 0
        for start, end in units_newest_first(body):
            size, unit_turns = end - start, _turns_in(body[start:end])
            if kept_from < len(body):  # the last unit is always kept
                if self.max_messages is not None and count + size > self.max_messages:
                    break
                if self.max_turns is not None and turns >= self.max_turns:
                    break
            kept_from, count, turns = start, count + size, turns + unit_turns
        return [*head, *body[kept_from:]]


def _turns_in(unit: Sequence[Message]) -> int:
    return sum(1 for m in unit if m.role == "user" and m.text)
