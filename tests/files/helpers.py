"""Test helpers: an executor that holds its jobs until told, to see work leave the loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class GatedExecutor(ThreadPoolExecutor):
    """Runs each job only once `gate` is set; `started` tells a job is waiting in a thread."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.started = threading.Event()
        self.gate = threading.Event()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        def gated() -> T:
            self.started.set()
            self.gate.wait(timeout=30)
            return fn(*args, **kwargs)

        return super().submit(gated)


async def until(condition: Callable[[], bool]) -> None:
    """Return once `condition()` holds (wrap in a timeout as a hang guard)."""
    while not condition():
        await asyncio.sleep(0.01)
