"""The outermost step of every agent run: agent middleware around the run's update stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from agentry.middleware import AgentContext, MiddlewareFunction, run_pipeline
from agentry.observability import get_telemetry_observer
from agentry.types import AgentResponse, AgentResponseUpdate, Message, ResponseStream

if TYPE_CHECKING:
    from agentry.sessions import AgentSession

__all__ = ["RunCore", "RunRespond", "run_with_agent_middleware"]

RunCore = Callable[[AgentContext], AsyncIterator[AgentResponseUpdate]]
"""The run itself, streaming: the updates it produces for an agent context."""
RunRespond = Callable[[AgentContext], Awaitable[AgentResponse]]
"""The run itself, not streaming: the response it produces (the fold of its updates)."""


def run_with_agent_middleware(
    agent: Any,
    middleware: Sequence[MiddlewareFunction],
    messages: list[Message],
    session: AgentSession | None,
    *,
    stream: bool,
    core: RunCore,
    respond: RunRespond | None = None,
    response_format: Any,
    options: Any = None,
    kwargs: Mapping[str, object] | None = None,
    function_invocation_kwargs: Mapping[str, object] | None = None,
) -> Awaitable[AgentResponse] | ResponseStream[AgentResponseUpdate, AgentResponse]:
    """Run inside the agent middleware: stream `core`, or get the response from `respond`
    (by default, the fold of `core`'s updates).

    `kwargs` are the keywords a custom agent's own `run` declares;
    `function_invocation_kwargs` are the run's values for its tools.
    """
    context = AgentContext(
        agent=agent,
        messages=messages,
        session=session,
        options=options,
        stream=stream,
        kwargs=dict(kwargs) if kwargs else None,
        function_invocation_kwargs=(
            dict(function_invocation_kwargs) if function_invocation_kwargs else None
        ),
    )
    observer = get_telemetry_observer()
    finalize = _Finalize(getattr(agent, "id", None), response_format)
    if stream:
        updates = (
            _stream_through(middleware, context, core, finalize) if middleware else core(context)
        )
        updates = observer.agent_stream(agent, messages, session, options, updates)
        return ResponseStream(updates, finalize)
    respond_core = respond or _FoldCore(core, finalize)
    result = (
        _respond_through(middleware, context, respond_core, finalize)
        if middleware
        else respond_core(context)
    )
    return observer.agent_response(agent, messages, session, options, result)


class _Finalize:
    """Folds a run's updates into its response, with the agent's id."""

    __slots__ = ("agent_id", "response_format")

    def __init__(self, agent_id: str | None, response_format: Any) -> None:
        self.agent_id = agent_id
        self.response_format = response_format

    def __call__(self, updates: list[AgentResponseUpdate]) -> AgentResponse:
        response = AgentResponse.from_updates(updates, response_format=self.response_format)
        if response.agent_id is None:
            response.agent_id = self.agent_id
        return response


class _FoldCore:
    """A run's response as the fold of its core's updates."""

    __slots__ = ("core", "finalize")

    def __init__(self, core: RunCore, finalize: _Finalize) -> None:
        self.core = core
        self.finalize = finalize

    def __call__(self, context: AgentContext) -> Awaitable[AgentResponse]:
        return ResponseStream(self.core(context), self.finalize).get_final_response()


async def _respond_through(
    middleware: Sequence[MiddlewareFunction],
    context: AgentContext,
    respond: RunRespond,
    finalize: Callable[[list[AgentResponseUpdate]], AgentResponse],
) -> AgentResponse:
    async def run(ctx: AgentContext) -> None:
        ctx.result = await respond(ctx)

    await run_pipeline(middleware, context, run)
    result: object = context.result
    if isinstance(result, AgentResponse):
        return cast("AgentResponse", result)
    return finalize([])


async def _stream_through(
    middleware: Sequence[MiddlewareFunction],
    context: AgentContext,
    core: RunCore,
    finalize: Callable[[list[AgentResponseUpdate]], AgentResponse],
) -> AsyncIterator[AgentResponseUpdate]:
    async def run(ctx: AgentContext) -> None:
        ctx.result = ResponseStream(core(ctx), finalize)

    await run_pipeline(middleware, context, run)
    result = context.result
    if result is None:
        return
    if isinstance(result, AgentResponse):
        for update in result.to_updates():
            yield update
        return
    async for update in result:
        yield update
