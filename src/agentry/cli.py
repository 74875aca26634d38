"""The `agentry` command.

agentry serve a2a MODULE:OBJECT [--host HOST] [--port PORT] [--database FILE]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from agentry.errors import MissingExtraError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `agentry` command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="agentry", description="agentry command line.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve an agent over a protocol")
    protocols = serve.add_subparsers(dest="protocol", required=True)
    a2a = protocols.add_parser("a2a", help="serve an agent or workflow over A2A")
    try:
        from agentry.a2a._serve import add_arguments, run_from_arguments
    except ImportError:
        message = str(MissingExtraError("A2A", "a2a"))

        def missing_extra(arguments: argparse.Namespace) -> int:
            del arguments
            return _fail(message)

        a2a.set_defaults(handler=missing_extra)
    else:
        add_arguments(a2a)
        a2a.set_defaults(handler=run_from_arguments)
    arguments = parser.parse_args(argv)
    return int(arguments.handler(arguments))


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
