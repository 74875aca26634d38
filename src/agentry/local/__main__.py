"""`python -m agentry.local llama-server-args [--model NAME]`: what to give `llama-server`.

Prints, on one line, the arguments that serve a registered local model from llama.cpp's
`llama-server` with working tool calls (see `llama_server_arguments`), for a shell to pass on:
`llama-server $(python -m agentry.local llama-server-args) --port 8080`.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from agentry.local._errors import LocalModelError
from agentry.local._llama_server import SERVED_MODEL, llama_server_arguments
from agentry.local._registry import LOCAL_MODELS


def main(argv: list[str] | None = None) -> int:
    """Run the command; 0 on success, 1 (with the reason on stderr) when the model is not
    ready."""
    parser = argparse.ArgumentParser(
        prog="python -m agentry.local",
        description="Tools for agentry's registered local models.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    server_args = commands.add_parser(
        "llama-server-args",
        help="print the llama-server arguments that serve a local model with tool calls",
    )
    server_args.add_argument(
        "--model",
        default=SERVED_MODEL,
        choices=sorted(LOCAL_MODELS),
        help=f"the registered model (default: {SERVED_MODEL})",
    )
    options = parser.parse_args(argv)
    try:
        arguments = llama_server_arguments(str(options.model))
    except LocalModelError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(shlex.join(arguments))
    return 0


if __name__ == "__main__":
    sys.exit(main())
