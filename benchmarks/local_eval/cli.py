"""The command line: pick the model and a subset, run, print per-turn lines and the table."""

from __future__ import annotations

import argparse
import asyncio

from agentry import Agent
from agentry.local import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, LocalChatClient
from benchmarks.local_eval.cases import CASES
from benchmarks.local_eval.report import describe_turn, summary
from benchmarks.local_eval.runner import CaseResult, run_case, select_cases
from benchmarks.local_eval.spec import Category
from benchmarks.local_eval.tools import TOOLS

__all__ = ["evaluate", "main"]

INSTRUCTIONS = "You are a helpful assistant."


async def evaluate(
    model: str,
    *,
    categories: list[Category],
    limit: int | None,
    held_out: bool | None = None,
    verbose: bool = True,
) -> list[CaseResult]:
    """Run the chosen cases on `model` through a plain agent; print lines and the table."""
    client = LocalChatClient(model)
    await client.load()
    agent = Agent(client=client, instructions=INSTRUCTIONS, tools=list(TOOLS))
    results: list[CaseResult] = []
    for case in select_cases(CASES, categories=categories, limit=limit, held_out=held_out):
        result = await run_case(agent, case)
        results.append(result)
        if verbose:
            for score in result.scores:
                print(f"[{case.category.value}] {describe_turn(score)}", flush=True)
    print(summary(results, model=model), flush=True)
    return results


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description="How well the local model uses tools.")
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL, choices=sorted(LOCAL_MODELS))
    parser.add_argument(
        "--category",
        action="append",
        default=[],
        choices=[c.value for c in Category],
        help="run only this category (repeatable)",
    )
    parser.add_argument("--limit", type=int, default=None, help="at most N cases per category")
    parser.add_argument(
        "--held-out",
        choices=["include", "only", "skip"],
        default="include",
        help="the held-out cases: with the rest (default), alone, or left out",
    )
    parser.add_argument("--quiet", action="store_true", help="print the table only")
    args = parser.parse_args()
    categories = [Category(name) for name in args.category]
    asyncio.run(
        evaluate(
            args.model,
            categories=categories,
            limit=args.limit,
            held_out={"include": None, "only": True, "skip": False}[args.held_out],
            verbose=not args.quiet,
        )
    )
