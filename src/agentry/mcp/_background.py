"""Work that outlives the call that started it (a best-effort cancel, a transport
shutting down), kept until it is done and waited for at close."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["BackgroundTasks"]

T = TypeVar("T")


class BackgroundTasks:
    """Tasks started in the background. Each is referenced until it ends (the event loop
    keeps only weak references to tasks, so an unreferenced one may be collected before
    it finishes); the work itself must be bounded."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def __len__(self) -> int:
        """How many are still running."""
        return len(self._tasks)

    def start(self, work: Coroutine[Any, Any, T], *, name: str) -> asyncio.Task[T]:
        """Run `work` as a task of its own; the task."""
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def wait(self) -> None:
        """Wait until every task started so far has ended (being cancelled while
        waiting does not cancel them)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks))
