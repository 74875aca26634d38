"""A2A (agent-to-agent protocol) support: host agentry agents, and call remote agents.

Needs the `a2a` extra (`pip install 'agentry[a2a]'`). Names load on first use.

Example:
    >>> from agentry.a2a import create_app
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from agentry.errors import MissingExtraError

_EXPORTS: dict[str, str] = {
    "A2AConfigError": "agentry.a2a._errors",
    "A2AAgent": "agentry.a2a._client_agent",
    "A2AApp": "agentry.a2a._app",
    "AgentryAgentExecutor": "agentry.a2a._executor",
    "ContextSessionStore": "agentry.a2a._sessions",
    "DEFAULT_DATABASE": "agentry.a2a._sessions",
    "InMemoryContextSessionStore": "agentry.a2a._sessions",
    "PoolSettings": "agentry.a2a._database",
    "RemoteAgentError": "agentry.a2a._errors",
    "SQLContextSessionStore": "agentry.a2a._sql_sessions",
    "SQLiteContextSessionStore": "agentry.a2a._sessions",
    "build_agent_card": "agentry.a2a._card",
    "create_app": "agentry.a2a._app",
    "serve": "agentry.a2a._serve",
}

__all__ = [
    "DEFAULT_DATABASE",
    "A2AAgent",
    "A2AConfigError",
    "A2AApp",
    "AgentryAgentExecutor",
    "ContextSessionStore",
    "InMemoryContextSessionStore",
    "PoolSettings",
    "RemoteAgentError",
    "SQLContextSessionStore",
    "SQLiteContextSessionStore",
    "build_agent_card",
    "create_app",
    "serve",
]

_EXTRA_MODULES = ("a2a", "google", "httpx", "starlette", "sse_starlette", "uvicorn", "sqlalchemy")


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agentry.a2a' has no attribute {name!r}")
    try:
        module = import_module(module_name)
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        if missing in _EXTRA_MODULES:
            raise MissingExtraError("A2A", "a2a") from error
        raise
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from agentry.a2a._app import A2AApp, create_app
    from agentry.a2a._card import build_agent_card
    from agentry.a2a._client_agent import A2AAgent
    from agentry.a2a._database import PoolSettings
    from agentry.a2a._errors import A2AConfigError, RemoteAgentError
    from agentry.a2a._executor import AgentryAgentExecutor
    from agentry.a2a._serve import serve
    from agentry.a2a._sessions import (
        DEFAULT_DATABASE,
        ContextSessionStore,
        InMemoryContextSessionStore,
        SQLiteContextSessionStore,
    )
    from agentry.a2a._sql_sessions import SQLContextSessionStore
