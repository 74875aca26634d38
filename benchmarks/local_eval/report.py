"""The evaluation's figures: hit rate per category and criterion, speed and memory."""

from __future__ import annotations

import resource
import statistics
import sys
from collections.abc import Sequence

from benchmarks.local_eval.runner import CaseResult
from benchmarks.local_eval.scoring import CRITERIA, TurnScore
from benchmarks.local_eval.spec import Category

__all__ = ["describe_turn", "peak_memory_mib", "summary"]


def peak_memory_mib() -> float:
    """This process's peak resident memory so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, else KiB


def describe_turn(score: TurnScore) -> str:
    """One line: hit or the failed criteria, the time, the prompt, the calls and the answer."""
    verdict = "hit " if score.hit else "MISS " + ",".join(score.failed)
    calls = " ".join(f"{c.name}{c.arguments}" for c in score.outcome.calls) or "no call"
    answer = score.outcome.error or score.outcome.answer
    flag = "  [SIDE EFFECT]" if score.side_effect_unasked else ""
    outcome = score.outcome
    seconds = f"{outcome.seconds:5.1f} s {outcome.evaluated_tokens:5d}+{outcome.output_tokens:<4d}"
    return f"  {verdict:<28} {seconds} {score.turn.prompt!r} -> {calls} -> {answer[:100]!r}{flag}"


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def summary(results: Sequence[CaseResult], *, model: str) -> str:
    """A table of hits per category and per criterion, then speed and memory."""
    by_category: dict[Category, list[TurnScore]] = {}
    for result in results:
        by_category.setdefault(result.case.category, []).extend(result.scores)
    every = [score for scores in by_category.values() for score in scores]
    held_out = [s for r in results if r.case.held_out for s in r.scores]
    header = f"{'category':<24}{'hits':>14}" + "".join(f"{c:>15}" for c in CRITERIA)
    lines = [f"local tool use ({model}): {len(every)} turns", header]
    rows: list[tuple[str, list[TurnScore]]] = [
        *((category.value, scores) for category, scores in by_category.items()),
        ("overall", every),
    ]
    if held_out:
        rest = [s for r in results if not r.case.held_out for s in r.scores]
        rows += [("held-out turns", held_out), ("overall without held-out", rest)]
    for name, scores in rows:
        row = f"{name:<24}{_rate(sum(s.hit for s in scores), len(scores)):>14}"
        for criterion in CRITERIA:
            row += f"{sum(s.criteria[criterion] for s in scores):>15}"
        lines.append(row)
    seconds = [s.outcome.seconds for s in every]
    tokens = sum(s.outcome.output_tokens for s in every)
    evaluated = [s.outcome.evaluated_tokens for s in every]
    generated = [s.outcome.output_tokens for s in every]
    unasked = sum(s.side_effect_unasked for s in every)
    lines.append(f"side-effecting tool called where no call was wanted: {unasked}")
    if seconds:
        lines.append(
            f"median {statistics.median(seconds):.2f} s per turn; "
            f"{tokens / sum(seconds) if sum(seconds) else 0.0:.1f} output tokens/s over turn time; "
            f"peak memory {peak_memory_mib():.0f} MiB"
        )
        lines.append(
            f"tokens per turn (median): {statistics.median(evaluated):.0f} prompt tokens "
            f"evaluated (not from the cache), {statistics.median(generated):.0f} generated; "
            f"whole set: {sum(evaluated)} evaluated, {sum(generated)} generated"
        )
    return "\n".join(lines)
