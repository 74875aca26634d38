"""Sync tool functions run in the event loop's default thread pool, with one hop each way.

`asyncio.to_thread` chains a `concurrent.futures.Future` to an asyncio future, which costs
more than a quick tool itself. Here the worker thread hands its outcome straight to the
awaiting asyncio future. It is the same pool (the one `loop.set_default_executor` sets)
and the same semantics: the function runs in a copy of the caller's context variables,
and a call whose awaiting task was cancelled before a thread took it up does not run.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from typing import Any

__all__ = ["call_in_worker_thread"]


async def call_in_worker_thread(
    function: Callable[..., object], arguments: Mapping[str, object]
) -> object:
    """`function(**arguments)`, run in a thread of the running loop's default executor."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    # Read by name: asyncio keeps the default executor without a public getter. Until the
    # loop made it (or on a loop that keeps it elsewhere), `run_in_executor` makes it.
    executor = getattr(loop, "_default_executor", None)
    if not isinstance(executor, Executor):
        return await loop.run_in_executor(None, lambda: context.run(_call, function, arguments))
    outcome = loop.create_future()
    executor.submit(_run, loop, outcome, context, function, arguments)
    return await outcome


def _run(
    loop: asyncio.AbstractEventLoop,
    outcome: asyncio.Future[object],
    context: contextvars.Context,
    function: Callable[..., object],
    arguments: Mapping[str, object],
) -> None:
    """In the worker thread: run the call, then hand its outcome to the loop."""
    if outcome.cancelled():  # its task was cancelled while the call waited for a thread
        return
    try:
        result = context.run(_call, function, arguments)
    except BaseException as error:  # as the executor would: the awaiting task gets it
        _hand_over(loop, _set_exception, outcome, error)
    else:
        _hand_over(loop, _set_result, outcome, result)


def _call(function: Callable[..., object], arguments: Mapping[str, object]) -> object:
    try:
        return function(**arguments)
    except StopIteration as error:  # an asyncio future refuses it and would never settle
        raise RuntimeError(f"the function raised {error!r}") from error


def _hand_over(
    loop: asyncio.AbstractEventLoop,
    deliver: Callable[[asyncio.Future[object], Any], None],
    outcome: asyncio.Future[object],
    value: object,
) -> None:
    # a loop that closed meanwhile has nobody waiting for the outcome
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(deliver, outcome, value)


def _set_result(outcome: asyncio.Future[object], result: object) -> None:
    if not outcome.cancelled():
        outcome.set_result(result)


def _set_exception(outcome: asyncio.Future[object], error: BaseException) -> None:
    if not outcome.cancelled():
        outcome.set_exception(error)
