"""`@handler` and `@response_handler`, and the dispatch tables built from them.

A handler's signature says what it accepts (the message annotation) and what it may send
and yield (`WorkflowContext[T_Out, T_W_Out]`). All of that is read once, when an executor
is created; delivering a message is then a dictionary lookup by the message's class.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import re
import types
import typing
import weakref
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast, overload

from agentry.workflows._context import WorkflowContext
from agentry.workflows._typing import TypeMatcher, compile_matcher, flatten_union, type_name

__all__ = [
    "Dispatcher",
    "HandlerCall",
    "HandlerEntry",
    "HandlerSpec",
    "ResponseDispatcher",
    "ResponseEntry",
    "handler",
    "handler_spec",
    "response_handler",
    "response_handler_spec",
]

HANDLER_ATTR = "__agentry_workflow_handler__"
RESPONSE_HANDLER_ATTR = "__agentry_workflow_response_handler__"

HandlerCall = Callable[[Any, WorkflowContext[object, object]], Awaitable[Any]]
"""A handler ready to call: `(message, ctx)`, whatever its own signature."""

_FuncT = TypeVar("_FuncT", bound=Callable[..., Any])
_MISSING: Any = object()


@dataclass(frozen=True)
class _HandlerOptions:
    input: Any = _MISSING
    output: Any = _MISSING
    workflow_output: Any = _MISSING


@overload
def handler(func: _FuncT, /) -> _FuncT: ...


@overload
def handler(
    *, input: object = ..., output: object = ..., workflow_output: object = ...
) -> Callable[[_FuncT], _FuncT]: ...


def handler(
    func: Any = None,
    /,
    *,
    input: Any = _MISSING,
    output: Any = _MISSING,
    workflow_output: Any = _MISSING,
) -> Any:
    """Mark an `Executor` method as the handler of the messages its annotation names.

    The handler is `async def name(self, message: T, ctx: WorkflowContext[Out, WOut])`.
    `T` picks the messages it receives (unions, `list[T]`, `Any`, pydantic models and
    dataclasses work); `Out` is what it may send on, `WOut` what it may yield as output.
    The types can also be given explicitly (`@handler(input=str, output=int)`), which wins
    over the annotations. A non-None return value is sent on like `ctx.send_message`.

    Example:
        >>> from agentry.workflows import Executor, WorkflowContext
        >>> class Upper(Executor):
        ...     @handler
        ...     async def upper(self, text: str, ctx: WorkflowContext[str]) -> None:
        ...         await ctx.send_message(text.upper())
    """
    options = _HandlerOptions(input, output, workflow_output)

    def mark(target: _FuncT) -> _FuncT:
        setattr(target, HANDLER_ATTR, options)
        return target

    return mark(func) if func is not None else mark


def response_handler(func: _FuncT) -> _FuncT:
    """Mark an `Executor` method as the receiver of answers to its `ctx.request_info` calls.

    The method is `async def name(self, original_request: Req, response: Resp, ctx)`; it is
    called with the request's data and the caller's answer when both match the annotations.

    Example:
        >>> from agentry.workflows import Executor, WorkflowContext, handler
        >>> class Approver(Executor):
        ...     @handler
        ...     async def ask(self, draft: str, ctx: WorkflowContext) -> None:
        ...         await ctx.request_info(draft, bool)
        ...     @response_handler
        ...     async def on_answer(self, draft: str, approved: bool, ctx: WorkflowContext[str]):
        ...         if approved:
        ...             await ctx.send_message(draft)
    """
    setattr(func, RESPONSE_HANDLER_ATTR, True)
    return func


@dataclass(frozen=True)
class HandlerSpec:
    """What one handler accepts and may emit.

    Attributes:
        name: The handler's name (for messages).
        input_type: The annotation of the messages it accepts.
        output_types: What it may send; None when it does not say.
        workflow_output_types: What it may yield; None when it does not say.
        takes_context: Whether it takes a `WorkflowContext` argument.
    """

    name: str
    input_type: Any
    output_types: tuple[Any, ...] | None
    workflow_output_types: tuple[Any, ...] | None
    takes_context: bool


_READ_SPECS: weakref.WeakKeyDictionary[types.CodeType, dict[Hashable, HandlerSpec]] = (
    weakref.WeakKeyDictionary()
)
"""Specs read before, by the function's code, then by the rest of what a spec depends on:
a workflow built for every run (as durable runs are) makes new closures of its functions,
and reading a signature costs more than the rest of building the workflow."""


def handler_spec(func: Callable[..., object], *, owner: str, is_method: bool) -> HandlerSpec:
    """Read a handler's signature. `owner` names its executor in errors."""
    key = _spec_key(func, is_method)
    if key is None:
        return _read_handler_spec(func, owner=owner, is_method=is_method)
    code, rest = key
    specs = _READ_SPECS.get(code)
    if specs is None:
        specs = _READ_SPECS[code] = {}
    spec = specs.get(rest)
    if spec is None:
        spec = specs[rest] = _read_handler_spec(func, owner=owner, is_method=is_method)
    return spec


def _spec_key(
    func: Callable[..., object], is_method: bool
) -> tuple[types.CodeType, Hashable] | None:
    """What a plain function's spec depends on: its code, name, annotations, the module
    globals its string annotations name, and `@handler` options. None for anything else (a
    wrapper, a callable object), or when one of those cannot be hashed."""
    if (
        type(func) is not types.FunctionType
        or hasattr(func, "__wrapped__")
        or hasattr(func, "__signature__")
    ):
        return None
    rest = (
        func.__name__,
        is_method,
        id(func.__globals__),
        getattr(func, HANDLER_ATTR, None),
        tuple(func.__annotations__.items()),
        _named_globals(func),
    )
    try:
        hash(rest)
    except TypeError:
        return None
    return func.__code__, rest


def _named_globals(func: types.FunctionType) -> tuple[object, ...]:
    """The globals the string annotations of `func` name now (a class defined again, as in
    a notebook, must not keep its old spec)."""
    names = (
        name
        for annotation in func.__annotations__.values()
        if isinstance(annotation, str)
        for name in _names_in(annotation)
    )
    return tuple(func.__globals__.get(name) for name in names)


@functools.lru_cache(maxsize=1024)
def _names_in(annotation: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_NAME.findall(annotation)))


_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def _read_handler_spec(func: Callable[..., object], *, owner: str, is_method: bool) -> HandlerSpec:
    options = cast(_HandlerOptions, getattr(func, HANDLER_ATTR, _HandlerOptions()))
    params = _parameters(func, is_method)
    where = f"handler {func.__name__!r} of {owner}"
    if not 1 <= len(params) <= 2:
        raise TypeError(
            f"{where} must take (message) or (message, ctx), not {len(params)} parameters"
        )
    hints = _type_hints(func, where)
    input_type = options.input
    if input_type is _MISSING:
        if params[0].name not in hints:
            raise TypeError(
                f"{where} needs a type annotation on its message parameter {params[0].name!r} "
                "(it decides which messages reach the handler), or @handler(input=...)"
            )
        input_type = hints[params[0].name]
    takes_context = len(params) == 2
    outputs, workflow_outputs = None, None
    if takes_context and params[1].name in hints:
        outputs, workflow_outputs = _context_types(hints[params[1].name], where)
    returned = hints.get("return", None)
    if returned is not None and flatten_union(returned) not in ([type(None)], []):
        if inspect.isasyncgenfunction(func):
            raise TypeError(f"{where} must be a coroutine function, not an async generator")
        outputs = (*(outputs or ()), *(r for r in flatten_union(returned) if r is not type(None)))
    if options.output is not _MISSING:
        outputs = tuple(flatten_union(options.output))
    if options.workflow_output is not _MISSING:
        workflow_outputs = tuple(flatten_union(options.workflow_output))
    return HandlerSpec(func.__name__, input_type, outputs, workflow_outputs, takes_context)


def response_handler_spec(
    func: Callable[..., object], *, owner: str
) -> tuple[Any, Any, tuple[Any, ...] | None, tuple[Any, ...] | None]:
    """(request type, response type, output types, workflow output types) of a response handler."""
    params = _parameters(func, True)
    where = f"response handler {func.__name__!r} of {owner}"
    if len(params) != 3:
        raise TypeError(f"{where} must take (original_request, response, ctx)")
    hints = _type_hints(func, where)
    missing = [p.name for p in params[:2] if p.name not in hints]
    if missing:
        raise TypeError(f"{where} needs type annotations on {', '.join(missing)}")
    outputs, workflow_outputs = None, None
    if params[2].name in hints:
        outputs, workflow_outputs = _context_types(hints[params[2].name], where)
    return hints[params[0].name], hints[params[1].name], outputs, workflow_outputs


def _parameters(func: Callable[..., object], is_method: bool) -> list[inspect.Parameter]:
    params = [
        p
        for p in inspect.signature(func).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return params[1:] if is_method else params


def _type_hints(func: Callable[..., object], where: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func)
    except Exception as error:
        raise TypeError(f"cannot resolve the type annotations of {where}: {error}") from error


def _context_types(
    annotation: object, where: str
) -> tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]:
    """What a `WorkflowContext[...]` annotation allows: (sends, yields); None means unsaid."""
    if annotation is WorkflowContext or annotation is inspect.Parameter.empty:
        return None, None
    origin = typing.get_origin(annotation)
    if origin is not WorkflowContext:
        raise TypeError(
            f"the context parameter of {where} must be annotated WorkflowContext[...], "
            f"not {type_name(annotation)}"
        )
    args = typing.get_args(annotation)
    sends = tuple(flatten_union(args[0])) if args else ()
    yields = tuple(flatten_union(args[1])) if len(args) > 1 else ()
    return sends, yields


def make_call(func: Callable[..., object], takes_context: bool) -> HandlerCall:
    """A `(message, ctx)` coroutine function around a handler of any supported shape."""
    if not inspect.iscoroutinefunction(func):
        if takes_context:

            async def call_sync_with_context(
                message: object, ctx: WorkflowContext[object, object]
            ) -> Any:
                return await asyncio.to_thread(func, message, ctx)

            return call_sync_with_context

        async def call_sync(message: object, ctx: WorkflowContext[object, object]) -> Any:
            return await asyncio.to_thread(func, message)

        return call_sync
    if takes_context:
        return cast(HandlerCall, func)

    async def call_without_context(message: object, ctx: WorkflowContext[object, object]) -> Any:
        return await func(message)

    return functools.update_wrapper(call_without_context, func)


class HandlerEntry:
    """A handler with its compiled input check."""

    __slots__ = ("call", "matcher", "spec")

    def __init__(self, spec: HandlerSpec, call: HandlerCall) -> None:
        self.spec = spec
        self.call = call
        self.matcher: TypeMatcher = compile_matcher(spec.input_type)


class Dispatcher:
    """Picks the handler for a message: the closest declared type wins.

    Lookups are cached by the message's class whenever the answer cannot depend on the
    value (it can for `list[int]` next to `list[str]`, say).
    """

    __slots__ = ("_cache", "entries")

    def __init__(self, entries: Sequence[HandlerEntry]) -> None:
        self.entries = list(entries)
        self._cache: dict[type, HandlerEntry | None] = {}

    @property
    def input_types(self) -> list[Any]:
        """The declared input types, in handler order."""
        return [entry.spec.input_type for entry in self.entries]

    def find(self, message: object) -> HandlerEntry | None:
        """The handler for `message`, or None when no handler accepts it."""
        cls: type[object] = message.__class__
        try:
            return self._cache[cls]
        except KeyError:
            pass
        best: HandlerEntry | None = None
        best_distance = 1 << 30
        cacheable = True
        for entry in self.entries:
            matcher = entry.matcher
            if matcher.classes is None and issubclass(cls, matcher.outer):
                cacheable = False
            if matcher.check(message):
                distance = matcher.distance(cls)
                if distance < best_distance:
                    best, best_distance = entry, distance
        if cacheable:
            self._cache[cls] = best
        return best


class ResponseEntry:
    """A response handler with its compiled request and response checks."""

    __slots__ = ("call", "name", "request", "response")

    def __init__(
        self,
        name: str,
        request_type: object,
        response_type: object,
        call: Callable[[object, object, WorkflowContext[object, object]], Awaitable[object]],
    ) -> None:
        self.name = name
        self.request = compile_matcher(request_type)
        self.response = compile_matcher(response_type)
        self.call = call


class ResponseDispatcher:
    """Picks the response handler for a (request, response) pair."""

    __slots__ = ("entries",)

    def __init__(self, entries: Sequence[ResponseEntry]) -> None:
        self.entries = list(entries)

    def find(self, request: object, response: object) -> ResponseEntry | None:
        """The closest-typed handler accepting both, or None."""
        candidates = [
            e for e in self.entries if e.request.check(request) and e.response.check(response)
        ]
        if not candidates:
            return None
        return min(
            candidates,
            key=lambda e: (
                e.request.distance(_class(request)) + e.response.distance(_class(response))
            ),
        )


def _class(value: object) -> type[Any]:
    cls: type[object] = value.__class__
    return cls
