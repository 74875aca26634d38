"""A2A (agent-to-agent protocol) support: host agentry agents, and call remote agents.

Needs the `a2a` extra (`pip install 'agentry[a2a]'`). Names load on first use.

Example:
    >>> from agentry.a2a import create_app
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentry.errors import lazy_exports

_EXPORTS: dict[str, str] = {
    "A2AConfigError": "agentry.a2a._errors",
    "A2AAgent": "agentry.a2a._client_agent",
    "A2AApp": "agentry.a2a._app",
    "AgentryAgentExecutor": "agentry.a2a._executor",
    "ContextSessionStore": "agentry.a2a._sessions",
    "DEFAULT_DATABASE": "agentry.a2a._sessions",
    "InMemoryContextSessionStore": "agentry.a2a._sessions",
    "PoolSettings": "agentry.storage",
    "RemoteAgentError": "agentry.a2a._errors",
    "SQLContextSessionStore": "agentry.a2a._sql_sessions",
    "SQLiteContextSessionStore": "agentry.a2a._sessions",
    "TASKS_TABLE": "agentry.a2a._task_store",
    "prepare_database": "agentry.a2a._task_store",
    "build_agent_card": "agentry.a2a._card",
    "create_app": "agentry.a2a._app",
    "serve": "agentry.a2a._serve",
}

__all__ = [
    "DEFAULT_DATABASE",
    "TASKS_TABLE",
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
    "prepare_database",
    "serve",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    _EXPORTS,
    extra="a2a",
    feature="A2A",
    extra_packages=(
        "a2a",
        "google",
        "httpx",
        "starlette",
        "sse_starlette",
        "uvicorn",
        "sqlalchemy",
    ),
)

if TYPE_CHECKING:
    from agentry.a2a._app import A2AApp, create_app
    from agentry.a2a._card import build_agent_card
    from agentry.a2a._client_agent import A2AAgent
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
    from agentry.a2a._task_store import TASKS_TABLE, prepare_database
    from agentry.storage import PoolSettings
