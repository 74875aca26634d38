"""How a case of the evaluation is written: turns, the calls they expect, argument rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "ArgRule",
    "Category",
    "Contains",
    "EvalCase",
    "ExpectedCall",
    "Is",
    "Number",
    "Turn",
]


class Category(str, Enum):
    """The kinds of request the evaluation covers."""

    ONE_TOOL = "one-tool"
    NO_TOOL = "no-tool"
    TWO_TOOLS = "two-tools"
    MISSING_ARGUMENT = "missing-argument"
    FOLLOW_UP = "follow-up"


@dataclass(frozen=True)
class Is:
    """The argument equals `value` (text compared case-insensitively, spaces trimmed)."""

    value: str

    def check(self, argument: object) -> bool:
        """Whether `argument` passes."""
        return isinstance(argument, str) and argument.strip().lower() == self.value.lower()

    def __str__(self) -> str:
        return f"== {self.value!r}"


@dataclass(frozen=True)
class Contains:
    """The argument is text that contains `part` (case-insensitively)."""

    part: str

    def check(self, argument: object) -> bool:
        """Whether `argument` passes."""
        return isinstance(argument, str) and self.part.lower() in argument.lower()

    def __str__(self) -> str:
        return f"contains {self.part!r}"


@dataclass(frozen=True)
class Number:
    """The argument is a number (or numeric text) within a cent of `value`."""

    value: float

    def check(self, argument: object) -> bool:
        """Whether `argument` passes."""
        if isinstance(argument, bool):
            return False
        if isinstance(argument, int | float):
            return abs(float(argument) - self.value) < 0.01
        if isinstance(argument, str):
            try:
                return abs(float(argument.replace(",", "")) - self.value) < 0.01
            except ValueError:
                return False
        return False

    def __str__(self) -> str:
        return f"== {self.value:g}"


ArgRule = Is | Contains | Number


@dataclass(frozen=True)
class ExpectedCall:
    """A tool call the turn needs: the tool's name and rules for some of its arguments."""

    name: str
    rules: dict[str, ArgRule] = field(default_factory=lambda: dict[str, ArgRule]())


@dataclass(frozen=True)
class Turn:
    """One user message and what a right reply to it looks like.

    Args:
        prompt: What the user says.
        calls: The tool calls expected, in order (empty: answer without a tool).
        facts: The answer must contain one of these (case-insensitively); empty: any answer.
        asks: The right move is a clarifying question (a question mark, no call).
    """

    prompt: str
    calls: tuple[ExpectedCall, ...] = ()
    facts: tuple[str, ...] = ()
    asks: bool = False


@dataclass(frozen=True)
class EvalCase:
    """A conversation of one or more turns, in a fresh session."""

    category: Category
    turns: tuple[Turn, ...]
    held_out: bool = False
    """Written after the agent's prompts and checks were tuned on the rest, to tell whether
    they serve other wordings and tool pairings too."""
