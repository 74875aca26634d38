"""`serve`: run an agent as an A2A server with uvicorn (`agentry serve a2a MODULE:OBJECT`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agentry.a2a._database import PoolSettings, database_url
from agentry.a2a._sessions import DEFAULT_DATABASE
from agentry.agents import SupportsAgentRun
from agentry.errors import AgentryError, require_extra

__all__ = ["add_arguments", "load_agent", "main", "serve"]


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
) -> None:
    """Serve `agent` over A2A with uvicorn until interrupted.

    Args:
        agent: The agent to serve.
        host: The interface to listen on.
        port: The port to listen on.
        url: The public URL for the agent card (default: `http://HOST:PORT`).
        database: Where tasks and sessions are kept: a SQLite file, or a URL
            (`sqlite:///FILE`, `postgresql://USER@HOST/DATABASE`); `None` keeps them in
            memory.
        log_level: uvicorn's log level.
        pool: The database's connection pool (see :func:`create_app`).
        lease_duration: Seconds after which a server sharing `database` that stopped
            renewing its lease counts as dead (see :func:`create_app`).

    Raises:
        MissingExtraError: The `a2a` extra is not installed.
        A2AConfigError: A setting is out of range, or `database` is not SQLite or
            PostgreSQL.
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
    )
    uvicorn.run(app, host=host, port=port, log_level=log_level)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `serve a2a` options to `parser`."""
    parser.add_argument("target", metavar="MODULE:OBJECT", help="the agent or workflow to serve")
    parser.add_argument("--host", default="127.0.0.1", help="interface (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument("--url", default=None, help="public URL for the agent card")
    parser.add_argument(
        "--database",
        default=DEFAULT_DATABASE,
        help=f"SQLite file or database URL for tasks and sessions (default: {DEFAULT_DATABASE}; "
        "postgresql://USER@HOST/DB lets several servers share them); 'none' keeps them in memory",
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
    parser.add_argument("--log-level", default="info", help="uvicorn log level")


def run_from_arguments(arguments: argparse.Namespace) -> int:
    """Serve what parsed `serve a2a` arguments name; the process exit status."""
    try:
        agent = load_agent(arguments.target)
    except AgentryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    database = None if str(arguments.database).lower() == "none" else str(arguments.database)
    try:
        pool = PoolSettings(
            size=arguments.pool_size,
            max_overflow=arguments.pool_max_overflow,
            timeout=arguments.pool_timeout,
        )
        where = _where(database)
    except AgentryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"agentry: tasks and sessions are kept {where}", file=sys.stderr, flush=True)
    try:
        serve(
            agent,
            host=arguments.host,
            port=arguments.port,
            url=arguments.url,
            database=database,
            log_level=arguments.log_level,
            pool=pool,
            lease_duration=arguments.lease,
        )
    except AgentryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def _where(database: str | None) -> str:
    """Where the server keeps tasks and sessions, in words."""
    if database is None:
        return "in memory (they are lost when the server stops)"
    url = database_url(database)
    if url.get_backend_name() == "sqlite" and "://" not in database:
        return f"in the SQLite file {Path(database).resolve()} (--database none: in memory)"
    return f"in the database {url.render_as_string(hide_password=True)}"


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m agentry.a2a MODULE:OBJECT [--host H] [--port P]`."""
    parser = argparse.ArgumentParser(
        prog="agentry serve a2a", description="Serve an agentry agent over A2A."
    )
    add_arguments(parser)
    return run_from_arguments(parser.parse_args(argv))
