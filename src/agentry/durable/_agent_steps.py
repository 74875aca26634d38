"""The step boundary of durable agent runs: each model call and each tool call is a step.

Two middleware, added innermost to a run of the agent inside a DBOS workflow, run the
model call and each tool call as DBOS steps. A recovered run gets a completed model call's
response and a completed tool call's result from the record, without calling the model
or the tool again. The tool calls a model response asks for run concurrently, so their
steps are numbered (reserved) in the response's order as soon as the response is known.

The usage limits count over the whole durable run: each model call's response, recorded
or fresh, goes through one guard that lives as long as the run's workflow, so the
requests, tokens and tool calls before a wait for approval, and before a crash (replayed
from their records on recovery), count with those after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from dbos import DBOS

from agentry.durable._errors import DurableRunError, DurableStepError
from agentry.durable._following import MODEL_STEP, TOOL_STEP_PREFIX
from agentry.middleware import (
    ChatContext,
    ChatMiddleware,
    FunctionInvocationContext,
    FunctionMiddleware,
)
from agentry.types import ChatResponse
from agentry.workflows import CheckpointTypeRegistry

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from dbos import StepOptions
    from dbos._dbos import StepReservation

    from agentry.agents import UsageGuard

__all__ = ["AgentSteps"]


def tool_step_name(tool_name: str) -> str:
    """The name of a tool call's step."""
    return f"{TOOL_STEP_PREFIX}{tool_name}"


class AgentSteps:
    """The step-making middleware of one durable agent run (see `middleware()`)."""

    def __init__(
        self, registry: CheckpointTypeRegistry | None = None, *, usage: UsageGuard | None = None
    ) -> None:
        self._registry = registry or CheckpointTypeRegistry()
        self._tool_steps: dict[str, StepReservation] = {}
        self._usage = usage

    def reserve_tool_steps(self, call_ids: list[str]) -> None:
        """Number the steps of these tool calls now, in this order (calls approved after a
        wait, which run concurrently once the agent goes on); forget earlier numbers."""
        self._tool_steps = {call_id: DBOS.reserve_step() for call_id in call_ids}

    def middleware(self) -> list[Any]:
        """The middleware to pass to `agent.run(..., middleware=...)`."""
        return [_ModelCalls(self), _ToolCalls(self)]

    async def model_call(
        self, context: ChatContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        if context.stream:
            raise DurableRunError(
                "a durable agent run does not stream its model calls; run it without stream=True"
            )
        registry = self._registry
        usage = self._usage
        if usage is not None:
            usage.before_request()

        async def call() -> Any:
            await call_next()
            return registry.encode(context.result)

        recorded = await DBOS.run_step_async({"name": MODEL_STEP}, call)
        response = cast(ChatResponse, registry.decode(recorded))
        context.result = response
        calls = [c for m in response.messages for c in m.contents if c.type == "function_call"]
        if usage is not None:
            usage.after_response(response.usage_details)
            if calls:
                usage.before_tool_calls(len(calls))
        for call_content in calls:
            if call_content.call_id:
                self._tool_steps[call_content.call_id] = DBOS.reserve_step()

    async def tool_call(
        self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        registry = self._registry
        failure: list[Exception] = []

        async def call() -> dict[str, Any]:
            try:
                await call_next()
            except Exception as error:
                failure.append(error)
                return {
                    "error": {"type": type(error).__name__, "message": str(error)},
                    "call_id": context.call_id,
                }
            return {
                "result": registry.encode(context.result),
                "terminate": context.terminate,
                "call_id": context.call_id,
            }

        options: StepOptions = {"name": tool_step_name(context.function.name)}
        reservation = self._tool_steps.pop(context.call_id or "", None)
        recorded: dict[str, Any]
        if reservation is not None:
            recorded = await reservation.run_async(options, call)
        else:  # a call no model response of this run announced
            recorded = await DBOS.run_step_async(options, call)
        if "error" in recorded:
            if failure:
                raise failure[0]
            error = cast("dict[str, Any]", recorded["error"])
            raise DurableStepError(
                str(error["message"]), error_type=str(error["type"]), executor_id=None
            )
        context.result = registry.decode(recorded["result"])
        context.terminate = bool(recorded["terminate"])


class _ModelCalls(ChatMiddleware):
    def __init__(self, steps: AgentSteps) -> None:
        self._steps = steps

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        await self._steps.model_call(context, call_next)


class _ToolCalls(FunctionMiddleware):
    def __init__(self, steps: AgentSteps) -> None:
        self._steps = steps

    async def process(
        self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        await self._steps.tool_call(context, call_next)
