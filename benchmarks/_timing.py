"""Small timing helpers shared by the benchmarks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

__all__ = ["best_of", "report"]


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


def report(name: str, framework: float, baseline: float, *, target: str = "") -> None:
    """Print one line: both times, their ratio, the framework's own cost, and the target."""
    overhead = framework - baseline
    ratio = framework / baseline if baseline else float("inf")
    print(
        f"{name:<34} agentry {framework * 1e6:9.1f} us   bare {baseline * 1e6:8.1f} us   "
        f"ratio {ratio:6.1f}x   overhead {overhead * 1e6:8.1f} us   {target}"
    )
