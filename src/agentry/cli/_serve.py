"""`agentry serve a2a|ag-ui|mcp|openai ...`: host an agent or workflow over a protocol.

Each protocol's package provides the command's arguments and its work, in the module
`PROTOCOLS` names, with two functions:

- `add_arguments(parser: argparse.ArgumentParser) -> None`
- `run_from_arguments(arguments: argparse.Namespace) -> int` (blocks while serving)

Nothing of a protocol is imported until its command runs, so `agentry` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from agentry.cli._errors import CliError
from agentry.errors import MissingExtraError, require_extra

__all__ = ["PROTOCOLS", "add_parser"]

PROTOCOLS: dict[str, tuple[str, str, str]] = {
    "a2a": ("the A2A server", "a2a", "agentry.a2a._serve"),
    "ag-ui": ("the AG-UI server", "ag-ui", "agentry.ag_ui._serve"),
    "mcp": ("the MCP server", "mcp", "agentry.mcp._serve"),
    "openai": ("the OpenAI-compatible server", "openai-server", "agentry.openai.server._serve"),
}
"""protocol -> (what serves it, the extra it needs, the module with its command)."""


def add_parser(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `serve` command to the `agentry` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "serve",
        parents=parents,
        help="serve an agent or workflow over A2A, AG-UI, MCP or the OpenAI API",
        description="Serve an agent or workflow. "
        "See `agentry serve PROTOCOL --help` for a protocol's options.",
    )
    parser.add_argument("protocol", choices=sorted(PROTOCOLS), help="the protocol to serve")
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="MODULE:OBJECT [OPTIONS]",
        help="what to serve, then the protocol's options",
    )
    parser.set_defaults(handler=_serve)


def _serve(arguments: argparse.Namespace) -> int:
    protocol: str = arguments.protocol
    server = _server_module(protocol)
    parser = argparse.ArgumentParser(
        prog=f"agentry serve {protocol}", description=f"Serve over {protocol.upper()}."
    )
    server.add_arguments(parser)
    return int(server.run_from_arguments(parser.parse_args(arguments.options)))


def _server_module(protocol: str) -> Any:
    what, extra, module_name = PROTOCOLS[protocol]
    feature = f"`agentry serve {protocol}`"
    require_extra(extra, feature=feature)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("agentry"):
            raise CliError(
                f"{feature} needs {what} ({module_name}), which this installation of agentry "
                "does not have yet"
            ) from None
        raise MissingExtraError(feature, extra, missing=error.name) from None
    if not (hasattr(module, "add_arguments") and hasattr(module, "run_from_arguments")):
        raise CliError(
            f"{module_name} does not provide add_arguments and run_from_arguments, "
            f"so {feature} cannot use it"
        )
    return module
