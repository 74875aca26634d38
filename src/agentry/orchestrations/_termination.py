"""Termination conditions shared by group chat, magentic and handoff orchestrations.

A condition looks at the conversation after each agent turn and says whether to stop,
and why. Conditions combine with `|` (either) and `&` (both).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from agentry.types import Message

__all__ = [
    "AllOf",
    "AnyOf",
    "KeywordTermination",
    "MaxRounds",
    "PredicateTermination",
    "TerminationCondition",
    "TerminationContext",
    "TerminationLike",
    "as_termination",
]


@dataclass
class TerminationContext:
    """What a termination condition sees after each agent turn.

    Attributes:
        conversation: The whole conversation so far (the input included).
        rounds: How many agent turns the orchestration has taken.
        last_speaker: The participant that spoke last, if any.
    """

    conversation: list[Message]
    rounds: int
    last_speaker: str | None = None
    participants: list[str] = field(default_factory=list[str])

    @property
    def last_message(self) -> Message | None:
        """The newest message of the conversation, if any."""
        return self.conversation[-1] if self.conversation else None


TerminationLike = Union["TerminationCondition", int, Callable[["TerminationContext"], Any]]
"""A termination condition, a number of rounds (`MaxRounds`), or a predicate."""


class TerminationCondition:
    """Decides when an orchestration stops. Subclasses implement `check`.

    Combine conditions with `|` and `&`; a number stands for `MaxRounds`, a function for
    a `PredicateTermination`.

    Example:
        >>> stop = MaxRounds(6) | KeywordTermination("DONE")
        >>> stop.check(TerminationContext(conversation=[], rounds=6))
        'reached the limit of 6 rounds'
    """

    async def check_async(self, context: TerminationContext) -> str | None:
        """Like `check`; override this for conditions that must await something."""
        return self.check(context)

    def check(self, context: TerminationContext) -> str | None:
        """The reason to stop, or None to go on."""
        raise NotImplementedError(f"{type(self).__name__} must implement check()")

    def __or__(self, other: TerminationLike) -> TerminationCondition:
        return AnyOf([self, as_termination(other)])

    def __ror__(self, other: TerminationLike) -> TerminationCondition:
        return AnyOf([as_termination(other), self])

    def __and__(self, other: TerminationLike) -> TerminationCondition:
        return AllOf([self, as_termination(other)])

    def __rand__(self, other: TerminationLike) -> TerminationCondition:
        return AllOf([as_termination(other), self])


class MaxRounds(TerminationCondition):
    """Stop after `rounds` agent turns.

    Args:
        rounds: The most agent turns (at least 1).
    """

    def __init__(self, rounds: int) -> None:
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"MaxRounds needs a positive number of rounds, not {rounds!r}")
        self.rounds = rounds

    def check(self, context: TerminationContext) -> str | None:
        if context.rounds >= self.rounds:
            return f"reached the limit of {self.rounds} rounds"
        return None

    def __repr__(self) -> str:
        return f"MaxRounds({self.rounds})"


class KeywordTermination(TerminationCondition):
    """Stop when the last message contains one of `keywords`.

    Args:
        keywords: Words or phrases that end the conversation (such as "DONE").
        case_sensitive: Match case exactly.
        roles: Only messages with these roles count (default: any role).
    """

    def __init__(
        self,
        *keywords: str,
        case_sensitive: bool = False,
        roles: Sequence[str] | None = None,
    ) -> None:
        if not keywords or not all(isinstance(k, str) and k for k in keywords):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError("KeywordTermination needs at least one non-empty keyword")
        self.keywords = keywords
        self.case_sensitive = case_sensitive
        self.roles = list(roles) if roles is not None else None

    def check(self, context: TerminationContext) -> str | None:
        message = context.last_message
        if message is None or (self.roles is not None and message.role not in self.roles):
            return None
        text = message.text if self.case_sensitive else message.text.lower()
        for keyword in self.keywords:
            if (keyword if self.case_sensitive else keyword.lower()) in text:
                return f"the keyword {keyword!r} was said"
        return None

    def __repr__(self) -> str:
        return f"KeywordTermination({', '.join(map(repr, self.keywords))})"


class PredicateTermination(TerminationCondition):
    """Stop when `predicate(context)` is true (it may be a coroutine function).

    Args:
        predicate: A function of the `TerminationContext`.
        reason: The reason to report (default: one naming the predicate).
    """

    def __init__(
        self, predicate: Callable[[TerminationContext], object], *, reason: str | None = None
    ):
        if not callable(predicate):
            raise TypeError(f"PredicateTermination needs a function, not {predicate!r}")
        self.predicate = predicate
        self.reason = reason or f"{getattr(predicate, '__name__', 'the predicate')} held"

    async def check_async(self, context: TerminationContext) -> str | None:
        result = self.predicate(context)
        if inspect.isawaitable(result):
            result = await result
        return self.reason if result else None

    def check(self, context: TerminationContext) -> str | None:
        result = self.predicate(context)
        if inspect.isawaitable(result):
            close = getattr(result, "close", None)
            if callable(close):
                close()
            raise TypeError("an async predicate must be checked with check_async()")
        return self.reason if result else None


class AnyOf(TerminationCondition):
    """Stop as soon as one of `conditions` says so (what `a | b` builds)."""

    def __init__(self, conditions: Sequence[TerminationCondition]) -> None:
        self.conditions = _flatten(conditions, AnyOf)

    async def check_async(self, context: TerminationContext) -> str | None:
        for condition in self.conditions:
            reason = await condition.check_async(context)
            if reason is not None:
                return reason
        return None

    def check(self, context: TerminationContext) -> str | None:
        for condition in self.conditions:
            reason = condition.check(context)
            if reason is not None:
                return reason
        return None


class AllOf(TerminationCondition):
    """Stop only when every one of `conditions` says so (what `a & b` builds)."""

    def __init__(self, conditions: Sequence[TerminationCondition]) -> None:
        self.conditions = _flatten(conditions, AllOf)

    async def check_async(self, context: TerminationContext) -> str | None:
        reasons: list[str] = []
        for condition in self.conditions:
            reason = await condition.check_async(context)
            if reason is None:
                return None
            reasons.append(reason)
        return " and ".join(reasons)

    def check(self, context: TerminationContext) -> str | None:
        reasons: list[str] = []
        for condition in self.conditions:
            reason = condition.check(context)
            if reason is None:
                return None
            reasons.append(reason)
        return " and ".join(reasons)


def _flatten(
    conditions: Sequence[TerminationCondition], kind: type[AnyOf | AllOf]
) -> list[TerminationCondition]:
    flat: list[TerminationCondition] = []
    for condition in conditions:
        condition = as_termination(condition)
        if isinstance(condition, kind):
            flat.extend(condition.conditions)
        else:
            flat.append(condition)
    return flat


def as_termination(value: TerminationLike) -> TerminationCondition:
    """A `TerminationCondition` from a condition, a function of the context, or an int.

    An int `n` means `MaxRounds(n)`; a function becomes a `PredicateTermination`.

    Raises:
        TypeError: The value is none of those.
    """
    if isinstance(value, TerminationCondition):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return MaxRounds(value)
    if callable(value):
        return PredicateTermination(value)
    raise TypeError(
        f"termination must be a TerminationCondition, a function of TerminationContext or a "
        f"number of rounds, not {value!r}"
    )
