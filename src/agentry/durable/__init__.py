"""Durable workflows on DBOS: runs that survive their process, on SQLite or PostgreSQL.

Each handler call of a workflow run is a DBOS step (and each model call and tool call of a
durable agent run). A run whose process dies resumes from
its last completed step when a worker starts again; a completed call never runs again,
and a call that was under way runs again with the same `ctx.idempotency_key`. Requests
for information wait durably and can be answered from any process.

Needs the `durable` extra (`pip install 'agentry[durable]'`). Names load on first use.

Example:
    >>> from agentry.durable import DurableRuntime
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from agentry.errors import MissingExtraError

_EXPORTS: dict[str, str] = {
    "DATABASE_URL_ENV": "agentry.durable._runtime",
    "DEFAULT_DATABASE_URL": "agentry.durable._runtime",
    "DurableAgentRun": "agentry.durable._agent_run_handle",
    "DurableRun": "agentry.durable._run_handle",
    "DurableRunError": "agentry.durable._errors",
    "DurableRunFailedError": "agentry.durable._errors",
    "DurableRuntime": "agentry.durable._runtime",
    "DurableStepError": "agentry.durable._errors",
    "JSONSerializer": "agentry.durable._serializer",
    "WorkflowFactory": "agentry.durable._runtime",
}

__all__ = [
    "DATABASE_URL_ENV",
    "DEFAULT_DATABASE_URL",
    "DurableAgentRun",
    "DurableRun",
    "DurableRunError",
    "DurableRunFailedError",
    "DurableRuntime",
    "DurableStepError",
    "JSONSerializer",
    "WorkflowFactory",
]

_EXTRA_MODULES = ("dbos", "sqlalchemy", "psycopg")


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agentry.durable' has no attribute {name!r}")
    try:
        module = import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and error.name.split(".")[0] in _EXTRA_MODULES:
            raise MissingExtraError("agentry.durable", "durable") from error
        raise
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from agentry.durable._agent_run_handle import DurableAgentRun
    from agentry.durable._errors import DurableRunError, DurableRunFailedError, DurableStepError
    from agentry.durable._run_handle import DurableRun
    from agentry.durable._runtime import (
        DATABASE_URL_ENV,
        DEFAULT_DATABASE_URL,
        DurableRuntime,
        WorkflowFactory,
    )
    from agentry.durable._serializer import JSONSerializer
