"""`agentry serve ag-ui MODULE:OBJECT`: an agent for AG-UI front ends."""

from __future__ import annotations

import argparse
import sys

from agentry._http import add_host_arguments, keys_from_environment, warn_when_open
from agentry.ag_ui._app import DEFAULT_MAX_REQUEST_BYTES, create_app
from agentry.errors import AgentryError

__all__ = ["add_arguments", "run_from_arguments"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `serve ag-ui` options to `parser`."""
    parser.add_argument("target", metavar="MODULE:OBJECT", help="the agent or workflow to serve")
    parser.add_argument("--path", default="/", help="where the endpoint is (default: /)")
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=DEFAULT_MAX_REQUEST_BYTES,
        help=f"the largest run input accepted (default: {DEFAULT_MAX_REQUEST_BYTES})",
    )
    add_host_arguments(parser)


def run_from_arguments(arguments: argparse.Namespace) -> int:
    """Serve what parsed `serve ag-ui` arguments name; the process exit status."""
    from agentry.targets import load_agent

    try:
        agent = load_agent(arguments.target)
        keys = keys_from_environment(arguments.api_key_env)
        app = create_app(
            agent,
            path=arguments.path,
            api_keys=keys,
            max_request_bytes=arguments.max_request_bytes,
        )
    except (AgentryError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    warn_when_open(arguments.host, keys)
    import uvicorn

    uvicorn.run(app, host=arguments.host, port=arguments.port, log_level=arguments.log_level)
    return 0
