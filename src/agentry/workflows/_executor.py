"""`Executor`: a node of a workflow graph, with typed handlers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

from agentry.workflows._context import WorkflowContext
from agentry.workflows._errors import WorkflowRunnerException
from agentry.workflows._handlers import (
    HANDLER_ATTR,
    RESPONSE_HANDLER_ATTR,
    Dispatcher,
    HandlerEntry,
    HandlerSpec,
    ResponseDispatcher,
    ResponseEntry,
    handler_spec,
    make_call,
    response_handler_spec,
)
from agentry.workflows._typing import type_name

if TYPE_CHECKING:
    from agentry.workflows._run_state import ResponseDelivery

__all__ = ["Executor"]

_Emits = tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]


class _ClassHandlers:
    """The handler signatures of one Executor class, read once per class."""

    __slots__ = ("handlers", "responses")

    def __init__(
        self,
        handlers: list[tuple[str, HandlerSpec]],
        responses: list[tuple[str, Any, Any, _Emits]],
    ) -> None:
        self.handlers = handlers
        self.responses = responses


class Executor:
    """A workflow node: methods marked `@handler` receive the messages their type names.

    Subclass it, give each handler a typed message parameter and a `WorkflowContext`, and
    add instances to a `WorkflowBuilder`. Keep per-run state in `ctx.set_state` or save it
    in `on_checkpoint_save` so that checkpoints capture it.

    Args:
        id: The executor's id, unique in its workflow (default: the class name).

    Example:
        >>> from agentry.workflows import Executor, WorkflowContext, handler
        >>> class Reverse(Executor):
        ...     @handler
        ...     async def reverse(self, text: str, ctx: WorkflowContext[str]) -> None:
        ...         await ctx.send_message(text[::-1])
        >>> Reverse(id="reverse").input_types
        [<class 'str'>]
    """

    def __init__(self, id: str | None = None) -> None:
        if id is not None and (not isinstance(id, str) or not id):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"an executor id must be a non-empty string, not {id!r}")
        self.id: str = id or type(self).__name__
        handlers, responses, emits = self._build_handlers()
        if not handlers and not responses:
            raise TypeError(
                f"{type(self).__name__} has no @handler methods; an executor needs at least "
                "one handler to receive messages"
            )
        self._dispatcher = Dispatcher(handlers)
        self._responses = ResponseDispatcher(responses)
        self._emits: list[_Emits] = emits

    # region handler discovery

    def _build_handlers(self) -> tuple[list[HandlerEntry], list[ResponseEntry], list[_Emits]]:
        """The handlers of this instance. Subclasses that are not method-based override it."""
        specs = _handlers_of(type(self))
        handlers: list[HandlerEntry] = []
        emits: list[_Emits] = []
        for name, spec in specs.handlers:
            bound = getattr(self, name)
            handlers.append(HandlerEntry(spec, make_call(bound, spec.takes_context)))
            emits.append((spec.output_types, spec.workflow_output_types))
        responses: list[ResponseEntry] = []
        for name, request_type, response_type, response_emits in specs.responses:
            call = cast(Callable[..., Any], getattr(self, name))
            responses.append(ResponseEntry(name, request_type, response_type, call))
            emits.append(response_emits)
        return handlers, responses, emits

    # endregion

    # region declared types

    @property
    def input_types(self) -> list[Any]:
        """The message types this executor's handlers accept."""
        return self._dispatcher.input_types

    @property
    def output_types(self) -> list[Any] | None:
        """The message types it may send; None when some handler does not say."""
        return _union_of(e[0] for e in self._emits)

    @property
    def workflow_output_types(self) -> list[Any] | None:
        """The output types it may yield; None when some handler does not say."""
        return _union_of(e[1] for e in self._emits)

    def can_handle(self, message: object) -> bool:
        """Whether some handler accepts `message`."""
        return self.find_handler(message) is not None

    def find_handler(self, message: Any) -> HandlerEntry | None:
        """The handler that takes `message` (the most specific type match), or None."""
        return self._dispatcher.find(message)

    def checkpoint_types(self) -> list[Any]:
        """Types this executor's messages may have; a checkpoint may restore them."""
        types = [*self.input_types, *(self.output_types or ()), *(self.workflow_output_types or ())]
        for entry in self._responses.entries:
            types.extend((entry.request.annotation, entry.response.annotation))
        return types

    # endregion

    # region running

    async def handle_response(
        self, request_data: object, response: object, ctx: WorkflowContext[object, object]
    ) -> None:
        """Deliver the answer to a request this executor made (to its `@response_handler`).

        Raises:
            WorkflowRunnerException: No response handler accepts this request and answer.
        """
        entry = self._responses.find(request_data, response)
        if entry is None:
            raise WorkflowRunnerException(
                f"executor {self.id!r} has no @response_handler for a "
                f"{type_name(type(request_data))} request answered with a "
                f"{type_name(type(response))}; add one taking (original_request, response, ctx)"
            )
        await entry.call(request_data, response, ctx)

    async def deliver_response(
        self, delivery: ResponseDelivery, ctx: WorkflowContext[object, object]
    ) -> None:
        """Take an answer to one of its requests from the runner and pass it to the matching
        `@response_handler` (sub-workflows override this to route it by request id)."""
        await self.handle_response(delivery.request.data, delivery.response, ctx)

    async def on_checkpoint_save(self) -> dict[str, Any]:
        """State of this executor to keep in a checkpoint (plain data or registered types)."""
        return {}

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        """Restore what `on_checkpoint_save` returned."""

    # endregion

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r})"


_CLASS_HANDLERS: dict[type, _ClassHandlers] = {}
"""The handlers found on each executor class, found once per class."""


def _handlers_of(cls: type) -> _ClassHandlers:
    cached = _CLASS_HANDLERS.get(cls)
    if cached is not None:
        return cached
    handlers: list[tuple[str, HandlerSpec]] = []
    responses: list[tuple[str, object, object, _Emits]] = []
    seen: set[str] = set()
    for klass in cls.__mro__:
        for name, member in vars(klass).items():
            if name in seen or not callable(member):
                continue
            seen.add(name)
            owner = f"{cls.__name__}"
            if hasattr(member, HANDLER_ATTR):
                handlers.append((name, handler_spec(member, owner=owner, is_method=True)))
            elif hasattr(member, RESPONSE_HANDLER_ATTR):
                request, response, sends, yields = response_handler_spec(member, owner=owner)
                responses.append((name, request, response, (sends, yields)))
    result = _ClassHandlers(handlers, responses)
    _CLASS_HANDLERS[cls] = result
    return result


def _union_of(groups: Iterable[tuple[object, ...] | None]) -> list[Any] | None:
    merged: list[object] = []
    for group in groups:
        if group is None:
            return None
        merged.extend(t for t in group if t not in merged)
    return merged
