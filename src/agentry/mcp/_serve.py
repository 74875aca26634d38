"""`agentry serve mcp MODULE:OBJECT`: an agent or workflow as an MCP server."""

from __future__ import annotations

import argparse
import asyncio
import sys

from agentry.mcp._server import AgentMCPServer
from agentry.targets import TargetError, load_agent

__all__ = ["add_arguments", "run_from_arguments"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `serve mcp` options to `parser`."""
    parser.add_argument("target", metavar="MODULE:OBJECT", help="the agent or workflow to serve")
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (for one client that starts this process; the default) or streamable HTTP",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP interface (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.add_argument("--name", default=None, help="the server's name (default: the agent's)")
    parser.add_argument(
        "--expose-tools", action="store_true", help="also offer the agent's own function tools"
    )
    parser.add_argument(
        "--tasks",
        action="store_true",
        help="run calls of the agent as long-running tasks for clients that take them",
    )


def run_from_arguments(arguments: argparse.Namespace) -> int:
    """Serve what parsed `serve mcp` arguments name until interrupted; the exit status."""
    try:
        agent = load_agent(arguments.target)
    except TargetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2 if error.malformed else 1
    server = AgentMCPServer(
        agent, name=arguments.name, expose_tools=arguments.expose_tools, tasks=arguments.tasks
    )
    if arguments.transport == "stdio":
        asyncio.run(server.run_stdio())
    else:
        print(
            f"serving {server.name!r} over MCP at http://{arguments.host}:{arguments.port}/mcp",
            file=sys.stderr,
        )
        asyncio.run(server.run_http(host=arguments.host, port=arguments.port))
    return 0
