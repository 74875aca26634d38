"""Small timing helpers shared by the benchmarks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping

__all__ = ["best_of", "best_of_both", "report", "rounds_in_turn"]

MakeRun = Callable[[], Awaitable[None]]


async def _round(iterations: int, make_run: MakeRun) -> float:
    started = time.perf_counter()
    for _ in range(iterations):
        await make_run()
    return (time.perf_counter() - started) / iterations


def best_of(repeats: int, iterations: int, make_run: MakeRun) -> float:
    """The best mean time, in seconds, of one awaited run over `repeats` rounds."""

    async def all_rounds() -> float:
        for _ in range(3):  # warm up caches, lazily built schemas and imports
            await make_run()
        return min([await _round(iterations, make_run) for _ in range(repeats)])

    return asyncio.run(all_rounds())


def best_of_both(
    repeats: int, iterations: int, framework: MakeRun, baseline: MakeRun
) -> tuple[float, float]:
    """`best_of` for two runs whose rounds alternate, so that both meet the same load on
    a shared machine and their ratio is measured in one run; (framework, baseline)."""

    async def all_rounds() -> tuple[float, float]:
        for _ in range(3):
            await framework()
            await baseline()
        best_framework = best_baseline = float("inf")
        for _ in range(repeats):
            best_framework = min(best_framework, await _round(iterations, framework))
            best_baseline = min(best_baseline, await _round(iterations, baseline))
        return best_framework, best_baseline

    return asyncio.run(all_rounds())


def rounds_in_turn(
    repeats: int, iterations: int, make_runs: Mapping[str, Callable[[], Awaitable[None]]]
) -> dict[str, list[float]]:
    """The mean time, in seconds, of one awaited run of each of `make_runs` in each of
    `repeats` rounds, the rounds of the runs taken in turn, in reverse order every other
    round (A B, B A, ...) so that a busy machine, or a drift in either direction, slows
    neighbouring rounds alike (compare them round by round, or the best of each)."""

    async def all_rounds() -> dict[str, list[float]]:
        for make_run in make_runs.values():
            for _ in range(3):
                await make_run()
        times: dict[str, list[float]] = {name: [] for name in make_runs}
        names = list(make_runs)
        for repeat in range(repeats):
            for name in names if repeat % 2 == 0 else reversed(names):
                times[name].append(await _round(iterations, make_runs[name]))
        return times

    return asyncio.run(all_rounds())


def report(name: str, framework: float, baseline: float, *, target: str = "") -> None:
    """Print one line: both times, their ratio, the framework's own cost, and the target."""
    overhead = framework - baseline
    ratio = framework / baseline if baseline else float("inf")
    print(
        f"{name:<34} agentry {framework * 1e6:9.1f} us   bare {baseline * 1e6:8.1f} us   "
        f"ratio {ratio:6.1f}x   overhead {overhead * 1e6:8.1f} us   {target}"
    )
