"""`create_app`: an ASGI application serving agents over OpenAI's API."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agentry._http import BearerKeys
from agentry.agents import SupportsAgentRun
from agentry.openai.server._chat_route import chat_completions
from agentry.openai.server._errors import RequestError
from agentry.openai.server._response_store import InMemoryResponseStore, ResponseStore
from agentry.openai.server._responses_route import create_response, delete_response, get_response
from agentry.openai.server._served import Served

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "create_app"]

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""The largest request body served (images come inline, base64)."""


def create_app(
    agents: SupportsAgentRun | Mapping[str, SupportsAgentRun],
    *,
    api_keys: str | Sequence[str] | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    response_store: ResponseStore | None = None,
) -> Starlette:
    """An ASGI application that answers OpenAI API requests with agent runs.

    Each agent is a model of the server: `GET /v1/models` lists them and a request's
    `model` picks one. `POST /v1/chat/completions` runs it on the request's messages
    (the whole conversation comes with each request); `POST /v1/responses` runs it on
    the request's input after the stored conversation its `previous_response_id` names.
    Both stream server-sent events when the request says `stream`. The agent runs its
    own tools; the answer is its text.

    Args:
        agents: The agent to serve, named by its `name` (`"agent"` without one), or
            agents by model name.
        api_keys: Keys a caller must send as `Authorization: Bearer KEY`; None serves
            everyone.
        max_request_bytes: The largest request body accepted.
        response_store: Where responses are stored for `previous_response_id` (default:
            in memory, the latest 10,000); a `SQLResponseStore` shares them between
            servers and keeps them across restarts. The application closes it on shutdown.

    Raises:
        ValueError: No agent, a model name that is empty, an empty key, or
            `max_request_bytes` below 1.

    Example:
        >>> from agentry import Agent
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> app = create_app(Agent(client=ScriptedChatClient(["Hi!"]), name="greeter"))
    """
    if max_request_bytes < 1:
        raise ValueError(f"max_request_bytes must be at least 1, not {max_request_bytes}")
    served = Served(_by_model(agents), BearerKeys(api_keys), max_request_bytes)
    store = response_store if response_store is not None else InMemoryResponseStore()
    routes = [
        Route("/v1/models", partial(_models, served), methods=["GET"]),
        Route("/v1/models/{model:path}", partial(_model, served), methods=["GET"]),
        Route("/v1/chat/completions", partial(chat_completions, served), methods=["POST"]),
        Route("/v1/responses", partial(create_response, served, store), methods=["POST"]),
        Route("/v1/responses/{response_id}", partial(get_response, served, store), methods=["GET"]),
        Route(
            "/v1/responses/{response_id}",
            partial(delete_response, served, store),
            methods=["DELETE"],
        ),
    ]
    return Starlette(routes=routes, lifespan=partial(_closing, store))


@asynccontextmanager
async def _closing(store: ResponseStore, app: Starlette) -> AsyncGenerator[None, None]:
    """The application's lifespan: the response store is closed at shutdown."""
    try:
        yield
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            await close()


def _by_model(
    agents: SupportsAgentRun | Mapping[str, SupportsAgentRun],
) -> dict[str, SupportsAgentRun]:
    served = dict(agents) if isinstance(agents, Mapping) else {agents.name or "agent": agents}
    if not served:
        raise ValueError("create_app needs an agent to serve")
    if "" in served:
        raise ValueError("a model name must not be empty")
    return served


async def _models(served: Served, request: Request) -> Response:
    """`GET /v1/models`: the served agents."""
    try:
        served.authorize(request)
    except RequestError as error:
        return error.response()
    return JSONResponse({"object": "list", "data": [_model_object(n) for n in served.agents]})


async def _model(served: Served, request: Request) -> Response:
    """`GET /v1/models/{model}`: one served agent."""
    try:
        served.authorize(request)
        name = request.path_params["model"]
        served.agent(name, param=None)
    except RequestError as error:
        return error.response()
    return JSONResponse(_model_object(name))


def _model_object(name: str) -> dict[str, object]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "agentry"}
