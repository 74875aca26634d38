"""Serve agents as an OpenAI-compatible endpoint (the `openai-server` extra).

Any client of OpenAI's Chat Completions API (the `openai` SDK, chat front ends, agentry's
own `OpenAIChatCompletionClient`) can then talk to an agent or a workflow as if it were a
model: `GET /v1/models` lists the agents, `POST /v1/chat/completions` runs one.

Example:
    >>> from agentry import Agent
    >>> from agentry.clients.scripted import ScriptedChatClient
    >>> from agentry.openai.server import create_app
    >>> app = create_app(Agent(client=ScriptedChatClient(["Hi!"]), name="greeter"))
"""

from agentry.errors import require_extra

require_extra("openai-server", feature="The OpenAI-compatible server")

from agentry.openai.server._app import DEFAULT_MAX_REQUEST_BYTES, create_app  # noqa: E402
from agentry.openai.server._serve import serve  # noqa: E402

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "create_app", "serve"]
