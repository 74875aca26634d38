"""`agentry serve openai MODULE:OBJECT`: an agent as an OpenAI-compatible endpoint."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from agentry._http import add_host_arguments, keys_from_environment, warn_when_open
from agentry.agents import SupportsAgentRun
from agentry.errors import AgentryError
from agentry.openai.server._app import DEFAULT_MAX_REQUEST_BYTES, create_app
from agentry.openai.server._response_store import SQLResponseStore
from agentry.storage import database_url, default_database_url, safe_url

__all__ = ["add_arguments", "run_from_arguments", "serve"]


def serve(
    agent: SupportsAgentRun,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    api_keys: str | Sequence[str] | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    log_level: str = "info",
) -> None:
    """Serve `agent` over the Chat Completions API with uvicorn until interrupted.

    Args:
        agent: The agent (or workflow agent) to serve; its `name` is the model name.
        host: The interface to listen on.
        port: The port to listen on.
        api_keys: Keys callers must send (see `create_app`); None serves everyone.
        max_request_bytes: The largest request body accepted.
        log_level: uvicorn's log level.
    """
    import uvicorn

    app = create_app(agent, api_keys=api_keys, max_request_bytes=max_request_bytes)
    uvicorn.run(app, host=host, port=port, log_level=log_level)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `serve openai` options to `parser`."""
    parser.add_argument("target", metavar="MODULE:OBJECT", help="the agent or workflow to serve")
    parser.add_argument(
        "--model",
        default=None,
        help="the model name callers use (default: the agent's name, else 'agent')",
    )
    parser.add_argument(
        "--database",
        default=None,
        help="where responses are stored for previous_response_id: a SQLite file or a "
        "database URL such as postgresql://USER@HOST/DB, which servers can share (default: "
        "$AGENTRY_DATABASE_URL, else in memory); 'none' keeps them in memory",
    )
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=DEFAULT_MAX_REQUEST_BYTES,
        help=f"the largest request body accepted (default: {DEFAULT_MAX_REQUEST_BYTES})",
    )
    add_host_arguments(parser)


def run_from_arguments(arguments: argparse.Namespace) -> int:
    """Serve what parsed `serve openai` arguments name; the process exit status."""
    from agentry.targets import load_agent

    try:
        agent = load_agent(arguments.target)
        keys = keys_from_environment(arguments.api_key_env)
        served = {arguments.model: agent} if arguments.model else agent
        store, where = _response_store(arguments.database)
        app = create_app(
            served,
            api_keys=keys,
            max_request_bytes=arguments.max_request_bytes,
            response_store=store,
        )
    except (AgentryError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"agentry: stored responses are kept {where}", file=sys.stderr, flush=True)
    warn_when_open(arguments.host, keys)
    import uvicorn

    uvicorn.run(app, host=arguments.host, port=arguments.port, log_level=arguments.log_level)
    return 0


def _response_store(database: str | None) -> tuple[SQLResponseStore | None, str]:
    """The store `--database` names (None: in memory), and where it keeps responses."""
    chosen = database or default_database_url()
    if chosen is None or chosen.lower() == "none":
        return None, "in memory"
    return SQLResponseStore(chosen), f"in {safe_url(database_url(chosen))}"
