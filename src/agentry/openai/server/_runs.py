"""Running a served agent for a request: its options, its failures as answers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from agentry.agents import SupportsAgentRun
from agentry.errors import AgentryError
from agentry.openai.server._errors import RequestError, run_failure
from agentry.types import AgentResponse, AgentResponseUpdate, Message, ResponseStream

__all__ = ["AgentStream", "complete", "first_update", "run_agent", "start_agent", "updates"]

logger = logging.getLogger("agentry.openai.server")

AgentStream = ResponseStream[AgentResponseUpdate, AgentResponse[Any]]


async def run_agent(
    agent: SupportsAgentRun, model: str, messages: list[Message], options: dict[str, Any]
) -> AgentResponse[Any]:
    """The agent's response to `messages`, its failure as the answer to give."""
    pending = _call(agent, model, lambda: agent.run(messages, **options))
    try:
        response = await pending
    except Exception as error:
        raise answer_to(error) from error
    return complete(response)


def start_agent(
    agent: SupportsAgentRun, model: str, messages: list[Message], options: dict[str, Any]
) -> AgentStream:
    """The agent's run on `messages`, streamed."""
    return _call(agent, model, lambda: agent.run(messages, stream=True, **options))


async def first_update(stream: AgentStream) -> AgentResponseUpdate | None:
    """The stream's first update, read before the answer starts so that a run that fails
    at once is answered with its own status."""
    try:
        return await anext(aiter(stream))
    except StopAsyncIteration:
        return None
    except Exception as error:
        await stream.aclose()
        raise answer_to(error) from error


async def updates(
    first: AgentResponseUpdate | None, stream: AgentStream
) -> AsyncIterator[AgentResponseUpdate]:
    """`first`, then the rest of `stream`."""
    if first is None:
        return
    yield first
    async for update in stream:
        yield update


def answer_to(error: Exception) -> RequestError:
    """The answer to a run that raised `error` (an unexpected error is logged)."""
    if isinstance(error, RequestError):
        return error
    answer = run_failure(error)
    if answer is None:
        logger.exception("the agent failed", exc_info=error)
        return RequestError(500, "the agent failed; the server's log says why", type="server_error")
    return answer


def complete(response: AgentResponse[Any]) -> AgentResponse[Any]:
    """`response`, unless it stopped to ask the caller for input, which these APIs cannot
    carry."""
    requests = response.user_input_requests
    if requests:
        raise RequestError(
            422,
            f"the agent stopped to ask for {_asked(requests[0])}, which the OpenAI API "
            "cannot carry; serve agents whose tools need approval over A2A "
            "(agentry serve a2a)",
            type="server_error",
            code="input_required",
        )
    return response


def _call(agent: SupportsAgentRun, model: str, call: Callable[[], Any]) -> Any:
    """`call()`, an agent's run, with a clear answer when the agent does not take the
    request's options."""
    try:
        return call()
    except AgentryError as error:
        raise answer_to(error) from error
    except TypeError as error:
        raise RequestError(
            400,
            f"the model {model!r} ({type(agent).__name__}) does not take the request's options "
            f"({error}); leave out the sampling options, the tools and the response format",
            code="unsupported_parameter",
        ) from None


def _asked(request: Any) -> str:
    if request.type == "function_approval_request":
        call = request.function_call
        return f"approval of a call of {getattr(call, 'name', None)!r}"
    return "a credential" if request.type == "authorization_request" else "input"
