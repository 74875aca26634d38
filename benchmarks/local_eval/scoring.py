"""Scoring one turn: each criterion on its own, and a hit when all of them hold."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchmarks.local_eval.spec import ExpectedCall, Turn
from benchmarks.local_eval.tools import SIDE_EFFECTING

__all__ = ["CRITERIA", "SCAFFOLDING", "ToolCall", "TurnOutcome", "TurnScore", "score_turn"]

CRITERIA: tuple[str, ...] = ("tools", "arguments", "no_extra_call", "answer", "clean")
"""tools: the expected tools were called, in order; arguments: each expected call's arguments
pass their rules; no_extra_call: nothing was called beyond them; answer: it holds a fact from
the tool result (or, where an argument is missing, asks: a question mark); clean: no error, no
raw call text or scaffolding phrase in the answer."""

SCAFFOLDING: tuple[str, ...] = (
    "according to the tool",
    "tool result",
    "tool_call",
    "function_call",
    "final_answer",
    '"arguments"',
    '"name":',
    "<tool",
    "based on the function",
    "i'm sorry, but i can't assist",
)
"""Text that has no place in an answer to the user (compared case-insensitively)."""


@dataclass(frozen=True)
class ToolCall:
    """A call the agent made: the tool's name and its arguments."""

    name: str
    arguments: dict[str, object]


@dataclass(frozen=True)
class TurnOutcome:
    """What the agent did for one user message."""

    calls: tuple[ToolCall, ...]
    answer: str
    error: str | None = None
    seconds: float = 0.0
    output_tokens: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0

    @property
    def evaluated_tokens(self) -> int:
        """Prompt tokens the model evaluated, not taken from its cache."""
        return self.input_tokens - self.cached_input_tokens


@dataclass(frozen=True)
class TurnScore:
    """Each criterion's verdict for one turn (see `CRITERIA`)."""

    turn: Turn
    outcome: TurnOutcome
    criteria: dict[str, bool] = field(default_factory=lambda: dict[str, bool]())
    side_effect_unasked: bool = False
    """A side-effecting tool was called where no tool was wanted."""

    @property
    def hit(self) -> bool:
        """Whether every criterion holds."""
        return all(self.criteria.values())

    @property
    def failed(self) -> list[str]:
        """The criteria that do not hold."""
        return [name for name, ok in self.criteria.items() if not ok]


def _arguments_pass(expected: ExpectedCall, call: ToolCall) -> bool:
    return all(
        name in call.arguments and rule.check(call.arguments[name])
        for name, rule in expected.rules.items()
    )


def _answer_right(turn: Turn, answer: str) -> bool:
    if turn.asks:
        return "?" in answer
    if not answer.strip():
        return False
    # a fact counts as a whole word or number: "2" (degrees) is not found in "24"
    return not turn.facts or any(
        re.search(rf"(?<![\w.]){re.escape(fact)}(?![\w])", answer, re.IGNORECASE)
        for fact in turn.facts
    )


def _clean(outcome: TurnOutcome) -> bool:
    text = outcome.answer.lower()
    return outcome.error is None and not any(phrase in text for phrase in SCAFFOLDING)


def score_turn(turn: Turn, outcome: TurnOutcome) -> TurnScore:
    """Score what the agent did for `turn`."""
    expected, calls = turn.calls, outcome.calls
    names = [call.name for call in calls[: len(expected)]]
    criteria = {
        "tools": names == [call.name for call in expected],
        "arguments": all(
            _arguments_pass(want, got) for want, got in zip(expected, calls, strict=False)
        ),
        "no_extra_call": len(calls) <= len(expected),
        "answer": _answer_right(turn, outcome.answer),
        "clean": _clean(outcome),
    }
    unasked = not expected and any(call.name in SIDE_EFFECTING for call in calls)
    return TurnScore(turn, outcome, criteria, side_effect_unasked=unasked)
