"""Small timing helpers shared by the benchmarks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping

__all__ = ["best_of", "report", "rounds_in_turn"]


def best_of(repeats: int, iterations: int, make_run: Callable[[], Awaitable[None]]) -> float:
    """The best mean time, in seconds, of one awaited run over `repeats` rounds."""

    async def round_() -> float:
        started = time.perf_counter()
        for _ in range(iterations):
            await make_run()
        return (time.perf_counter() - started) / iterations

    async def all_rounds() -> float:
        for _ in range(3):  # warm up caches, lazily built schemas and imports
            await make_run()
        return min([await round_() for _ in range(repeats)])

    return asyncio.run(all_rounds())


def rounds_in_turn(
    repeats: int, iterations: int, make_runs: Mapping[str, Callable[[], Awaitable[None]]]
) -> dict[str, list[float]]:
    """The mean time, in seconds, of one awaited run of each of `make_runs` in each of
    `repeats` rounds, the rounds of the runs taken in turn so that a busy machine slows
    neighbouring rounds alike (compare them round by round)."""

    async def round_(make_run: Callable[[], Awaitable[None]]) -> float:
        started = time.perf_counter()
        for _ in range(iterations):
            await make_run()
        return (time.perf_counter() - started) / iterations

    async def all_rounds() -> dict[str, list[float]]:
        for make_run in make_runs.values():
            for _ in range(3):
                await make_run()
        times: dict[str, list[float]] = {name: [] for name in make_runs}
        for _ in range(repeats):
            for name, make_run in make_runs.items():
                times[name].append(await round_(make_run))
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
