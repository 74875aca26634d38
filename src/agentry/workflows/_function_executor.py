"""`FunctionExecutor` and `@executor`: a plain function as a workflow node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from agentry.workflows._executor import Executor
from agentry.workflows._handlers import (
    HandlerEntry,
    ResponseEntry,
    handler_spec,
    make_call,
)

__all__ = ["FunctionExecutor", "executor"]


class FunctionExecutor(Executor):
    """An executor whose single handler is a function.

    The function takes `(message)` or `(message, ctx)`; the message annotation decides what
    it receives. Coroutine functions run on the event loop; plain functions run in a worker
    thread. A non-None return value is sent on like `ctx.send_message`.

    Args:
        func: The function.
        id: The executor id (default: the function's name).

    Example:
        >>> async def double(n: int) -> int:
        ...     return n * 2
        >>> FunctionExecutor(double).id
        'double'
    """

    def __init__(self, func: Callable[..., object], id: str | None = None) -> None:
        if not callable(func):
            raise TypeError(f"FunctionExecutor needs a function, not {type(func).__name__}")
        self.func = func
        super().__init__(id if id is not None else getattr(func, "__name__", "function"))

    def _build_handlers(self) -> tuple[list[HandlerEntry], list[ResponseEntry], list[Any]]:
        spec = handler_spec(self.func, owner=f"function executor {self.id!r}", is_method=False)
        entry = HandlerEntry(spec, make_call(self.func, spec.takes_context))
        return [entry], [], [(spec.output_types, spec.workflow_output_types)]


@overload
def executor(func: Callable[..., object], /, *, id: str | None = None) -> FunctionExecutor: ...


@overload
def executor(*, id: str | None = None) -> Callable[[Callable[..., Any]], FunctionExecutor]: ...


def executor(
    func: Callable[..., object] | None = None, /, *, id: str | None = None
) -> FunctionExecutor | Callable[[Callable[..., Any]], FunctionExecutor]:
    """Turn a function into a `FunctionExecutor`; use as `@executor` or `@executor(id=...)`.

    Example:
        >>> from agentry.workflows import WorkflowContext
        >>> @executor(id="upper")
        ... async def upper(text: str, ctx: WorkflowContext[str]) -> None:
        ...     await ctx.send_message(text.upper())
        >>> upper.id
        'upper'
    """
    if func is not None:
        return FunctionExecutor(func, id=id)

    def wrap(target: Callable[..., object]) -> FunctionExecutor:
        return FunctionExecutor(target, id=id)

    return wrap
