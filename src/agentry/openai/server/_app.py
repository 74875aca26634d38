"""`create_app`: an ASGI application serving agents over OpenAI's Chat Completions API."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentry.agents import SupportsAgentRun
from agentry.openai.server._errors import RequestError, run_failure
from agentry.openai.server._replies import Completion, TextStream
from agentry.openai.server._requests import ChatCompletionRequest, run_inputs
from agentry.types import AgentResponse, AgentResponseUpdate, ResponseStream

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "create_app"]

logger = logging.getLogger("agentry.openai.server")

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""The largest request body served (images come inline, base64)."""

_TOOL_FIELDS = ("tools", "tool_choice", "parallel_tool_calls", "functions", "function_call")


def create_app(
    agents: SupportsAgentRun | Mapping[str, SupportsAgentRun],
    *,
    api_keys: str | Sequence[str] | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
) -> Starlette:
    """An ASGI application that answers Chat Completions requests with agent runs.

    Each agent is a model of the server: `GET /v1/models` lists them and a request's
    `model` picks one. `POST /v1/chat/completions` runs it on the request's messages
    (the whole conversation comes with each request), streamed as server-sent events
    when the request says `stream`. The agent runs its own tools; the answer is its text.

    Args:
        agents: The agent to serve, named by its `name` (`"agent"` without one), or
            agents by model name.
        api_keys: Keys a caller must send as `Authorization: Bearer KEY`; None serves
            everyone.
        max_request_bytes: The largest request body accepted.

    Raises:
        ValueError: No agent, a model name that is empty, or `max_request_bytes` below 1.

    Example:
        >>> from agentry import Agent
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> app = create_app(Agent(client=ScriptedChatClient(["Hi!"]), name="greeter"))
    """
    served = _by_model(agents)
    if max_request_bytes < 1:
        raise ValueError(f"max_request_bytes must be at least 1, not {max_request_bytes}")
    keys = [api_keys] if isinstance(api_keys, str) else list(api_keys or ())
    if any(not key for key in keys):
        raise ValueError("an API key must not be empty")
    server = _Server(served, [key.encode() for key in keys], max_request_bytes)
    routes = [
        Route("/v1/models", server.models, methods=["GET"]),
        Route("/v1/models/{model:path}", server.model, methods=["GET"]),
        Route("/v1/chat/completions", server.chat_completions, methods=["POST"]),
    ]
    return Starlette(routes=routes)


def _by_model(
    agents: SupportsAgentRun | Mapping[str, SupportsAgentRun],
) -> dict[str, SupportsAgentRun]:
    served = dict(agents) if isinstance(agents, Mapping) else {agents.name or "agent": agents}
    if not served:
        raise ValueError("create_app needs an agent to serve")
    if "" in served:
        raise ValueError("a model name must not be empty")
    return served


class _Server:
    """The request handlers, over the served agents."""

    def __init__(
        self, agents: dict[str, SupportsAgentRun], keys: list[bytes], max_request_bytes: int
    ) -> None:
        self.agents = agents
        self.keys = keys
        self.max_request_bytes = max_request_bytes

    async def models(self, request: Request) -> Response:
        """`GET /v1/models`: the served agents."""
        try:
            self._authorize(request)
        except RequestError as error:
            return error.response()
        return JSONResponse({"object": "list", "data": [_model(name) for name in self.agents]})

    async def model(self, request: Request) -> Response:
        """`GET /v1/models/{model}`: one served agent."""
        try:
            self._authorize(request)
            name = request.path_params["model"]
            self._agent(name, param=None)
        except RequestError as error:
            return error.response()
        return JSONResponse(_model(name))

    async def chat_completions(self, request: Request) -> Response:
        """`POST /v1/chat/completions`: run the agent the request names."""
        try:
            self._authorize(request)
            chat = _checked(await self._json(request))
            agent = self._agent(chat.model, param="model")
            try:
                messages, options, response_format = run_inputs(chat)
            except ValueError as error:
                raise RequestError(400, str(error), param="messages") from None
            run_options: dict[str, Any] = {}
            if options:
                run_options["options"] = options
            if response_format is not None:
                run_options["response_format"] = response_format
            completion = Completion(chat.model)
            structured = response_format is not None
            if not chat.stream:
                response = await _run(agent, chat.model, messages, run_options)
                return JSONResponse(completion.of(_complete(response), structured=structured))
            stream = _start(agent, chat.model, messages, run_options)
            first = await _first(stream)
        except RequestError as error:
            return error.response()
        include_usage = bool(chat.stream_options and chat.stream_options.include_usage)
        events = _events(stream, first, completion, structured=structured, usage=include_usage)
        return StreamingResponse(events, media_type="text/event-stream")

    def _authorize(self, request: Request) -> None:
        if not self.keys:
            return
        scheme, _, key = request.headers.get("authorization", "").partition(" ")
        given = key.strip().encode()
        # every key is compared, so the time taken does not tell which one came close
        matches = [hmac.compare_digest(given, known) for known in self.keys]
        if scheme.lower() != "bearer" or not any(matches):
            raise RequestError(
                401,
                "a valid API key is needed: send it as 'Authorization: Bearer KEY'",
                code="invalid_api_key",
            )

    def _agent(self, name: str, *, param: str | None) -> SupportsAgentRun:
        agent = self.agents.get(name)
        if agent is None:
            served = ", ".join(repr(n) for n in self.agents)
            raise RequestError(
                404,
                f"there is no model {name!r} here; this server serves {served}",
                param=param,
                code="model_not_found",
            )
        return agent

    async def _json(self, request: Request) -> object:
        declared = request.headers.get("content-length", "")
        too_large = RequestError(
            413,
            f"the request body is larger than the server accepts ({self.max_request_bytes} bytes)",
        )
        if declared.isdigit() and int(declared) > self.max_request_bytes:
            raise too_large
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > self.max_request_bytes:
                raise too_large
        try:
            return json.loads(body)
        except ValueError as error:
            raise RequestError(400, f"the request body is not JSON: {error}") from None


def _model(name: str) -> dict[str, object]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "agentry"}


def _checked(body: object) -> ChatCompletionRequest:
    """The request in `body`, or a 400 that names each field at fault."""
    if isinstance(body, dict):
        declared = [f for f in _TOOL_FIELDS if f in body]
        if declared:
            raise RequestError(
                400,
                f"{declared[0]}: the served agent runs its own tools, so a request cannot "
                "declare tools; leave out " + ", ".join(declared),
                param=declared[0],
                code="unsupported_parameter",
            )
    try:
        return ChatCompletionRequest.model_validate(body)
    except ValidationError as error:
        problems = [_problem(e) for e in error.errors(include_url=False)]
        first = error.errors(include_url=False)[0]["loc"]
        raise RequestError(
            400, "; ".join(problems), param=".".join(str(p) for p in first) or None
        ) from None


def _problem(error: Any) -> str:
    where = ".".join(str(p) for p in error["loc"]) or "the body"
    if error["type"] == "extra_forbidden":
        return f"{where}: not supported by this server; leave it out"
    return f"{where}: {error['msg']}"


def _run_call(agent: SupportsAgentRun, model: str, call: Any) -> Any:
    """`call()`, an agent's run, with a clear answer when the agent does not take the
    request's options."""
    try:
        return call()
    except TypeError as error:
        raise RequestError(
            400,
            f"the model {model!r} ({type(agent).__name__}) does not take the request's options "
            f"({error}); leave out the sampling options and response_format",
            code="unsupported_parameter",
        ) from None


async def _run(
    agent: SupportsAgentRun, model: str, messages: list[Any], options: dict[str, Any]
) -> AgentResponse[Any]:
    pending = _run_call(agent, model, lambda: agent.run(messages, **options))
    try:
        return await pending
    except Exception as error:
        raise _answer_to(error) from error


def _start(
    agent: SupportsAgentRun, model: str, messages: list[Any], options: dict[str, Any]
) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
    return _run_call(agent, model, lambda: agent.run(messages, stream=True, **options))


async def _first(
    stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]],
) -> AgentResponseUpdate | None:
    """The stream's first update, read before the answer starts so that a run that fails
    at once is answered with its own status."""
    try:
        return await anext(aiter(stream))
    except StopAsyncIteration:
        return None
    except Exception as error:
        await stream.aclose()
        raise _answer_to(error) from error


def _answer_to(error: Exception) -> RequestError:
    answer = run_failure(error)
    if answer is None:
        logger.exception("the agent failed", exc_info=error)
        return RequestError(500, "the agent failed; the server's log says why", type="server_error")
    return answer


def _complete(response: AgentResponse[Any]) -> AgentResponse[Any]:
    """`response`, unless it stopped to ask the caller for input, which this API cannot."""
    requests = response.user_input_requests
    if requests:
        raise RequestError(
            422,
            f"the agent stopped to ask for {_asked(requests[0])}, which the Chat Completions "
            "API cannot carry; serve agents whose tools need approval over A2A "
            "(agentry serve a2a)",
            type="server_error",
            code="input_required",
        )
    return response


def _asked(request: Any) -> str:
    if request.type == "function_approval_request":
        call = request.function_call
        return f"approval of a call of {getattr(call, 'name', None)!r}"
    return "a credential" if request.type == "authorization_request" else "input"


async def _events(
    stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]],
    first: AgentResponseUpdate | None,
    completion: Completion,
    *,
    structured: bool,
    usage: bool,
) -> AsyncIterator[str]:
    """The server-sent events of a streamed answer: the text as it comes (a structured
    answer whole, once validated), the finish reason, the usage if asked, `[DONE]`."""
    yield _event(completion.chunk(role="assistant", content=""))
    try:
        text = TextStream()
        async for update in _updates(first, stream):
            delta = text.text_of(update)
            if delta and not structured:
                yield _event(completion.chunk(content=delta))
        response = _complete(await stream.get_final_response())
        if structured:
            yield _event(completion.chunk(content=json.dumps(response.value, ensure_ascii=False)))
        yield _event(completion.chunk(finish=response.finish_reason or "stop"))
        if usage:
            yield _event(completion.usage_chunk(response.usage_details))
    except Exception as error:
        answer = error if isinstance(error, RequestError) else _answer_to(error)
        yield _event(answer.body())
        return
    finally:
        await stream.aclose()
    yield "data: [DONE]\n\n"


async def _updates(
    first: AgentResponseUpdate | None,
    stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]],
) -> AsyncIterator[AgentResponseUpdate]:
    if first is None:
        return
    yield first
    async for update in stream:
        yield update


def _event(data: object) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"
