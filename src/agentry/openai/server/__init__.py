"""Serve agents as an OpenAI-compatible endpoint (the `openai-server` extra).

Any client of OpenAI's Chat Completions or Responses API (the `openai` SDK, chat front
ends, agentry's own OpenAI clients) can then talk to an agent or a workflow as if it were
a model: `GET /v1/models` lists the agents, `POST /v1/chat/completions` and
`POST /v1/responses` run one.

Example:
    >>> from agentry import Agent
    >>> from agentry.clients.scripted import ScriptedChatClient
    >>> from agentry.openai.server import create_app
    >>> app = create_app(Agent(client=ScriptedChatClient(["Hi!"]), name="greeter"))
"""

from agentry.errors import require_extra

require_extra("openai-server", feature="The OpenAI-compatible server")

from agentry.openai.server._app import DEFAULT_MAX_REQUEST_BYTES, create_app  # noqa: E402
from agentry.openai.server._response_store import (  # noqa: E402
    InMemoryResponseStore,
    ResponseStore,
    SQLResponseStore,
    StoredResponse,
)
from agentry.openai.server._serve import serve  # noqa: E402

__all__ = [
    "DEFAULT_MAX_REQUEST_BYTES",
    "InMemoryResponseStore",
    "ResponseStore",
    "SQLResponseStore",
    "StoredResponse",
    "create_app",
    "serve",
]
