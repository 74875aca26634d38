"""Running the tool calls of one model turn, through function middleware."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from agentry.errors import ContentError, ToolArgumentsError, ToolExecutionError
from agentry.middleware import FunctionInvocationContext, MiddlewareFunction, run_pipeline
from agentry.observability import (
    Redactor,
    get_logger,
    get_telemetry_observer,
    is_sensitive_logging_enabled,
    log_failure,
)
from agentry.tools._authorization import AuthorizationRequired
from agentry.tools._function_tool import FunctionTool
from agentry.types import Content

if TYPE_CHECKING:
    from agentry.sessions import AgentSession

__all__ = ["FunctionInvocationConfiguration", "ToolCallBatch", "invoke_function_calls"]

logger = get_logger("agentry.tools")


@dataclass
class FunctionInvocationConfiguration:
    """How an agent runs the tools a model calls.

    Attributes:
        enabled: Run tools at all; when off, function calls are returned to the caller.
        max_iterations: Model calls with tool use per run before the model must answer.
        max_consecutive_errors_per_request: Turns in a row whose tool calls all failed
            before the model must answer without tools.
        terminate_on_unknown_calls: Raise instead of telling the model a tool is unknown.
        include_detailed_errors: Tell the model the message of every exception a tool
            raises, not only its type. Off, only messages meant for the model are told:
            argument errors (about the model's own input) and `ToolExecutionError`s (why
            a tool could not do its work, such as an MCP server's timeout). Told
            messages have common secrets masked (see `agentry.observability.Redactor`).
    """

    enabled: bool = True
    max_iterations: int = 40
    max_consecutive_errors_per_request: int = 3
    terminate_on_unknown_calls: bool = False
    include_detailed_errors: bool = False

    def __post_init__(self) -> None:
        if self.max_iterations < 1:
            raise ValueError("max_iterations must be at least 1")
        if self.max_consecutive_errors_per_request < 0:
            raise ValueError("max_consecutive_errors_per_request must not be negative")


@dataclass(slots=True)
class ToolCallBatch:
    """The outcome of one turn's tool calls."""

    results: list[Content]
    all_failed: bool
    terminate: bool


async def invoke_function_calls(
    calls: Sequence[Content],
    tools: list[Any],
    *,
    middleware: Sequence[MiddlewareFunction],
    config: FunctionInvocationConfiguration,
    session: AgentSession | None = None,
    function_invocation_kwargs: Mapping[str, object] | None = None,
) -> ToolCallBatch:
    """Run `calls` (concurrently when there are several) and return their results.

    Sync tools run in worker threads (unless made with `run_inline=True`), so the calls of
    one turn overlap and the event loop stays free. A failing tool does not fail the run:
    its result tells the model what went wrong. Each call's `FunctionInvocationContext`
    gets its own copy of `function_invocation_kwargs`.

    Raises:
        ToolExecutionError: A call names an unknown tool and
            `config.terminate_on_unknown_calls` is set.
    """
    by_name: dict[str | None, object] = {getattr(t, "name", None): t for t in tools}
    run_kwargs = function_invocation_kwargs or {}
    invoke_one = get_telemetry_observer().tool_calls(_invoke_one)
    if len(calls) == 1:
        result, failed, terminate = await invoke_one(
            calls[0], by_name, tools, middleware, config, session, run_kwargs
        )
        return ToolCallBatch([result], failed, terminate)  # positional: quicker for a class
    outcomes = await asyncio.gather(
        *(invoke_one(c, by_name, tools, middleware, config, session, run_kwargs) for c in calls)
    )
    return ToolCallBatch(
        results=[result for result, _, _ in outcomes],
        all_failed=all(failed for _, failed, _ in outcomes),
        terminate=any(terminate for _, _, terminate in outcomes),
    )


async def _invoke_one(
    call: Content,
    by_name: dict[str | None, object],
    tools: list[Any],
    middleware: Sequence[MiddlewareFunction],
    config: FunctionInvocationConfiguration,
    session: AgentSession | None,
    run_kwargs: Mapping[str, object],
) -> tuple[Content, bool, bool]:
    """One call: (result content, whether it failed, whether middleware asked to stop)."""
    call_id = call.call_id or ""
    function = by_name.get(call.name)
    if not isinstance(function, FunctionTool):
        available = ", ".join(sorted(str(n) for n in by_name if n)) or "none"
        message = f"Error: there is no tool named {call.name!r}. Available tools: {available}."
        if config.terminate_on_unknown_calls:
            raise ToolExecutionError(message.removeprefix("Error: "))
        logger.warning(
            "the model called the unknown tool %s; available tools: %s",
            repr(call.name) if is_sensitive_logging_enabled() else "(name hidden)",
            available,
        )
        return _error_result(call_id, message), True, False
    try:
        arguments = function.validate_arguments(call.parse_arguments())
    except (ToolArgumentsError, ContentError) as error:
        return (
            _error_result(call_id, f"Error: {error}. Fix the arguments and try again."),
            True,
            False,
        )

    try:  # a context only for those who see it: middleware, or a tool that takes it
        if middleware or function.takes_context:
            context = FunctionInvocationContext(
                function=function,
                arguments=arguments,
                call_id=call_id,
                tools=tools,
                session=session,
                kwargs=dict(run_kwargs) if run_kwargs else None,
            )
            if middleware:
                await _call_through(middleware, context, function)
            else:
                context.result = await function.invoke(
                    arguments=arguments, context=context, validated=True
                )
            result, terminate = context.result, context.terminate
        else:
            result = await function.invoke(arguments=arguments, validated=True)
            terminate = False
    except AuthorizationRequired as request:  # not a failure: the run pauses to ask for it
        return (
            Content("function_result", call_id=call_id, result=None, exception=request),
            False,
            False,
        )
    except Exception as error:
        log_failure(logger, f"tool {function.name!r}", error)
        text = _failure_for_model(function.name, error, config)
        return (
            Content("function_result", call_id=call_id, result=text, exception=error),
            True,
            False,
        )
    return Content.from_function_result(call_id=call_id, result=result), False, terminate


async def _call_through(
    middleware: Sequence[MiddlewareFunction],
    context: FunctionInvocationContext,
    function: FunctionTool,
) -> None:
    """Call `function` through function middleware, which may change the arguments."""

    async def call_function(ctx: FunctionInvocationContext) -> None:
        ctx.result = await function.invoke(arguments=ctx.arguments, context=ctx, validated=True)

    await run_pipeline(middleware, context, call_function)


def _failure_for_model(name: str, error: Exception, config: FunctionInvocationConfiguration) -> str:
    """What the model is told when tool `name` raised `error`.

    The message is told when it is meant for the model: argument errors (about its own
    input), `ToolExecutionError`s (written to say why a tool could not do its work, such
    as a remote server's timeout), or every exception with `include_detailed_errors`.
    Secrets of the kinds `Redactor` knows are masked in it. Otherwise the model learns
    which tool failed and the exception's type, enough to choose what to do next.
    """
    kind = type(error).__name__
    detailed = config.include_detailed_errors or isinstance(
        error, ToolArgumentsError | ToolExecutionError
    )
    if detailed and str(error):
        return f"Error: tool {name!r} failed: {kind}: {_default_redactor().redact(str(error))}"
    return (
        f"Error: tool {name!r} failed with {kind} (details are not shown). Retry only if "
        "different arguments could help; otherwise go on without it and say that it failed."
    )


@cache
def _default_redactor() -> Redactor:
    return Redactor()


def _error_result(call_id: str, message: str) -> Content:
    return Content("function_result", call_id=call_id, result=message, exception=None)
