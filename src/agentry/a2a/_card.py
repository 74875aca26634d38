"""Building an A2A agent card from an agentry agent, and serving it with cache headers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timezone
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any

from a2a.server.routes import create_agent_card_routes
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT, TransportProtocol
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from agentry.agents import SupportsAgentRun
from agentry.tools import FunctionTool

__all__ = [
    "DEFAULT_CARD_CACHE_CONTROL",
    "DEFAULT_INPUT_MODES",
    "DEFAULT_OUTPUT_MODES",
    "build_agent_card",
    "card_routes",
]

DEFAULT_INPUT_MODES = ("text/plain", "application/json")
DEFAULT_OUTPUT_MODES = ("text/plain", "application/json")

DEFAULT_CARD_CACHE_CONTROL = "public, max-age=300"
"""How long clients may keep the agent card without asking again: five minutes."""


def build_agent_card(
    agent: SupportsAgentRun,
    *,
    url: str,
    name: str | None = None,
    description: str | None = None,
    version: str = "1.0.0",
    skills: Sequence[AgentSkill] | None = None,
    streaming: bool = True,
    input_modes: Sequence[str] = DEFAULT_INPUT_MODES,
    output_modes: Sequence[str] = DEFAULT_OUTPUT_MODES,
    **overrides: Any,
) -> AgentCard:
    """The agent card describing `agent` served at `url`.

    Skills come from the agent's tools (one skill per function tool); an agent without
    tools gets one skill that is the agent itself. The card offers the JSON-RPC binding at
    `url` and the HTTP+JSON binding at `url` too (their paths do not overlap).

    Args:
        agent: The agent the card describes.
        url: The base URL the server is reachable at, such as `http://127.0.0.1:8000`.
        name: The card's name (default: the agent's name).
        description: The card's description (default: the agent's description).
        version: The version of the agent.
        skills: Skills to list instead of the ones derived from the tools.
        streaming: Whether the server streams (`message/stream`).
        input_modes: Media types the agent accepts.
        output_modes: Media types the agent produces.
        **overrides: Further `AgentCard` fields, such as `provider` or `documentation_url`.

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> agent = ScriptedChatClient(["Hi"]).as_agent(name="greeter", description="Greets.")
        >>> build_agent_card(agent, url="http://127.0.0.1:8000").name
        'greeter'
    """
    base = url.rstrip("/")
    card_name = name or agent.name or "agentry agent"
    card_description = description or agent.description or f"The {card_name} agent."
    return AgentCard(
        name=card_name,
        description=card_description,
        version=version,
        supported_interfaces=[
            AgentInterface(
                url=base + "/",
                protocol_binding=TransportProtocol.JSONRPC.value,
                protocol_version=PROTOCOL_VERSION_CURRENT,
            ),
            AgentInterface(
                url=base,
                protocol_binding=TransportProtocol.HTTP_JSON.value,
                protocol_version=PROTOCOL_VERSION_CURRENT,
            ),
        ],
        capabilities=AgentCapabilities(streaming=streaming, push_notifications=False),
        default_input_modes=list(input_modes),
        default_output_modes=list(output_modes),
        skills=list(skills)
        if skills is not None
        else _skills_of(agent, card_name, card_description),
        **overrides,
    )


def _skills_of(agent: SupportsAgentRun, name: str, description: str) -> list[AgentSkill]:
    tools: list[Any] = list(getattr(agent, "tools", None) or [])
    skills = [
        AgentSkill(
            id=tool.name,
            name=tool.name,
            description=tool.description or f"The {tool.name} tool.",
            tags=["tool"],
        )
        for tool in tools
        if isinstance(tool, FunctionTool)
    ]
    if skills:
        return skills
    skill_id = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-") or "agent"
    return [AgentSkill(id=skill_id, name=name, description=description, tags=["agent"])]


def card_routes(
    card: AgentCard, *, cache_control: str | None, last_modified: datetime
) -> list[BaseRoute]:
    """The route serving `card` with `ETag`, `Cache-Control` and `Last-Modified` headers.

    A request with `If-None-Match` (the card's ETag) or `If-Modified-Since` (not before
    `last_modified`) gets `304 Not Modified`.
    """
    changed = last_modified.astimezone(timezone.utc).replace(microsecond=0)
    stamp = format_datetime(changed, usegmt=True)
    routes: list[BaseRoute] = []
    for route in create_agent_card_routes(card, cache_control=cache_control):
        assert isinstance(route, Route)
        served = route.endpoint

        async def endpoint(request: Request, served: Any = served) -> Response:
            response: Response = await served(request)
            response.headers["Last-Modified"] = stamp
            if response.status_code == 200 and _unchanged_since(request, changed):
                headers = {
                    k: v
                    for k, v in response.headers.items()
                    if k not in ("content-length", "content-type")
                }
                return Response(status_code=304, headers=headers)
            return response

        routes.append(Route(route.path, endpoint, methods=["GET"]))
    return routes


def _unchanged_since(request: Request, changed: datetime) -> bool:
    """Whether the request's `If-Modified-Since` says the client has the card already."""
    if "if-none-match" in request.headers:
        return False  # the ETag decides (RFC 9110, 13.1.3)
    since = request.headers.get("if-modified-since")
    if not since:
        return False
    try:
        moment = parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return changed <= moment
