"""Serve an agent to AG-UI front ends (the `ag-ui` extra).

AG-UI is the event protocol between agents and user interfaces (CopilotKit and others):
the front end posts the conversation, its own tools and context; the server streams the
run as events. `create_app(agent)` is the ASGI application; `agentry serve ag-ui
MODULE:OBJECT` runs one.

Example:
    >>> from agentry import Agent
    >>> from agentry.clients.scripted import ScriptedChatClient
    >>> from agentry.ag_ui import create_app
    >>> app = create_app(Agent(client=ScriptedChatClient(["Hi!"])))
"""

from agentry.errors import require_extra

require_extra("ag-ui", feature="The AG-UI server")

from agentry.ag_ui._app import DEFAULT_MAX_REQUEST_BYTES, create_app  # noqa: E402

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "create_app"]
