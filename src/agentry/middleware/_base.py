"""Middleware classes, decorators and the pipeline that chains them."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from typing import Any, Literal, TypeAlias, TypeVar, cast, get_type_hints

from agentry.errors import MiddlewareError
from agentry.middleware._contexts import AgentContext, ChatContext, FunctionInvocationContext

__all__ = [
    "AgentMiddleware",
    "ChatMiddleware",
    "FunctionMiddleware",
    "MiddlewareTermination",
    "MiddlewareTypes",
    "agent_middleware",
    "chat_middleware",
    "function_middleware",
    "split_middleware",
]

ContextT = TypeVar("ContextT", AgentContext, ChatContext, FunctionInvocationContext)
CallNext: TypeAlias = Callable[[], Awaitable[None]]
MiddlewareKind = Literal["agent", "chat", "function"]


class MiddlewareTermination(Exception):
    """Raise inside middleware to stop the pipeline; the context's `result` stands as it is."""


class AgentMiddleware(ABC):
    """Intercepts agent runs.

    Example:
        >>> class LoggingMiddleware(AgentMiddleware):
        ...     async def process(self, context, call_next):
        ...         print(f"Input: {context.messages}")
        ...         await call_next()
        ...         print(f"Output: {context.result}")
    """

    @abstractmethod
    async def process(self, context: AgentContext, call_next: CallNext) -> None:
        """Handle the run; call `await call_next()` to continue down the pipeline."""


class ChatMiddleware(ABC):
    """Intercepts model calls (one per function-calling iteration)."""

    @abstractmethod
    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        """Handle the call; call `await call_next()` to continue down the pipeline."""


class FunctionMiddleware(ABC):
    """Intercepts tool calls."""

    @abstractmethod
    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        """Handle the call; call `await call_next()` to continue down the pipeline."""


MiddlewareFunction: TypeAlias = Callable[[Any, CallNext], Awaitable[None]]
MiddlewareTypes: TypeAlias = (
    AgentMiddleware | ChatMiddleware | FunctionMiddleware | MiddlewareFunction
)

_KIND_ATTRIBUTE = "__agentry_middleware_kind__"
_CONTEXT_KINDS: dict[type, MiddlewareKind] = {
    AgentContext: "agent",
    ChatContext: "chat",
    FunctionInvocationContext: "function",
}
_FunctionT = TypeVar("_FunctionT", bound=MiddlewareFunction)


def _marker(kind: MiddlewareKind) -> Callable[[_FunctionT], _FunctionT]:
    def mark(function: _FunctionT) -> _FunctionT:
        setattr(function, _KIND_ATTRIBUTE, kind)
        return function

    return mark


agent_middleware = _marker("agent")
"""Mark an `async def (context: AgentContext, call_next)` function as agent middleware."""
chat_middleware = _marker("chat")
"""Mark an `async def (context: ChatContext, call_next)` function as chat middleware."""
function_middleware = _marker("function")
"""Mark an `async def (context: FunctionInvocationContext, call_next)` function as function
middleware."""


def _kind_of(middleware: object) -> MiddlewareKind:
    if isinstance(middleware, AgentMiddleware):
        return "agent"
    if isinstance(middleware, ChatMiddleware):
        return "chat"
    if isinstance(middleware, FunctionMiddleware):
        return "function"
    kind = getattr(middleware, _KIND_ATTRIBUTE, None)
    if kind is not None:
        return cast("MiddlewareKind", kind)
    if callable(middleware):
        parameters = list(inspect.signature(middleware).parameters.values())
        if parameters:
            try:
                hints = get_type_hints(middleware)
            except Exception:  # unresolvable annotations: fall through to the clear error
                hints = {}
            annotation = hints.get(parameters[0].name)
            if annotation in _CONTEXT_KINDS:
                return _CONTEXT_KINDS[annotation]
    raise MiddlewareError(
        f"cannot tell what kind of middleware {middleware!r} is: subclass AgentMiddleware, "
        "ChatMiddleware or FunctionMiddleware, decorate the function with @agent_middleware, "
        "@chat_middleware or @function_middleware, or annotate its first parameter with "
        "AgentContext, ChatContext or FunctionInvocationContext"
    )


def split_middleware(
    middleware: Sequence[MiddlewareTypes] | MiddlewareTypes | None,
) -> dict[MiddlewareKind, list[MiddlewareFunction]]:
    """Sort middleware by kind, each as a plain `(context, call_next)` callable."""
    kinds: dict[MiddlewareKind, list[MiddlewareFunction]] = {
        "agent": [],
        "chat": [],
        "function": [],
    }
    if middleware is None:
        return kinds
    items = cast(
        Sequence[MiddlewareTypes],
        middleware if isinstance(middleware, Sequence) else [middleware],
    )
    for item in items:
        process = getattr(item, "process", None)
        function = cast("MiddlewareFunction", process if process is not None else item)
        kinds[_kind_of(item)].append(function)
    return kinds


async def run_pipeline(
    middleware: Sequence[MiddlewareFunction],
    context: ContextT,
    final: Callable[[ContextT], Awaitable[None]],
) -> None:
    """Run `middleware` in order around `final`; each decides whether to call the next.

    A :class:`MiddlewareTermination` raised anywhere stops the pipeline quietly.
    """
    if not middleware:
        await final(context)
        return

    async def step(index: int) -> None:
        if index == len(middleware):
            await final(context)
            return
        await middleware[index](context, lambda: step(index + 1))

    with suppress(MiddlewareTermination):
        await step(0)
