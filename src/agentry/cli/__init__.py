"""The `agentry` command: chat with a model, run agents and workflows, serve them, draw them.

Each command lives in its own module (`_chat`, `_run`, `_serve`, `_workflow`) with an
`add_parser(commands, parents)` function; optional packages are imported only by the command
that needs them.

Example:
    >>> main(["--version"])  # doctest: +SKIP
    agentry 0.1.0
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import signal
import sys
import traceback
from collections.abc import Sequence
from typing import Any

from agentry.cli import _chat, _db, _durable, _run, _serve, _workflow
from agentry.cli._errors import CliError
from agentry.errors import AgentryError, MissingExtraError
from agentry.targets import TargetError

__all__ = ["CliError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of the `agentry` command and all its subcommands."""
    import agentry

    parser = argparse.ArgumentParser(
        prog="agentry", description="Build, run and host LLM agents and workflows."
    )
    parser.add_argument("--version", action="version", version=f"agentry {agentry.__version__}")
    _add_common_options(parser, defaults=True)
    # The same options after the command (`agentry run app:agent "hi" -v`); without
    # defaults there, so they do not reset what was given before the command.
    common = argparse.ArgumentParser(add_help=False)
    _add_common_options(common, defaults=False)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (_chat, _run, _serve, _workflow, _db):
        module.add_parser(commands, [common])
    _durable.add_worker_parser(commands, [common])
    return parser


def _add_common_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    unset: object = argparse.SUPPRESS
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0 if defaults else unset,
        help="show agentry's log on stderr (-v: info, -vv: debug)",
    )
    parser.add_argument(
        "--otel",
        choices=("console", "otlp"),
        default=None if defaults else unset,
        help="export OpenTelemetry spans and metrics: to stderr, or to an OTLP collector "
        "(OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318)",
    )
    parser.add_argument(
        "--otel-sensitive",
        action="store_true",
        default=False if defaults else unset,
        help="with --otel, also record prompts, answers, tool arguments and results",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `agentry` command line with `argv` (default: `sys.argv[1:]`).

    Returns:
        The exit status: 0 on success, 1 when the work failed, 2 for bad usage,
        130 when interrupted.
    """
    arguments = build_parser().parse_args(argv)
    if arguments.verbose:
        from agentry.observability import configure_logging

        configure_logging("DEBUG" if arguments.verbose > 1 else "INFO")
    telemetry: Any = None
    try:
        telemetry = _start_telemetry(arguments)
        handler: Any = arguments.handler
        result = handler(arguments)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        return int(result)
    except CliError as error:
        return _fail(str(error), error.exit_code)
    except TargetError as error:
        return _fail(str(error), 2 if error.malformed else 1)
    except AgentryError as error:
        return _fail(str(error), 1, verbose=arguments.verbose)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return 130
    except BrokenPipeError:
        # the reader went away (`agentry run ... | head`): stop writing, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:
        return _fail(f"{type(error).__name__}: {error}", 1, verbose=arguments.verbose or 1)
    finally:
        if telemetry is not None:
            telemetry.shutdown()


async def _awaited(result: Any) -> Any:
    """Await a command's work; Ctrl-C cancels it and surfaces as KeyboardInterrupt.

    The loop's own SIGINT handler wakes the loop whichever thread the signal reaches
    (a plain Python handler runs only once the main thread wakes, which a loop asleep
    waiting for input never does).
    """
    loop = asyncio.get_running_loop()
    work = asyncio.ensure_future(result)
    interrupted = False

    def interrupt() -> None:
        nonlocal interrupted
        interrupted = True
        work.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, interrupt)
    except (NotImplementedError, RuntimeError, ValueError):
        return await work  # no loop signal handling here (Windows, or not the main thread)
    try:
        return await work
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def _start_telemetry(arguments: argparse.Namespace) -> Any:
    if not arguments.otel:
        return None
    from agentry.observability import configure_otel

    exporter: Any = arguments.otel
    metrics: Any = arguments.otel
    if exporter == "console":
        try:
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter
        except ImportError:
            raise MissingExtraError("--otel", "otel") from None
        exporter = ConsoleSpanExporter(out=sys.stderr)
        metrics = None  # periodic metric dumps would drown the conversation
    return configure_otel(exporter, enable_sensitive_data=arguments.otel_sensitive, metrics=metrics)


def _fail(message: str, exit_code: int, *, verbose: int = 0) -> int:
    if verbose:
        traceback.print_exc(file=sys.stderr)
    sys.stderr.write(f"agentry: error: {message}\n")
    return exit_code
