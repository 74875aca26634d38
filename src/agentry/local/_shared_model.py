"""One loaded model per process, shared by every client that asks for it.

Each shared model owns a single worker thread. Loading and every generation run there, one
after another in the order they were asked for, so concurrent requests (from any event loop
or thread) queue up safely while the event loop stays free.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

from agentry.local._llama import LoadedModel, load_model

__all__ = ["ModelSettings", "SharedModel", "shared_model"]

_T = TypeVar("_T")
_DONE = object()


@dataclass(frozen=True)
class ModelSettings:
    """What identifies a loaded model: the same settings share one copy in memory."""

    path: Path
    n_ctx: int
    n_threads: int | None
    chat_template: str | None


class SharedModel:
    """A model loaded on first use, with a queue of jobs run on its own thread."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentry-local")
        self._loaded: LoadedModel | None = None

    def _model(self) -> LoadedModel:
        # Only ever called on the worker thread, so no lock is needed.
        if self._loaded is None:
            s = self.settings
            self._loaded = load_model(
                s.path, n_ctx=s.n_ctx, n_threads=s.n_threads, chat_template=s.chat_template
            )
        return self._loaded

    async def run(self, job: Callable[[LoadedModel], _T]) -> _T:
        """Run `job` with the model on the worker thread, after the jobs queued before it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: job(self._model()))

    async def stream(
        self, job: Callable[[LoadedModel, threading.Event], Iterator[_T]]
    ) -> AsyncIterator[_T]:
        """Items of `job` as the worker thread produces them.

        `job` gets a cancel flag; it is set when the caller stops iterating early, and the
        job should then stop so the next request can run.
        """
        loop = asyncio.get_running_loop()
        items: asyncio.Queue[object] = asyncio.Queue()
        cancelled = threading.Event()

        def hand_over(item: object) -> None:
            try:
                loop.call_soon_threadsafe(items.put_nowait, item)
            except RuntimeError:  # the caller's event loop is gone: nobody is listening
                cancelled.set()

        def work() -> None:
            try:
                for item in job(self._model(), cancelled):
                    hand_over(item)
                    if cancelled.is_set():
                        break
            except BaseException as error:
                hand_over(error)
            else:
                hand_over(_DONE)

        future = loop.run_in_executor(self._executor, work)
        try:
            while True:
                item = await items.get()
                if item is _DONE:
                    break
                if isinstance(item, BaseException):
                    raise item
                yield cast("_T", item)
        finally:
            cancelled.set()
            if not future.done():
                # Not started yet: drop it from the queue. Running: it stops at the next token.
                future.cancel()


_shared: dict[ModelSettings, SharedModel] = {}
_shared_lock = threading.Lock()


def shared_model(settings: ModelSettings) -> SharedModel:
    """The process-wide shared model for `settings`, created (not yet loaded) on first call."""
    with _shared_lock:
        model = _shared.get(settings)
        if model is None:
            model = _shared[settings] = SharedModel(settings)
        return model
