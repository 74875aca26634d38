"""`create_app`: an ASGI application that runs an agent for AG-UI front ends."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from functools import partial
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentry._http import BearerKeys, HTTPProblem, read_json
from agentry.ag_ui._events import RunEvents
from agentry.ag_ui._inputs import run_messages, run_tools
from agentry.agents import SupportsAgentRun
from agentry.errors import AgentryError
from agentry.types import AgentResponse, AgentResponseUpdate, Message, ResponseStream

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "create_app"]

logger = logging.getLogger("agentry.ag_ui")

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""The largest run input served (images come inline, base64)."""


def create_app(
    agent: SupportsAgentRun,
    *,
    path: str = "/",
    api_keys: str | Sequence[str] | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
) -> Starlette:
    """An ASGI application that runs `agent` for AG-UI clients.

    `POST path` takes a `RunAgentInput` (the conversation, the front end's tools, its
    context) and streams the run as AG-UI events: the text and reasoning as they come,
    every tool call, the results of the agent's own tools, and the end of the run. A call
    of a front-end tool ends the run for the front end to run it and start the next.

    Args:
        agent: The agent (or workflow agent) to run.
        path: Where the endpoint is.
        api_keys: Keys a caller must send as `Authorization: Bearer KEY`; None serves
            everyone.
        max_request_bytes: The largest run input accepted.

    Raises:
        ValueError: An empty key, a path that does not start with `/`, or
            `max_request_bytes` below 1.

    Example:
        >>> from agentry import Agent
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> app = create_app(Agent(client=ScriptedChatClient(["Hi!"])))
    """
    if not path.startswith("/"):
        raise ValueError(f"path must start with '/', not {path!r}")
    if max_request_bytes < 1:
        raise ValueError(f"max_request_bytes must be at least 1, not {max_request_bytes}")
    handler = partial(_run, agent, BearerKeys(api_keys), max_request_bytes)
    return Starlette(routes=[Route(path, handler, methods=["POST"])])


async def _run(
    agent: SupportsAgentRun, keys: BearerKeys, max_request_bytes: int, request: Request
) -> Response:
    try:
        keys.check(request.headers.get("authorization"))
        run_input = _checked(await read_json(request, max_request_bytes))
        try:
            messages = run_messages(run_input)
        except ValueError as error:
            raise HTTPProblem(400, f"messages: {error}") from None
    except HTTPProblem as problem:
        body = {"error": {"message": problem.message, "code": problem.code}}
        headers = {"WWW-Authenticate": "Bearer"} if problem.status == 401 else None
        return JSONResponse(body, status_code=problem.status, headers=headers)
    encoder = EventEncoder(accept=request.headers.get("accept") or "text/event-stream")
    events = _events(agent, run_input, messages, encoder)
    return StreamingResponse(events, media_type=encoder.get_content_type())


def _checked(body: object) -> RunAgentInput:
    try:
        return RunAgentInput.model_validate(body)
    except ValidationError as error:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'the body'}: {e['msg']}"
            for e in error.errors(include_url=False)
        ]
        raise HTTPProblem(400, "; ".join(problems)) from None


async def _events(
    agent: SupportsAgentRun, run_input: RunAgentInput, messages: list[Message], encoder: Any
) -> AsyncIterator[str]:
    run = RunEvents(run_input.thread_id, run_input.run_id)
    for event in run.started():
        yield encoder.encode(event)
    tools = run_tools(run_input)
    options: dict[str, Any] = {"tools": tools} if tools else {}
    stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]] | None = None
    try:
        try:
            stream = agent.run(messages, stream=True, **options)
        except TypeError as error:
            raise AgentryError(
                f"the agent ({type(agent).__name__}) does not take the front end's tools "
                f"({error}); serve an Agent to give it tools"
            ) from None
        async for update in stream:
            for event in run.of(update):
                yield encoder.encode(event)
        response = await stream.get_final_response()
        asked = response.user_input_requests
        ended = run.finished() if not asked else run.failed(_cannot_ask(asked[0]), "input_required")
    except Exception as error:
        ended = run.failed(*_failure(error))
    finally:
        if stream is not None:
            await stream.aclose()
    for event in ended:
        yield encoder.encode(event)


def _cannot_ask(request: Any) -> str:
    what = "a credential" if request.type == "authorization_request" else "a tool approval"
    return (
        f"the agent stopped to ask for {what}, which this server cannot carry over AG-UI: "
        "make the tool a front-end tool, or serve the agent over A2A (agentry serve a2a)"
    )


def _failure(error: Exception) -> tuple[str, str]:
    """(message, code) of a run that raised `error`; an unexpected error is logged and
    told without its details."""
    if isinstance(error, AgentryError):
        return str(error), type(error).__name__
    logger.exception("the agent failed", exc_info=error)
    return "the agent failed; the server's log says why", "internal_error"
