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

from typing import TYPE_CHECKING

from agentry.errors import lazy_exports

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
    "NEW_MESSAGE_DECLINED_RESULT": "agentry.durable._durable_agent",
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
    "NEW_MESSAGE_DECLINED_RESULT",
    "WorkflowFactory",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    _EXPORTS,
    extra="durable",
    feature="agentry.durable",
    extra_packages=("dbos", "sqlalchemy", "psycopg"),
)

if TYPE_CHECKING:
    from agentry.durable._agent_run_handle import DurableAgentRun
    from agentry.durable._durable_agent import NEW_MESSAGE_DECLINED_RESULT
    from agentry.durable._errors import DurableRunError, DurableRunFailedError, DurableStepError
    from agentry.durable._run_handle import DurableRun
    from agentry.durable._runtime import (
        DATABASE_URL_ENV,
        DEFAULT_DATABASE_URL,
        DurableRuntime,
        WorkflowFactory,
    )
    from agentry.durable._serializer import JSONSerializer
