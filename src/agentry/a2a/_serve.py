"""`serve`: run an agent as an A2A server with uvicorn (`agentry serve a2a MODULE:OBJECT`)."""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentry.a2a._sessions import DEFAULT_DATABASE
from agentry.agents import SupportsAgentRun
from agentry.errors import AgentryError, require_extra
from agentry.storage import PoolSettings

if TYPE_CHECKING:
    from agentry.durable import DurableRuntime

__all__ = ["DEFAULT_BACKLOG", "add_arguments", "load_agent", "main", "serve"]

DEFAULT_BACKLOG = 8192
"""Connections waiting to be accepted (uvicorn's default is 2048)."""


def load_agent(target: str) -> SupportsAgentRun:
    """The agent named by `MODULE:OBJECT`; a workflow is turned into an agent with `as_agent()`.

    `OBJECT` may also be a function without arguments that returns the agent.

    Raises:
        AgentryError: The target is malformed, cannot be imported, or is not an agent.
    """
    from agentry.targets import load_agent as load

    return load(target)


def serve(
    agent: SupportsAgentRun,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    url: str | None = None,
    database: str | Path | None = DEFAULT_DATABASE,
    log_level: str = "info",
    pool: PoolSettings | None = None,
    lease_duration: float = 15.0,
    durable: DurableRuntime | None = None,
    backlog: int = DEFAULT_BACKLOG,
) -> None:
    """Serve `agent` over A2A with uvicorn until interrupted.

    Args:
        agent: The agent to serve.
        host: The interface to listen on.
        port: The port to listen on.
        url: The public URL for the agent card (default: `http://HOST:PORT`).
        database: Where tasks and sessions are kept: a SQLite file or a database URL
            (`postgresql://user@host/db`); `None` keeps them in memory.
        log_level: uvicorn's log level.
        pool: The database's connection pool (see :func:`create_app`).
        lease_duration: Seconds after which a server sharing `database` that stopped
            renewing its lease counts as dead (see :func:`create_app`).
        durable: A durable runtime to run each task in, so that another server resumes
            the tasks of a dead one (see :func:`create_app`).
        backlog: Connections the system holds while the server has not accepted them
            yet (bounded by the system's `net.core.somaxconn`); a burst of more clients
            than this at once makes the rest retry their connection after a second.

    Raises:
        MissingExtraError: The `a2a` extra is not installed.
        StorageConfigError: A pool setting is out of range, or `database` is not a
            database URL.
    """
    require_extra("a2a", feature="Serving an agent over A2A")
    import uvicorn

    from agentry.a2a._app import create_app

    app = create_app(
        agent,
        url=url or f"http://{host}:{port}",
        database=database,
        pool=pool,
        lease_duration=lease_duration,
        durable=durable,
    )
    uvicorn.run(app, host=host, port=port, log_level=log_level, backlog=backlog)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `serve a2a` options to `parser`."""
    parser.add_argument("target", metavar="MODULE:OBJECT", help="the agent or workflow to serve")
    parser.add_argument("--host", default="127.0.0.1", help="interface (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument("--url", default=None, help="public URL for the agent card")
    parser.add_argument(
        "--database",
        default=DEFAULT_DATABASE,
        help="where tasks and sessions are kept: a SQLite file or a database URL such as "
        f"postgresql://USER@HOST/DB, which lets several servers share them (default: "
        f"$AGENTRY_DATABASE_URL, else {DEFAULT_DATABASE}); 'none' keeps them in memory",
    )
    parser.add_argument(
        "--pool-size",
        type=int,
        default=None,
        help="database connections to keep open (default: 1 for SQLite, 10 for PostgreSQL)",
    )
    parser.add_argument(
        "--pool-max-overflow",
        type=int,
        default=None,
        help="connections opened beyond --pool-size under load (default: 0 for SQLite, 10)",
    )
    parser.add_argument(
        "--pool-timeout",
        type=float,
        default=600.0,
        help="seconds a request waits for a free database connection (default: 600)",
    )
    parser.add_argument(
        "--lease",
        type=float,
        default=15.0,
        help="seconds after which a server sharing the database that stopped renewing "
        "its lease counts as dead and its running tasks are failed (default: 15)",
    )
    parser.add_argument(
        "--durable",
        nargs="?",
        const="",
        default=None,
        metavar="DATABASE",
        help="run each task as a durable agent run, recorded in DATABASE (default: "
        "$AGENTRY_DURABLE_DATABASE_URL, else $AGENTRY_DATABASE_URL, else "
        "agentry-durable.sqlite), so that a task whose server dies is resumed by another "
        "server instead of failed",
    )
    parser.add_argument(
        "--worker-id",
        default=None,
        help="this server's durable worker id, unique to it and kept across its restarts "
        "(default: a2a-HOSTNAME-PORT)",
    )
    parser.add_argument(
        "--takeover-after",
        type=float,
        default=60.0,
        help="seconds after which the durable runs of a server that stopped are taken over "
        "by the live ones (default: 60)",
    )
    parser.add_argument(
        "--backlog",
        type=int,
        default=DEFAULT_BACKLOG,
        help="connections waiting to be accepted, for bursts of many clients at once "
        f"(default: {DEFAULT_BACKLOG}; the system's net.core.somaxconn bounds it)",
    )
    parser.add_argument("--log-level", default="info", help="uvicorn log level")


def run_from_arguments(arguments: argparse.Namespace) -> int:
    """Serve what parsed `serve a2a` arguments name; the process exit status."""
    try:
        agent = load_agent(arguments.target)
    except AgentryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from agentry.a2a._task_store import describe_database, resolve_database

    database = None if str(arguments.database).lower() == "none" else arguments.database
    database = resolve_database(database)
    try:
        pool = _pool(arguments, database)
    except AgentryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    where = describe_database(database)
    print(f"agentry: tasks and sessions are kept {where}", file=sys.stderr, flush=True)
    try:
        durable = _durable_runtime(arguments)
        serve(
            agent,
            host=arguments.host,
            port=arguments.port,
            url=arguments.url,
            database=database,
            log_level=arguments.log_level,
            pool=pool,
            lease_duration=arguments.lease,
            durable=durable,
            backlog=arguments.backlog,
        )
    except AgentryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def _durable_runtime(arguments: argparse.Namespace) -> DurableRuntime | None:
    """The durable runtime `--durable` asks for, if any."""
    if arguments.durable is None:
        return None
    require_extra("durable", feature="Serving durable tasks")
    from agentry.durable import DurableRuntime

    worker_id = arguments.worker_id or f"a2a-{socket.gethostname()}-{arguments.port}"
    return DurableRuntime(
        arguments.durable or None, worker_id=worker_id, takeover_after=arguments.takeover_after
    )


def _pool(arguments: argparse.Namespace, database: str | Path | None) -> PoolSettings | None:
    """The pool the `--pool-*` flags describe, the server's defaults filling the rest."""
    if database is None:
        return None
    from agentry.a2a._database import server_pool

    return server_pool(
        database,
        size=arguments.pool_size,
        max_overflow=arguments.pool_max_overflow,
        timeout=arguments.pool_timeout,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m agentry.a2a MODULE:OBJECT [--host H] [--port P]`."""
    parser = argparse.ArgumentParser(
        prog="agentry serve a2a", description="Serve an agentry agent over A2A."
    )
    add_arguments(parser)
    return run_from_arguments(parser.parse_args(argv))
