"""Running the set: each case in a fresh session of an agent, each turn scored."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

from agentry import Agent, AgentResponse
from benchmarks.local_eval.scoring import ToolCall, TurnOutcome, TurnScore, score_turn
from benchmarks.local_eval.spec import Category, EvalCase

__all__ = ["CaseResult", "run_case", "run_cases", "select_cases"]


@dataclass(frozen=True)
class CaseResult:
    """The scores of a case's turns, in order."""

    case: EvalCase
    scores: list[TurnScore] = field(default_factory=lambda: list[TurnScore]())


def _outcome(response: AgentResponse, seconds: float) -> TurnOutcome:
    calls: list[ToolCall] = []
    error: str | None = None
    for message in response.messages:
        for content in message.contents:
            if content.type == "function_call":
                try:
                    arguments = content.parse_arguments()
                except ValueError as exc:
                    arguments, error = {}, f"unreadable arguments for {content.name}: {exc}"
                calls.append(ToolCall(content.name or "", dict(arguments)))
            elif content.type == "function_result" and content.exception is not None:
                error = f"tool failed: {content.exception}"
            elif content.type == "error":
                error = content.message or "error content"
    usage = response.usage_details or {}
    counts = cast("dict[str, int]", usage)
    return TurnOutcome(
        tuple(calls),
        response.text,
        error,
        seconds,
        output_tokens=counts.get("output_token_count", 0),
        input_tokens=counts.get("input_token_count", 0),
        cached_input_tokens=counts.get("cached_input_token_count", 0),
    )


async def run_case(agent: Agent, case: EvalCase) -> CaseResult:
    """Play `case`'s turns to `agent` in a new session and score each."""
    session = agent.create_session()
    result = CaseResult(case)
    for turn in case.turns:
        started = time.perf_counter()
        try:
            response = await agent.run(turn.prompt, session=session)
        except Exception as exc:  # a failed turn is scored, the run goes on
            error = f"{type(exc).__name__}: {exc}"
            outcome = TurnOutcome((), "", error, time.perf_counter() - started)
        else:
            outcome = _outcome(response, time.perf_counter() - started)
        result.scores.append(score_turn(turn, outcome))
    return result


async def run_cases(agent: Agent, cases: Iterable[EvalCase]) -> list[CaseResult]:
    """Run `cases` one after another."""
    return [await run_case(agent, case) for case in cases]


def select_cases(
    cases: Iterable[EvalCase],
    *,
    categories: Iterable[Category] = (),
    limit: int | None = None,
    held_out: bool | None = None,
) -> list[EvalCase]:
    """The cases of `categories` (all when empty), at most `limit` of each category; only the
    held-out cases (`held_out=True`), only the others (`False`) or both (`None`)."""
    wanted = set(categories)
    taken: dict[Category, int] = {}
    chosen: list[EvalCase] = []
    for case in cases:
        if wanted and case.category not in wanted:
            continue
        if held_out is not None and case.held_out != held_out:
            continue
        if limit is not None and taken.get(case.category, 0) >= limit:
            continue
        taken[case.category] = taken.get(case.category, 0) + 1
        chosen.append(case)
    return chosen
